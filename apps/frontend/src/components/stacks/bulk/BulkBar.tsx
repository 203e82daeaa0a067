import { useEffect, useId, useRef } from "react";
import { useCan } from "../../../lib/permissions.ts";
import { useT } from "../../I18nProvider.tsx";
import { Button } from "../../ui/Button.tsx";
import { BULK_ACTIONS, type BulkAction, permissionFor } from "./bulk-model.ts";

export interface BulkBarProps {
  /** The stacks the search and filter show now, in list order. */
  shown: readonly string[];
  selected: ReadonlySet<string>;
  onSelectShown: (select: boolean) => void;
  onClear: () => void;
  onAction: (action: BulkAction) => void;
  /** With the "Update available" filter on: how many shown stacks have an update (Update all). */
  updatable: number | null;
  onUpdateAll: () => void;
  /** A bulk run is under way: a second one waits for it. */
  running: boolean;
}

/**
 * Above the stack list: "select all shown" (following the search and the filter chips), the count, and
 * the actions on the selection that this person's role allows.
 */
export function BulkBar({
  shown,
  selected,
  onSelectShown,
  onClear,
  onAction,
  updatable,
  onUpdateAll,
  running,
}: BulkBarProps) {
  const t = useT();
  const canDeploy = useCan("deploy");
  const canAdmin = useCan("admin");
  const allowed = BULK_ACTIONS.filter((action) =>
    permissionFor(action) === "deploy" ? canDeploy : canAdmin,
  );
  const checkboxRef = useRef<HTMLInputElement>(null);
  const checkboxId = useId();
  const shownSelected = shown.filter((name) => selected.has(name)).length;
  const allShown = shown.length > 0 && shownSelected === shown.length;
  useEffect(() => {
    if (checkboxRef.current) checkboxRef.current.indeterminate = shownSelected > 0 && !allShown;
  }, [shownSelected, allShown]);

  if (allowed.length === 0) return null;
  const hiddenSelected = selected.size - shownSelected;
  const disabledTitle = running ? t("bulk.busy") : undefined;
  return (
    <section
      aria-label={t("bulk.label")}
      className="flex flex-wrap items-center gap-x-3 gap-y-2 rounded-md border border-line bg-surface px-3 py-2"
    >
      <span className="flex items-center gap-2">
        <input
          ref={checkboxRef}
          id={checkboxId}
          type="checkbox"
          checked={allShown}
          disabled={shown.length === 0}
          onChange={(event) => onSelectShown(event.target.checked)}
          className="size-4 accent-primary"
        />
        <label htmlFor={checkboxId} className="text-sm">
          {t("bulk.selectShown", { count: shown.length })}
        </label>
      </span>
      <span role="status" className="text-sm font-medium tabular-nums">
        {selected.size === 0
          ? t("bulk.noneSelected")
          : hiddenSelected > 0
            ? t("bulk.selectedSomeHidden", { count: selected.size, hidden: hiddenSelected })
            : t("bulk.selected", { count: selected.size })}
      </span>
      {selected.size > 0 && (
        <span className="flex flex-wrap items-center gap-1.5">
          {allowed.map((action) => (
            <Button
              key={action}
              size="sm"
              variant={action === "delete" ? "danger" : "secondary"}
              aria-disabled={running || undefined}
              className="aria-disabled:opacity-50"
              title={disabledTitle}
              onClick={() => {
                if (!running) onAction(action);
              }}
            >
              {t(`bulk.action.${action}`)}
            </Button>
          ))}
          <Button size="sm" variant="ghost" onClick={onClear}>
            {t("bulk.clear")}
          </Button>
        </span>
      )}
      {updatable !== null && canDeploy && (
        <Button
          size="sm"
          variant="primary"
          className="aria-disabled:opacity-50 sm:ml-auto"
          aria-disabled={running || updatable === 0 || undefined}
          title={disabledTitle}
          onClick={() => {
            if (!running && updatable > 0) onUpdateAll();
          }}
        >
          {t("bulk.updateAll", { count: updatable })}
        </Button>
      )}
    </section>
  );
}

/** The checkbox that selects one stack, in a table row or a compact list item. */
export function SelectStack({
  stack,
  selected,
  onToggle,
}: {
  stack: string;
  selected: boolean;
  onToggle: (stack: string) => void;
}) {
  const t = useT();
  return (
    <input
      type="checkbox"
      checked={selected}
      onChange={() => onToggle(stack)}
      aria-label={t("bulk.selectStack", { stack })}
      className="size-4 shrink-0 accent-primary"
    />
  );
}
