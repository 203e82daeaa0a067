import { z } from "zod";
import { publicRoute } from "./common.ts";

export const signInOptions = z.object({
  password: z.boolean().meta({ description: "Whether password sign-in is on (PASSWORD_SIGN_IN)" }),
  sso: z
    .object({
      name: z.string().meta({ description: "The button's label (OIDC_NAME)", example: "Authentik" }),
      startUrl: z.string().meta({
        description:
          "Where the browser goes to sign in with the provider; add `returnTo` (a path) or `invitation` (a token)",
        example: "/api/auth/sso/start",
      }),
      autoRedirect: z.boolean().meta({ description: "OIDC_AUTO_REDIRECT: go to the provider at once" }),
      available: z
        .boolean()
        .meta({ description: "false while the provider cannot be reached or is misconfigured" }),
      problem: z.string().nullable().meta({ description: "Why single sign-on is not available, for people" }),
    })
    .nullable()
    .meta({ description: "null: single sign-on is not configured" }),
});

export const signInProcedures = {
  options: publicRoute({
    method: "GET",
    path: "/api/v0/sign-in/options",
    tags: ["People"],
    summary: "How people may sign in: password, single sign-on, or both",
  }).output(signInOptions),
};
