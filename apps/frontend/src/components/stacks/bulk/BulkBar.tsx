import { type RefObject, useEffect, useRef } from "react";
import { cx } from "../../../lib/cx.ts";
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
  /** The bar itself, where the keyboard goes back when the run's panel closes. */
  barRef: RefObject<HTMLElement | null>;
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
  barRef,
}: BulkBarProps) {
  const t = useT();
  const canDeploy = useCan("deploy");
  const canAdmin = useCan("admin");
  const allowed = BULK_ACTIONS.filter((action) =>
    permissionFor(action) === "deploy" ? canDeploy : canAdmin,
  );
  const checkboxRef = useRef<HTMLInputElement>(null);
  const shownSelected = shown.filter((name) => selected.has(name)).length;
  const allShown = shown.length > 0 && shownSelected === shown.length;
  useEffect(() => {
    if (checkboxRef.current) checkboxRef.current.indeterminate = shownSelected > 0 && !allShown;
  }, [shownSelected, allShown]);
  const sticky = selected.size > 0;
  useStickyScrollPadding(barRef, sticky);

  if (allowed.length === 0) return null;
  const hiddenSelected = selected.size - shownSelected;
  const disabledTitle = running ? t("bulk.busy") : undefined;
  return (
    <section
      ref={barRef}
      tabIndex={-1}
      aria-label={t("bulk.label")}
      className={cx(
        "flex flex-wrap items-center gap-x-3 gap-y-2 rounded-md border border-line bg-surface px-3 py-2 outline-none",
        // With stacks chosen, it stays in reach below the header while the list scrolls (a phone's list is long).
        sticky && "sticky top-[3.0625rem] z-30 shadow-sm",
      )}
    >
      <label className="flex min-h-6 cursor-pointer items-center gap-2 text-sm">
        <input
          ref={checkboxRef}
          type="checkbox"
          checked={allShown}
          disabled={shown.length === 0}
          onChange={(event) => onSelectShown(event.target.checked)}
          className="size-4 accent-primary"
        />
        {t("bulk.selectShown", { count: shown.length })}
      </label>
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

/**
 * The checkbox that selects one stack, in a table row or a compact list item: a 16 px box in a 28 px
 * target (WCAG 2.2 asks at least 24 × 24), the whole of which toggles it.
 */
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
    <label className="flex size-7 shrink-0 cursor-pointer items-center justify-center rounded-md hover:bg-surface-muted">
      <input
        type="checkbox"
        checked={selected}
        onChange={() => onToggle(stack)}
        aria-label={t("bulk.selectStack", { stack })}
        className="size-4 accent-primary"
      />
    </label>
  );
}

/**
 * While the bar sticks to the top, whatever gets focus or is scrolled to must stop below it too, not
 * under it: the page's scroll padding grows by the bar's height (global.css reads the variable).
 */
function useStickyScrollPadding(barRef: RefObject<HTMLElement | null>, sticky: boolean) {
  useEffect(() => {
    const bar = barRef.current;
    if (!sticky || !bar) return;
    const root = document.documentElement;
    const measure = () => root.style.setProperty("--sg-sticky-bar", `${bar.offsetHeight}px`);
    measure();
    const resizes = new ResizeObserver(measure);
    resizes.observe(bar);
    return () => {
      resizes.disconnect();
      root.style.removeProperty("--sg-sticky-bar");
    };
  }, [barRef, sticky]);
}
