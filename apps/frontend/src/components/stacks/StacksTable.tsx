import { memo, type RefObject, useState } from "react";
import { cx } from "../../lib/cx.ts";
import { useCan } from "../../lib/permissions.ts";
import { useI18n, useT } from "../I18nProvider.tsx";
import { ChevronDownIcon } from "../icons.tsx";
import { IconButton } from "../ui/IconButton.tsx";
import { stackHref } from "../ui/StackLink.tsx";
import { Table, TableBody, TableContainer, TableHead, Td, Th, Tr } from "../ui/Table.tsx";
import { SelectStack } from "./bulk/BulkBar.tsx";
import { DeployButtons } from "./deploy.tsx";
import type { StackListProps, StackRowProps } from "./list-props.ts";
import { summarizeVulnerabilities } from "./model.ts";
import { ImageRef, ServicesSummary } from "./ServiceImage.tsx";
import { StackState } from "./StackState.tsx";
import { UpdateMarker } from "./UpdateMarker.tsx";
import { ImageVulnerabilities, StackVulnerabilities } from "./Vulnerabilities.tsx";

/**
 * Fixed column widths, so the table does not jump when a row starts deploying; the services column
 * takes what is left. In English the state column holds a live deploy's longest word with its timer
 * ("Pulling + redeploying 0:00"); in Spanish that word is cut, the timer still whole (LiveRunMark).
 * Spanish labels are longer, so its columns are wider (and the table with them).
 */
const LAYOUT = {
  en: { table: "min-w-[72rem]", state: "w-56", updates: "w-24", actions: "w-72" },
  es: { table: "min-w-[76rem]", state: "w-56", updates: "w-28", actions: "w-96" },
} as const;

/** The stacks as a dense table (wide screens): one 33 px row per stack, its services on demand. */
export function StacksTable({ rows, runs, selected, more, markerRef, ...rowProps }: StackListProps) {
  const { t, lang } = useI18n();
  const layout = LAYOUT[lang];
  const selectable = rowProps.onToggleSelect !== undefined;
  // A role that may not deploy has no buttons: no Actions column either.
  const withActions = useCan("deploy");
  return (
    <TableContainer className="max-h-[calc(100dvh-11.5rem)] min-h-64">
      <Table aria-label={t("stacks.table.label")} className={cx("table-fixed", layout.table)}>
        <colgroup>
          <col className={selectable ? "w-48" : "w-40"} />
          <col className={layout.state} />
          <col />
          <col className={layout.updates} />
          <col className="w-40" />
          {withActions && <col className={layout.actions} />}
        </colgroup>
        <TableHead>
          <tr>
            <Th className={selectable ? "pl-[4.75rem]" : "pl-11"}>{t("stacks.table.stack")}</Th>
            <Th>{t("stacks.table.state")}</Th>
            <Th>{t("stacks.table.services")}</Th>
            <Th>{t("stacks.table.updates")}</Th>
            <Th>{t("stacks.table.vulnerabilities")}</Th>
            {withActions && <Th className="text-right">{t("stacks.table.actions")}</Th>}
          </tr>
        </TableHead>
        <TableBody>
          {rows.map((row) => (
            <StackTableRow
              key={row.stack.id}
              row={row}
              run={runs.get(row.stack.name)}
              selected={selected.has(row.stack.name)}
              {...rowProps}
            />
          ))}
        </TableBody>
      </Table>
      {more && <div ref={markerRef as RefObject<HTMLDivElement | null>} className="h-px" />}
    </TableContainer>
  );
}

// Memoized: a deploy starting or a search keystroke re-renders only the rows whose data changed.
const StackTableRow = memo(function StackTableRow({
  row,
  run,
  scans,
  scansUnavailable,
  onAsk,
  selected,
  onToggleSelect,
}: StackRowProps) {
  const t = useT();
  const withActions = useCan("deploy");
  const [expanded, setExpanded] = useState(false);
  const { stack } = row;
  const services = stack.info.services;
  return (
    <>
      <Tr>
        <Td className="pl-1">
          <span className="flex min-w-0 items-center gap-1">
            {onToggleSelect && (
              <SelectStack stack={stack.name} selected={selected} onToggle={onToggleSelect} />
            )}
            {services.length > 0 ? (
              <IconButton
                size="sm"
                label={t(expanded ? "stacks.table.hideServices" : "stacks.table.showServices", {
                  stack: stack.name,
                })}
                aria-expanded={expanded}
                icon={
                  <ChevronDownIcon className={cx("size-4 transition-transform", !expanded && "-rotate-90")} />
                }
                onClick={() => setExpanded((open) => !open)}
              />
            ) : (
              <span className="size-7 shrink-0" />
            )}
            <a
              href={stackHref(stack.name)}
              className="truncate font-medium hover:underline"
              title={stack.name}
            >
              <bdi>{stack.name}</bdi>
            </a>
          </span>
        </Td>
        <Td className="overflow-hidden">
          <StackState state={row.state} run={run} lastDeploy={row.lastDeploy} compact />
        </Td>
        <Td className="overflow-hidden">
          <ServicesSummary stack={stack} />
        </Td>
        <Td className="overflow-hidden">
          <UpdateMarker count={row.updates} />
        </Td>
        <Td className="overflow-hidden">
          <StackVulnerabilities
            summary={summarizeVulnerabilities(stack.images, scans)}
            unavailable={scansUnavailable}
          />
        </Td>
        {withActions && (
          <Td>
            <DeployButtons stack={stack} onAsk={onAsk} busy={run !== undefined} />
          </Td>
        )}
      </Tr>
      {expanded &&
        services.map((service) => (
          <Tr key={service.service} className="bg-surface-muted/40">
            <Td
              className={cx("truncate text-xs text-fg-muted", onToggleSelect ? "pl-[4.75rem]" : "pl-11")}
              title={service.service}
            >
              <bdi>{service.service}</bdi>
            </Td>
            {/* The state cell of a service row is empty: its image may use that room too. */}
            <Td colSpan={2} className="overflow-hidden">
              <ImageRef service={service} stack={stack.name} />
            </Td>
            <Td>
              <UpdateMarker count={service.update_available ? 1 : 0} />
            </Td>
            <Td className="overflow-hidden">
              <ImageVulnerabilities scan={scans.get(service.image)} unavailable={scansUnavailable} />
            </Td>
            {withActions && <Td />}
          </Tr>
        ))}
    </>
  );
});
