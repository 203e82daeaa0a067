import { type Ref, useId } from "react";
import { cx } from "../../lib/cx.ts";

export interface SearchFieldProps {
  /** The accessible name, e.g. "Search stacks". */
  label: string;
  value: string;
  onChange: (value: string) => void;
  placeholder?: string;
  /** A keyboard shortcut shown inside the field, e.g. "/". */
  shortcut?: string;
  ref?: Ref<HTMLInputElement>;
  className?: string;
}

/** A search box for filtering a list as you type; Escape clears it. */
export function SearchField({
  label,
  value,
  onChange,
  placeholder,
  shortcut,
  ref,
  className,
}: SearchFieldProps) {
  const id = useId();
  return (
    <div className={cx("relative", className)}>
      <label htmlFor={id} className="sr-only">
        {label}
      </label>
      <svg
        viewBox="0 0 24 24"
        fill="none"
        stroke="currentColor"
        strokeWidth={2}
        aria-hidden="true"
        className="pointer-events-none absolute left-2.5 top-1/2 size-4 -translate-y-1/2 text-fg-muted"
      >
        <circle cx="11" cy="11" r="7" />
        <path d="m20 20-4-4" strokeLinecap="round" />
      </svg>
      <input
        ref={ref}
        id={id}
        type="search"
        autoComplete="off"
        spellCheck={false}
        value={value}
        placeholder={placeholder}
        onChange={(event) => onChange(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === "Escape" && value) {
            event.preventDefault();
            onChange("");
          }
        }}
        className="h-8 w-full rounded-md border border-control/60 bg-surface pl-8 pr-8 text-sm text-fg placeholder:text-fg-muted"
      />
      {shortcut && !value && (
        <span
          aria-hidden="true"
          className="pointer-events-none absolute right-2 top-1/2 hidden -translate-y-1/2 sm:block"
        >
          <kbd className="rounded border border-line px-1.5 font-mono text-[0.6875rem] text-fg-muted">
            {shortcut}
          </kbd>
        </span>
      )}
    </div>
  );
}
