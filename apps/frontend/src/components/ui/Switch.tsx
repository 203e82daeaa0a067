import { useId } from "react";
import { cx } from "../../lib/cx.ts";

export interface SwitchProps {
  checked: boolean;
  onChange: (checked: boolean) => void;
  /** The visible label, also the switch's accessible name. */
  label: string;
  /** One line under the label saying what on and off mean. */
  description?: string;
  disabled?: boolean;
  /** A change is on its way: clicks are ignored, and focus stays on the switch (unlike `disabled`). */
  busy?: boolean;
}

/**
 * An on/off setting (a labelled role="switch" button), taking effect when its form is saved or, with
 * `busy` while it is sent, at once.
 */
export function Switch({ checked, onChange, label, description, disabled, busy = false }: SwitchProps) {
  const id = useId();
  const descriptionId = useId();
  return (
    <div className="flex items-start gap-3">
      <button
        type="button"
        role="switch"
        aria-checked={checked}
        id={id}
        aria-describedby={description ? descriptionId : undefined}
        disabled={disabled}
        aria-disabled={busy || undefined}
        aria-busy={busy || undefined}
        onClick={() => {
          if (!busy) onChange(!checked);
        }}
        className={cx(
          "relative mt-0.5 inline-flex h-5 w-9 shrink-0 items-center rounded-full border transition-colors disabled:opacity-50 aria-busy:cursor-progress aria-busy:opacity-70",
          checked ? "border-success bg-success" : "border-control bg-surface-muted",
        )}
      >
        <span
          aria-hidden="true"
          className={cx(
            "inline-block size-3.5 rounded-full shadow transition-transform",
            checked ? "translate-x-4 bg-white" : "translate-x-0.5 bg-control",
          )}
        />
      </button>
      <div className="min-w-0">
        {/* A button is labelable: the label names the switch, and clicking the words flips it. */}
        <label htmlFor={id} className="cursor-pointer text-sm font-medium">
          {label}
        </label>
        {description && (
          <p id={descriptionId} className="text-xs text-fg-muted">
            {description}
          </p>
        )}
      </div>
    </div>
  );
}
