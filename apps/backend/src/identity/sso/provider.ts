import * as oidc from "openid-client";
import type { Clock } from "../../platform/clock.ts";
import type { SingleSignOnConfig } from "../../platform/config.ts";
import type { Logger } from "../../platform/logger.ts";

/** How long a failed discovery is trusted before the provider is asked again. */
export const DISCOVERY_RETRY_MS = 30_000;
const DISCOVERY_TIMEOUT_SECONDS = 5;

export type ProviderState =
  | { status: "ready"; client: oidc.Configuration }
  | { status: "unavailable"; problem: string };

/** What went wrong with discovery, for people and the log; never the client secret. */
function describeDiscoveryFailure(issuerUrl: string, error: unknown): string {
  const cause = error instanceof Error ? (error.cause as { code?: string } | undefined) : undefined;
  // fetch's own refusals ("fetch failed", caused by a "bad port" and the like) carry no code.
  const refusedByFetch = error instanceof TypeError && cause instanceof Error ? cause.message : undefined;
  const reason = cause?.code ?? refusedByFetch;
  if (reason) return `the provider at ${issuerUrl} cannot be reached (${reason})`;
  if (error instanceof DOMException && (error.name === "TimeoutError" || error.name === "AbortError"))
    return `the provider at ${issuerUrl} did not answer within ${DISCOVERY_TIMEOUT_SECONDS} s`;
  if (error instanceof oidc.ResponseBodyError || error instanceof Error)
    return `the provider at ${issuerUrl} gave no usable discovery document (${error.message})`;
  return `the provider at ${issuerUrl} gave no usable discovery document`;
}

/**
 * The OpenID Provider as discovered from OIDC_ISSUER_URL. Discovery happens at start; when it
 * fails, the backend logs one line and asks again at most every DISCOVERY_RETRY_MS when someone
 * needs the provider, so a provider that comes up later is used without a restart.
 */
export function createProviderConnection({
  config,
  logger,
  clock,
}: {
  config: SingleSignOnConfig;
  logger: Logger;
  clock: Clock;
}) {
  let state: ProviderState = { status: "unavailable", problem: "not discovered yet" };
  let lastAttempt = Number.NEGATIVE_INFINITY;
  let attempt: Promise<ProviderState> | undefined;
  let reportedProblem: string | undefined;

  async function discover(): Promise<ProviderState> {
    lastAttempt = clock.now();
    const issuer = new URL(config.issuerUrl);
    try {
      const client = await oidc.discovery(
        issuer,
        config.clientId,
        undefined,
        oidc.ClientSecretBasic(config.clientSecret),
        {
          timeout: DISCOVERY_TIMEOUT_SECONDS,
          // A provider on a private network is often plain http; the operator chose that address.
          execute: issuer.protocol === "http:" ? [oidc.allowInsecureRequests] : [],
        },
      );
      // The ID token's signature is checked against the provider's published keys, not only trusted
      // because it came over the back channel.
      oidc.enableNonRepudiationChecks(client);
      if (reportedProblem)
        logger.info({ issuer: config.issuerUrl }, "single sign-on provider reachable again");
      reportedProblem = undefined;
      state = { status: "ready", client };
    } catch (error) {
      const problem = describeDiscoveryFailure(config.issuerUrl, error);
      if (problem !== reportedProblem) {
        logger.error(
          `single sign-on unavailable: ${problem}; password sign-in is unaffected, retrying later`,
        );
        reportedProblem = problem;
      }
      state = { status: "unavailable", problem };
    }
    return state;
  }

  const refresh = () => {
    attempt ??= discover().finally(() => {
      attempt = undefined;
    });
    return attempt;
  };

  return {
    /** Discovers in the background; whoever asks meanwhile waits for that answer. */
    start: () => void refresh(),
    /** The provider now, asking again when the last discovery failed long enough ago. */
    async current(): Promise<ProviderState> {
      if (attempt) return attempt;
      if (state.status === "unavailable" && clock.now() - lastAttempt >= DISCOVERY_RETRY_MS) return refresh();
      return state;
    },
    /** The state as last known, without waiting. */
    known: () => state,
  };
}

export type ProviderConnection = ReturnType<typeof createProviderConnection>;
