// The file alone: the package's index would bring zod and every schema into the pages' scripts.
import { SIGN_IN_PAGE_PATH } from "@stackgate/contract/site-path.ts";

export const SIGN_IN_PATH = SIGN_IN_PAGE_PATH;

export function signInPathFor(nextPath: string): string {
  return `${SIGN_IN_PATH}?next=${encodeURIComponent(nextPath)}`;
}
