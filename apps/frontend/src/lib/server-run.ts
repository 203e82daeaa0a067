/**
 * Server side only: what a run page is about (its stack and action), asked while /runs/<id> renders,
 * so the page's title and heading name it at once. Anything but a quick answer gives null: the island
 * asks again and reports what went wrong.
 */
import type { DeployAction } from "../components/stacks/model.ts";
import { clientFor } from "./server-stacks.ts";

const SERVER_FETCH_TIMEOUT_MS = 1_500;

export async function fetchRunHeading(
  cookieHeader: string | null,
  id: string,
): Promise<{ stack: string; action: DeployAction } | null> {
  if (!cookieHeader) return null;
  try {
    const { run } = await clientFor(cookieHeader).deploy.getRun(
      { id },
      { signal: AbortSignal.timeout(SERVER_FETCH_TIMEOUT_MS) },
    );
    return { stack: run.stack, action: run.action };
  } catch {
    return null;
  }
}
