import type { DeployAction } from "./model.ts";

/** Never a real key: pipelines keep theirs in a secret of this name. */
export const API_KEY_PLACEHOLDER = "$STACKGATE_API_KEY";

/**
 * The deploy request as a pipeline sends it. The answer comes once Komodo has finished, so curl waits;
 * --fail-with-body makes a failed deploy fail the job and print Komodo's reason.
 */
export function curlCommand(origin: string, stack: string, action: DeployAction): string {
  const body = JSON.stringify({ stack, action });
  return [
    `curl --fail-with-body -sS -X POST "${origin}/api/v0/deploy" \\`,
    `  -H "x-api-key: ${API_KEY_PLACEHOLDER}" \\`,
    `  -H "content-type: application/json" \\`,
    `  -d '${body}'`,
  ].join("\n");
}

export function githubActionsStep(
  origin: string,
  stack: string,
  action: DeployAction,
  stepName: string,
): string {
  const command = curlCommand(origin, stack, action)
    .split("\n")
    .map((line) => `    ${line}`)
    .join("\n");
  return [
    `- name: ${stepName}`,
    "  env:",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: GitHub Actions' expression syntax, meant literally
    "    STACKGATE_API_KEY: ${{ secrets.STACKGATE_API_KEY }}",
    "  run: |",
    command,
  ].join("\n");
}
