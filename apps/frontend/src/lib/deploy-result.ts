import type { deployAction } from "@stackgate/contract";
import type { z } from "zod";

/** A finished deploy's result, as the history and the live events carry it. */
export interface DeployResult {
  success: boolean;
  action: z.infer<typeof deployAction>;
  stack: string;
  message: string;
}

type SuccessKey = `stacks.deploy.done.${DeployResult["action"]}`;

/**
 * A deploy's result in the dashboard's language, wherever one is shown (history, stack pages, toasts).
 * The API's success message is Spanish by specification (`Acción '<action>' completada para '<stack>'`),
 * so a success is said again from its action and stack; a failure's message is Komodo's own text (or the
 * deadline's) and is shown as it came. `t` may be the plain translator or the one that isolates values.
 */
export function deployResultMessage<Text>(
  { success, action, stack, message }: DeployResult,
  t: (key: SuccessKey, params: { stack: string }) => Text,
): Text | string {
  return success ? t(`stacks.deploy.done.${action}`, { stack }) : message;
}
