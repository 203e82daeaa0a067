import { useEffect, useRef } from "react";
import { useRunningDeploys } from "../../lib/deploy-events.ts";
import { useT } from "../I18nProvider.tsx";
import { StatusMark } from "../ui/Badge.tsx";
import { FilterChips } from "../ui/FilterChips.tsx";
import { SearchField } from "../ui/SearchField.tsx";
import { Spinner } from "../ui/Spinner.tsx";
import { STACK_FILTERS, type StackFilter } from "./model.ts";

export interface StacksToolbarProps {
  search: string;
  onSearch: (search: string) => void;
  filter: StackFilter;
  onFilter: (filter: StackFilter) => void;
  /** Per filter, among the stacks the search keeps; undefined while the list loads. */
  counts: Record<StackFilter, number> | undefined;
  /** A background refresh is running: a quiet spinner, never in the way. */
  refreshing: boolean;
}

/** "/" focuses the search from anywhere on the page, as in most list-heavy tools. */
function useSlashToSearch() {
  const inputRef = useRef<HTMLInputElement>(null);
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey) return;
      const target = event.target as HTMLElement | null;
      if (target?.closest("input, textarea, select, [contenteditable='true'], dialog")) return;
      event.preventDefault();
      inputRef.current?.focus();
    };
    document.addEventListener("keydown", onKeyDown);
    return () => document.removeEventListener("keydown", onKeyDown);
  }, []);
  return inputRef;
}

/** Whether the live deploy events are flowing: deploys from anyone show up without a reload. */
function LiveStatus() {
  const t = useT();
  const { connected } = useRunningDeploys();
  return (
    <span
      className="text-xs"
      title={connected ? t("stacks.live.connectedHint") : t("stacks.live.reconnectingHint")}
    >
      <StatusMark
        tone={connected ? "success" : "neutral"}
        label={connected ? t("stacks.live.connected") : t("stacks.live.reconnecting")}
        live={connected}
      />
    </span>
  );
}

export function StacksToolbar({
  search,
  onSearch,
  filter,
  onFilter,
  counts,
  refreshing,
}: StacksToolbarProps) {
  const t = useT();
  const searchRef = useSlashToSearch();
  return (
    <div className="flex flex-wrap items-center gap-x-3 gap-y-2">
      <SearchField
        ref={searchRef}
        label={t("stacks.search.label")}
        placeholder={t("stacks.search.placeholder")}
        shortcut="/"
        value={search}
        onChange={onSearch}
        className="w-full sm:w-72"
      />
      <FilterChips
        label={t("stacks.filter.label")}
        value={filter}
        onChange={onFilter}
        options={STACK_FILTERS.map((value) => ({
          value,
          label: t(`stacks.filter.${value}`),
          count: counts?.[value],
        }))}
      />
      <div className="ml-auto flex items-center gap-3">
        {refreshing && <Spinner label={t("stacks.refreshing")} className="size-3.5 text-fg-muted" />}
        <LiveStatus />
      </div>
    </div>
  );
}
