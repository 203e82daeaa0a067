import { useT } from "../I18nProvider.tsx";
import { Button, TextField } from "../ui/index.ts";
import { SavedSecretsBadge } from "./SavedSecretsBadge.tsx";

/** What to do with the ntfy token on save: the API keeps it when `token` is omitted, removes it on null. */
export type TokenChoice = { kind: "keep" } | { kind: "replace"; value: string } | { kind: "remove" };

/** The `token` field of a save: omitted (keep), null (remove) or the new value. */
export function tokenForSave(choice: TokenChoice): string | null | undefined {
  if (choice.kind === "remove") return null;
  if (choice.kind === "replace" && choice.value !== "") return choice.value;
  return undefined;
}

interface NotifyTokenFieldProps {
  /** Whether the server holds a token (it is never sent back). */
  tokenSet: boolean;
  choice: TokenChoice;
  onChange: (choice: TokenChoice) => void;
}

/** The write-only token: a saved one is only ever named, and can be replaced or removed. */
export function NotifyTokenField({ tokenSet, choice, onChange }: NotifyTokenFieldProps) {
  const t = useT();

  if (choice.kind === "replace" || !tokenSet) {
    const value = choice.kind === "replace" ? choice.value : "";
    return (
      <div className="flex flex-col gap-2">
        <TextField
          label={t("settings.notify.token")}
          hint={tokenSet ? t("settings.notify.tokenReplaceHint") : t("settings.notify.tokenHint")}
          type="password"
          value={value}
          onChange={(event) => onChange({ kind: "replace", value: event.target.value })}
          autoComplete="off"
          spellCheck={false}
          inputClassName="font-mono"
        />
        {tokenSet && (
          <Button size="sm" variant="ghost" className="self-start" onClick={() => onChange({ kind: "keep" })}>
            {t("settings.notify.tokenKeep")}
          </Button>
        )}
      </div>
    );
  }

  return (
    <fieldset className="flex min-w-0 flex-col gap-1.5">
      <legend className="mb-1.5 text-sm font-medium">{t("settings.notify.token")}</legend>
      <div className="flex min-h-9 flex-wrap items-center gap-2">
        {choice.kind === "keep" ? (
          <>
            <SavedSecretsBadge label={t("settings.notify.tokenSaved")} />
            <Button size="sm" onClick={() => onChange({ kind: "replace", value: "" })}>
              {t("settings.notify.tokenReplace")}
            </Button>
            <Button size="sm" variant="ghost" onClick={() => onChange({ kind: "remove" })}>
              {t("settings.notify.tokenRemove")}
            </Button>
          </>
        ) : (
          <>
            <span className="text-sm text-warning-text">{t("settings.notify.tokenWillBeRemoved")}</span>
            <Button size="sm" variant="ghost" onClick={() => onChange({ kind: "keep" })}>
              {t("settings.notify.tokenUndoRemove")}
            </Button>
          </>
        )}
      </div>
    </fieldset>
  );
}
