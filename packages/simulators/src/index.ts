export { AUTO_REDEPLOY_OPERATOR } from "./komodo/actions.ts";
export * from "./komodo/faults.ts";
export type { RecordedCall } from "./komodo/http.ts";
export { KOMODO_VERSION, type StackPaging } from "./komodo/requests.ts";
export * from "./komodo/seeds.ts";
export * from "./komodo/simulator.ts";
export type { UpdateStreamControl } from "./komodo/update-stream.ts";
export {
  type NtfyMessage,
  type NtfyReceiver,
  type NtfyReceiverMode,
  type NtfyReceiverOptions,
  type PublishedMessage,
  type ReceivedRequest,
  startNtfyReceiver,
} from "./ntfy/receiver.ts";
export { freePort, UNREACHABLE_PORT, UNREACHABLE_URL } from "./ports.ts";
export {
  maxOverlappingRuns,
  readStandInTrivyRuns,
  type StandInTrivyRun,
  standInTrivyPath,
} from "./trivy/index.ts";
