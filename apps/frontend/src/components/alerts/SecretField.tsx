import { type ReactNode, useId } from "react";
import { useT } from "../I18nProvider.tsx";
import { SavedSecretsBadge } from "../settings/SavedSecretsBadge.tsx";
import { Button, inputClasses, TextField } from "../ui/index.ts";

/** What becomes of a write-only value on save: kept (omitted), replaced with what was typed, or removed (null). */
export type SecretChoice = { kind: "keep" } | { kind: "replace"; value: string } | { kind: "remove" };

interface SecretFieldProps {
  label: string;
  hint: ReactNode;
  /** Whether the server holds a value (it never sends it back). */
  saved: boolean;
  /** How the saved value is named ("Saved", "Saved, for hooks.slack.com"); it is never shown. */
  savedLabel: string;
  choice: SecretChoice;
  onChange: (choice: SecretChoice) => void;
  required?: boolean;
  /** Several lines (Apprise URLs, headers). */
  multiline?: boolean;
  /** Whether a saved value may be removed (an optional secret). */
  removable?: boolean;
  /** A control beside the input that fills it (Generate). */
  extra?: ReactNode;
}

/**
 * A write-only setting: a saved value is only ever named, and can be replaced (or, when optional,
 * removed); what is typed goes to the server once and never comes back.
 */
export function SecretField({
  label,
  hint,
  saved,
  savedLabel,
  choice,
  onChange,
  required,
  multiline,
  removable,
  extra,
}: SecretFieldProps) {
  const t = useT();
  if (choice.kind === "replace" || !saved) {
    const value = choice.kind === "replace" ? choice.value : "";
    const set = (next: string) => onChange({ kind: "replace", value: next });
    return (
      <div className="flex min-w-0 flex-col gap-2">
        {multiline ? (
          <MultilineField
            label={label}
            hint={hint}
            value={value}
            onChange={set}
            required={required && !saved}
          />
        ) : (
          <TextField
            label={label}
            hint={hint}
            type="password"
            value={value}
            onChange={(event) => set(event.target.value)}
            required={required && !saved}
            autoComplete="off"
            spellCheck={false}
            inputClassName="font-mono"
          />
        )}
        {(extra || saved) && (
          <div className="flex flex-wrap gap-2">
            {extra}
            {saved && (
              <Button size="sm" variant="ghost" onClick={() => onChange({ kind: "keep" })}>
                {t("alerts.secret.keep")}
              </Button>
            )}
          </div>
        )}
      </div>
    );
  }
  return (
    <fieldset className="flex min-w-0 flex-col gap-1.5">
      <legend className="mb-1.5 text-sm font-medium">{label}</legend>
      <div className="flex min-h-9 flex-wrap items-center gap-2">
        {choice.kind === "keep" ? (
          <>
            <SavedSecretsBadge label={savedLabel} />
            <Button
              size="sm"
              aria-label={t("alerts.secret.replaceOf", { field: label })}
              onClick={() => onChange({ kind: "replace", value: "" })}
            >
              {t("alerts.secret.replace")}
            </Button>
            {removable && (
              <Button
                size="sm"
                variant="ghost"
                aria-label={t("alerts.secret.removeOf", { field: label })}
                onClick={() => onChange({ kind: "remove" })}
              >
                {t("alerts.secret.remove")}
              </Button>
            )}
          </>
        ) : (
          <>
            <span className="text-sm text-warning-text">{t("alerts.secret.willBeRemoved")}</span>
            <Button size="sm" variant="ghost" onClick={() => onChange({ kind: "keep" })}>
              {t("alerts.secret.undo")}
            </Button>
          </>
        )}
      </div>
    </fieldset>
  );
}

/** A labelled text area, tied to its hint, for values over several lines. */
export function MultilineField({
  label,
  hint,
  value,
  onChange,
  required,
}: {
  label: string;
  hint: ReactNode;
  value: string;
  onChange: (value: string) => void;
  required?: boolean;
}) {
  const id = useId();
  return (
    <div className="flex min-w-0 flex-col gap-1.5">
      <label htmlFor={id} className="text-sm font-medium">
        {label}
      </label>
      <textarea
        id={id}
        aria-describedby={`${id}-hint`}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        required={required}
        rows={3}
        autoComplete="off"
        spellCheck={false}
        className={`${inputClasses} h-auto py-2 font-mono`}
      />
      <p id={`${id}-hint`} className="text-xs text-fg-muted">
        {hint}
      </p>
    </div>
  );
}
