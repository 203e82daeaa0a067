import { cx } from "../../lib/cx.ts";

export interface FilterChipOption<Value extends string> {
  value: Value;
  label: string;
  /** Shown beside the label, e.g. how many rows the filter keeps. */
  count?: number;
}

export interface FilterChipsProps<Value extends string> {
  /** Names the group for screen readers, e.g. "Filter stacks". */
  label: string;
  options: readonly FilterChipOption<Value>[];
  value: Value;
  onChange: (value: Value) => void;
  className?: string;
}

/** A row of toggle buttons of which exactly one is on: list filters, snippet variants. */
export function FilterChips<Value extends string>({
  label,
  options,
  value,
  onChange,
  className,
}: FilterChipsProps<Value>) {
  return (
    <fieldset className={cx("m-0 flex min-w-0 flex-wrap items-center gap-1.5 border-0 p-0", className)}>
      <legend className="sr-only">{label}</legend>
      {options.map((option) => {
        const pressed = option.value === value;
        return (
          <button
            key={option.value}
            type="button"
            aria-pressed={pressed}
            onClick={() => onChange(option.value)}
            className={cx(
              "inline-flex h-7 items-center gap-1.5 whitespace-nowrap rounded-full border px-2.5 text-xs font-medium transition-colors",
              pressed
                ? "border-primary bg-primary text-on-primary"
                : "border-line bg-surface text-fg hover:bg-surface-muted",
            )}
          >
            {option.label}
            {/* A space for the accessible name ("Running 14"); flex layout drops it visually. */}
            {option.count !== undefined && " "}
            {option.count !== undefined && (
              <span className={cx("tabular-nums", pressed ? "opacity-80" : "text-fg-muted")}>
                {option.count}
              </span>
            )}
          </button>
        );
      })}
    </fieldset>
  );
}
