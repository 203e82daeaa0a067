import { useT } from "../I18nProvider.tsx";
import { useLiveRuns } from "../stacks/live-deploys.ts";
import { LiveRunMark } from "../stacks/StackState.tsx";
import { Card } from "../ui/Card.tsx";
import { stackHref } from "../ui/StackLink.tsx";

/** Deploys in progress right now, from anyone (people and pipelines), live. */
export function DeployingNow({ userName, className }: { userName: string; className?: string }) {
  const t = useT();
  const runs = [...useLiveRuns(userName).values()];
  return (
    <Card title={t("overview.live.title")} flush className={className}>
      {runs.length === 0 ? (
        <p className="px-4 py-3 text-sm text-fg-muted">{t("overview.live.none")}</p>
      ) : (
        <ul className="divide-y divide-line">
          {runs.map((run) => (
            <li key={run.stack} className="flex items-center justify-between gap-3 px-4 py-2">
              <a href={stackHref(run.stack)} className="truncate font-medium hover:underline">
                <bdi>{run.stack}</bdi>
              </a>
              <span className="min-w-0">
                <LiveRunMark run={run} />
              </span>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}
