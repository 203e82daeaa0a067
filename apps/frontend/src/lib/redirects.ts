import { SIGN_IN_PAGE_PATH } from "@stackgate/contract";

export const SIGN_IN_PATH = SIGN_IN_PAGE_PATH;

export function signInPathFor(nextPath: string): string {
  return `${SIGN_IN_PATH}?next=${encodeURIComponent(nextPath)}`;
}
