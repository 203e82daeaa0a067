import { createHash, randomUUID } from "node:crypto";
import { CliError, EXIT, printable } from "./exit.ts";

/** Where a deploy's Idempotency-Key came from: it decides what a repeat of the command does. */
export type KeySource =
  | "--idempotency-key"
  | "STACKGATE_IDEMPOTENCY_KEY"
  | "github"
  | "gitlab"
  | "invocation";

export interface IdempotencyKey {
  key: string;
  source: KeySource;
}

/** What the API takes: 1 to 255 visible ASCII characters. */
const VALID = /^[\x21-\x7e]{1,255}$/;

const digest = (parts: string[]) =>
  createHash("sha256").update(JSON.stringify(parts)).digest("hex").slice(0, 32);

/**
 * The Idempotency-Key of one deploy. In CI it comes from the pipeline's identity, not the attempt:
 * a re-run of the same job (same workflow run or pipeline, same job, stack and action) sends the
 * same key, so Stackgate answers the run the first attempt started (or starts a new one if that
 * failed) instead of deploying again. `--new-run` makes a new key: it deploys again on purpose.
 */
export function idempotencyKeyOf({
  flag,
  newRun,
  env,
  stack,
  action,
}: {
  flag: string | undefined;
  newRun: boolean;
  env: Record<string, string | undefined>;
  stack: string;
  action: string;
}): IdempotencyKey {
  if (flag !== undefined && newRun)
    throw new CliError("--new-run and --idempotency-key contradict each other: give one", EXIT.usage);
  if (newRun) return { key: `stackgate-${randomUUID()}`, source: "invocation" };
  const given =
    flag !== undefined
      ? { key: flag, source: "--idempotency-key" as const }
      : env.STACKGATE_IDEMPOTENCY_KEY
        ? { key: env.STACKGATE_IDEMPOTENCY_KEY, source: "STACKGATE_IDEMPOTENCY_KEY" as const }
        : undefined;
  if (given) {
    if (!VALID.test(given.key))
      throw new CliError(
        `${given.source} must be 1 to 255 visible ASCII characters, without spaces (got '${printable(given.key).slice(0, 60)}')`,
        EXIT.usage,
      );
    return given;
  }
  const { GITHUB_ACTIONS, GITHUB_REPOSITORY, GITHUB_RUN_ID, GITHUB_JOB } = env;
  if (GITHUB_ACTIONS === "true" && GITHUB_REPOSITORY && GITHUB_RUN_ID && GITHUB_JOB)
    return {
      key: `github-${digest([GITHUB_REPOSITORY, GITHUB_RUN_ID, GITHUB_JOB, stack, action])}`,
      source: "github",
    };
  const { GITLAB_CI, CI_PROJECT_PATH, CI_PIPELINE_ID, CI_JOB_NAME } = env;
  if (GITLAB_CI === "true" && CI_PROJECT_PATH && CI_PIPELINE_ID && CI_JOB_NAME)
    return {
      key: `gitlab-${digest([CI_PROJECT_PATH, CI_PIPELINE_ID, CI_JOB_NAME, stack, action])}`,
      source: "gitlab",
    };
  return { key: `stackgate-${randomUUID()}`, source: "invocation" };
}
