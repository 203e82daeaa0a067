import { contract, type signInOptions } from "@stackgate/contract";
import type { MiddlewareHandler } from "hono";
import type { z } from "zod";
import type { Config } from "../../platform/config.ts";
import type { SingleSignOn } from "./single-sign-on.ts";

export const SIGN_IN_OPTIONS_PATH = contract.signIn.options["~orpc"].route.path as string;

/** How people may sign in now: the sign-in and invitation pages ask before they render. */
export async function signInOptionsOf(
  config: Config,
  singleSignOn: SingleSignOn | null,
): Promise<z.infer<typeof signInOptions>> {
  return { password: config.passwordSignIn, sso: singleSignOn ? await singleSignOn.options() : null };
}

/**
 * `GET /api/v0/sign-in/options`, public. Served ahead of oRPC because the procedure layer admits
 * only callers with a session or key; its route stays in the contract, for `/doc`.
 */
export function signInOptionsRoute({
  config,
  singleSignOn,
}: {
  config: Config;
  singleSignOn: SingleSignOn | null;
}): MiddlewareHandler {
  return async (c) => {
    c.header("cache-control", "no-store");
    return c.json(await signInOptionsOf(config, singleSignOn));
  };
}
