import { apikeys } from "./apikeys.ts";

export * from "./apikeys.ts";
export * from "./common.ts";

/** The whole API, defined once: the backend implements it, the dashboard calls it, /doc describes it. */
export const contract = {
  apikeys,
};

export type Contract = typeof contract;
