import { channelProcedures } from "./alert-channels.ts";
import { apikeys } from "./apikeys.ts";
import { connectionProcedures } from "./connection.ts";
import { deployProcedures } from "./deploy.ts";
import { historyProcedures } from "./history.ts";
import { notifyProcedures } from "./notify.ts";
import { scanProcedures } from "./scans.ts";
import { signInProcedures } from "./sign-in.ts";
import { stackProcedures } from "./stacks.ts";
import { auditProcedures, invitationProcedures, meProcedures, userProcedures } from "./users.ts";

export * from "./alert-channels.ts";
export * from "./apikeys.ts";
export * from "./common.ts";
export * from "./connection.ts";
export * from "./deploy.ts";
export * from "./history.ts";
export * from "./notify.ts";
export * from "./roles.ts";
export * from "./scans.ts";
export * from "./sign-in.ts";
export * from "./site-path.ts";
export * from "./stacks.ts";
export * from "./users.ts";

/** The whole API, defined once: the backend implements it, the dashboard calls it, /doc describes it. */
export const contract = {
  apikeys,
  connection: connectionProcedures,
  notify: { ...notifyProcedures, channels: channelProcedures },
  stacks: stackProcedures,
  deploy: deployProcedures,
  history: historyProcedures,
  scans: scanProcedures,
  me: meProcedures,
  users: userProcedures,
  invitations: invitationProcedures,
  audit: auditProcedures,
  signIn: signInProcedures,
};

export type Contract = typeof contract;
