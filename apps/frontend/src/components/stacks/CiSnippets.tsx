import { useState, useSyncExternalStore } from "react";
import { useCan } from "../../lib/permissions.ts";
import { useT } from "../I18nProvider.tsx";
import { Card } from "../ui/Card.tsx";
import { CodeBlock } from "../ui/CodeBlock.tsx";
import { FilterChips } from "../ui/FilterChips.tsx";
import { API_KEY_PLACEHOLDER, curlCommand, githubActionsStep } from "./ci-snippets.ts";
import { DEPLOY_ACTIONS, type DeployAction } from "./model.ts";

const subscribeToNothing = () => () => {};
/** Shown by the server render only: the real origin replaces it as soon as the island hydrates. */
const ORIGIN_PLACEHOLDER = "https://stackgate.example.com";

/** The address people reach this dashboard at: the one pipelines should call too. */
function useOrigin(): string {
  return useSyncExternalStore(
    subscribeToNothing,
    () => window.location.origin,
    () => ORIGIN_PLACEHOLDER,
  );
}

/** Ready-to-paste deploy requests for pipelines: curl and a GitHub Actions step, per action. */
export function CiSnippets({ stack }: { stack: string }) {
  const t = useT();
  const origin = useOrigin();
  const [action, setAction] = useState<DeployAction>("pull-redeploy");
  const canDeploy = useCan("deploy");
  const stepName = t(`stacks.ci.stepName.${action}`, { stack });
  // The snippets deploy with the reader's own API key, which cannot deploy when they cannot.
  if (!canDeploy) return null;
  return (
    <Card
      title={t("stacks.ci.title")}
      description={t("stacks.ci.description", { placeholder: API_KEY_PLACEHOLDER })}
    >
      <div className="flex flex-col gap-3">
        <FilterChips
          label={t("stacks.ci.actionLabel")}
          value={action}
          onChange={setAction}
          options={DEPLOY_ACTIONS.map((value) => ({ value, label: t(`stacks.action.${value}`) }))}
        />
        <CodeBlock
          title="curl"
          copyLabel={t("stacks.ci.copyCurl")}
          code={curlCommand(origin, stack, action)}
        />
        <CodeBlock
          title={t("stacks.ci.githubActions")}
          copyLabel={t("stacks.ci.copyGithub")}
          code={githubActionsStep(origin, stack, action, stepName)}
        />
        <p className="text-xs text-fg-muted">
          {t("stacks.ci.keyHint")}{" "}
          <a href="/settings" className="font-medium text-fg underline underline-offset-2">
            {t("stacks.ci.keyLink")}
          </a>
        </p>
      </div>
    </Card>
  );
}
