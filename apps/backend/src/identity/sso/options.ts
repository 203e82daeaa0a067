import type { signInOptions } from "@stackgate/contract";
import type { z } from "zod";
import type { Config } from "../../platform/config.ts";
import type { SingleSignOn } from "./single-sign-on.ts";

/** How people may sign in now (`GET /api/v0/sign-in/options`): the sign-in and invitation pages ask first. */
export async function signInOptionsOf(
  config: Config,
  singleSignOn: SingleSignOn | null,
): Promise<z.infer<typeof signInOptions>> {
  return { password: config.passwordSignIn, sso: singleSignOn ? await singleSignOn.options() : null };
}
