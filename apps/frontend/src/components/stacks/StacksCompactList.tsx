import { memo, type RefObject } from "react";
import { useT } from "../I18nProvider.tsx";
import { stackHref } from "../ui/StackLink.tsx";
import { SelectStack } from "./bulk/BulkBar.tsx";
import { DeployButtons } from "./deploy.tsx";
import type { StackListProps, StackRowProps } from "./list-props.ts";
import { summarizeVulnerabilities } from "./model.ts";
import { ServicesSummary } from "./ServiceImage.tsx";
import { StackState } from "./StackState.tsx";
import { UpdateMarker } from "./UpdateMarker.tsx";
import { StackVulnerabilities } from "./Vulnerabilities.tsx";

/** The stacks on narrow screens: one compact block per stack; the detail page has the rest. */
export function StacksCompactList({ rows, runs, selected, more, markerRef, ...rowProps }: StackListProps) {
  const t = useT();
  return (
    <div>
      <ul
        aria-label={t("stacks.table.label")}
        className="overflow-hidden rounded-lg border border-line bg-surface"
      >
        {rows.map((row) => (
          <CompactStack
            key={row.stack.id}
            row={row}
            run={runs.get(row.stack.name)}
            selected={selected.has(row.stack.name)}
            {...rowProps}
          />
        ))}
      </ul>
      {more && <div ref={markerRef as RefObject<HTMLDivElement | null>} className="h-px" />}
    </div>
  );
}

const CompactStack = memo(function CompactStack({
  row,
  run,
  scans,
  scansUnavailable,
  onAsk,
  selected,
  onToggleSelect,
}: StackRowProps) {
  const { stack } = row;
  return (
    <li className="flex flex-col gap-1.5 border-b border-line px-3 py-2.5 last:border-b-0">
      <div className="flex min-w-0 items-center justify-between gap-3">
        <span className="flex min-w-0 items-center gap-1">
          {onToggleSelect && (
            <span className="-my-1 -ml-1.5 flex">
              <SelectStack stack={stack.name} selected={selected} onToggle={onToggleSelect} />
            </span>
          )}
          <a href={stackHref(stack.name)} className="truncate font-medium hover:underline">
            <bdi>{stack.name}</bdi>
          </a>
        </span>
        <span className="flex min-w-0 max-w-[70%] justify-end overflow-hidden">
          <StackState state={row.state} run={run} lastDeploy={row.lastDeploy} compact />
        </span>
      </div>
      <ServicesSummary stack={stack} />
      <div className="flex flex-wrap items-center gap-1.5 empty:hidden">
        <UpdateMarker count={row.updates} />
        <StackVulnerabilities
          summary={summarizeVulnerabilities(stack.images, scans)}
          unavailable={scansUnavailable}
        />
      </div>
      <DeployButtons
        stack={stack}
        onAsk={onAsk}
        busy={run !== undefined}
        className="flex flex-wrap items-center gap-1.5"
      />
    </li>
  );
});
