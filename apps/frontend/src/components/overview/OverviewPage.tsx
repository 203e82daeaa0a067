import { type InitialStacks, prefetchInBrowser, useRefreshOnDeployEvents } from "../../lib/queries.ts";
import { AppProviders, type IslandProps } from "../AppProviders.tsx";
import { useToastOtherDeploys } from "../stacks/live-deploys.ts";
import { CriticalImages } from "./CriticalImages.tsx";
import { DeployingNow } from "./DeployingNow.tsx";
import { DeploysCard } from "./DeploysCard.tsx";
import { RecentFailures } from "./RecentFailures.tsx";
import { StackCounters } from "./StackCounters.tsx";

prefetchInBrowser("history", "historyOverview", "scans");

export interface OverviewPageProps extends IslandProps {
  userName: string;
  initialStacks: InitialStacks | null;
}

/**
 * The overview (an island): stack counters, 30 days of deploys, recent failures, critical images and
 * live deploys. Each block loads and fails on its own: without Komodo the history still shows.
 */
export function OverviewPage({ lang, role, ...props }: OverviewPageProps) {
  return (
    <AppProviders lang={lang} role={role}>
      <Overview {...props} />
    </AppProviders>
  );
}

function Overview({ userName, initialStacks }: Omit<OverviewPageProps, keyof IslandProps>) {
  useRefreshOnDeployEvents();
  useToastOtherDeploys(userName);
  return (
    <div className="flex flex-col gap-4">
      <StackCounters initialStacks={initialStacks} />
      <div className="grid items-start gap-4 lg:grid-cols-3">
        <div className="flex min-w-0 flex-col gap-4 lg:col-span-2">
          <DeploysCard />
          <CriticalImages />
        </div>
        <div className="flex min-w-0 flex-col gap-4">
          <DeployingNow userName={userName} />
          <RecentFailures />
        </div>
      </div>
    </div>
  );
}
