import { type ComponentProps, type ReactNode, useId } from "react";
import { cx } from "../../lib/cx.ts";

/** The look of text inputs and selects, in forms and filter bars alike. */
export const inputClasses =
  "h-9 w-full min-w-0 rounded-md border border-control bg-surface px-3 text-sm text-fg placeholder:text-fg-muted aria-invalid:border-danger disabled:opacity-60";

interface FieldFrameProps {
  id: string;
  label: ReactNode;
  /** Help under the control: the format, or what happens to the value. */
  hint?: ReactNode;
  /** A problem with the value; marks the control invalid and is read with it. */
  error?: ReactNode;
  className?: string;
  children: ReactNode;
}

function FieldFrame({ id, label, hint, error, className, children }: FieldFrameProps) {
  return (
    <div className={cx("flex min-w-0 flex-col gap-1.5", className)}>
      <label htmlFor={id} className="text-sm font-medium">
        {label}
      </label>
      {children}
      {hint && (
        <p id={`${id}-hint`} className="text-xs text-fg-muted">
          {hint}
        </p>
      )}
      {error && (
        <p id={`${id}-error`} className="text-xs font-medium text-danger-text">
          {error}
        </p>
      )}
    </div>
  );
}

function describedBy(id: string, hint: ReactNode, error: ReactNode): string | undefined {
  return cx(hint ? `${id}-hint` : null, error ? `${id}-error` : null) || undefined;
}

export interface TextFieldProps extends Omit<ComponentProps<"input">, "id"> {
  label: ReactNode;
  hint?: ReactNode;
  error?: ReactNode;
  /** Classes of the field as a whole (label, input and hint). */
  className?: string;
  /** Classes of the input alone, e.g. font-mono for addresses and keys. */
  inputClassName?: string;
}

/** A labelled text input with an optional hint and error, all tied to it for screen readers. */
export function TextField({ label, hint, error, className, inputClassName, ...props }: TextFieldProps) {
  const id = useId();
  return (
    <FieldFrame id={id} label={label} hint={hint} error={error} className={className}>
      <input
        id={id}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(id, hint, error)}
        className={cx(inputClasses, inputClassName)}
        {...props}
      />
    </FieldFrame>
  );
}

export interface SelectFieldProps extends Omit<ComponentProps<"select">, "id"> {
  label: ReactNode;
  hint?: ReactNode;
  className?: string;
}

export function SelectField({ label, hint, className, children, ...props }: SelectFieldProps) {
  const id = useId();
  return (
    <FieldFrame id={id} label={label} hint={hint} className={className}>
      <select
        id={id}
        aria-describedby={describedBy(id, hint, null)}
        className={cx(inputClasses, "pr-8")}
        {...props}
      >
        {children}
      </select>
    </FieldFrame>
  );
}
