import type { apiKeyScope } from "@stackgate/contract";
import type { z } from "zod";
import { formatDate } from "../../lib/intl.ts";
import { useI18n, useT } from "../I18nProvider.tsx";
import { Badge, Switch, TextField } from "../ui/index.ts";

export type KeyScope = z.infer<typeof apiKeyScope>;
type DeployAction = NonNullable<KeyScope["actions"]>[number];
type ReadArea = NonNullable<KeyScope["read"]>[number];

export const DEPLOY_ACTIONS: DeployAction[] = ["pull", "redeploy", "pull-redeploy"];
export const READ_AREAS: ReadArea[] = ["stacks", "history", "scans", "events"];
const WEEK_MS = 7 * 86_400_000;

/** The scope as a few short lines: stacks, actions, reads, metrics. */
export function ScopeSummary({ scope }: { scope: KeyScope | null }) {
  const t = useT();
  if (!scope) return <span className="text-fg-muted">{t("settings.keys.fullAccess")}</span>;
  const lines = [
    scope.stacks
      ? t("settings.keys.scopeStacks", { stacks: scope.stacks.join(", ") })
      : t("settings.keys.scopeAllStacks"),
    scope.actions?.length === 0
      ? t("settings.keys.scopeNoActions")
      : t("settings.keys.scopeActions", { actions: (scope.actions ?? DEPLOY_ACTIONS).join(", ") }),
    scope.read?.length === 0
      ? t("settings.keys.scopeNoReads")
      : t("settings.keys.scopeReads", {
          reads: (scope.read ?? READ_AREAS).map((area) => t(`settings.keys.read.${area}`)).join(", "),
        }),
  ];
  return (
    <span className="flex min-w-44 flex-col text-xs leading-5" data-testid="key-scope">
      {lines.map((line) => (
        <span key={line} className="max-w-72 truncate" title={line}>
          {line}
        </span>
      ))}
      {scope.metrics && (
        <span>
          <Badge tone="neutral">{t("settings.keys.scopeMetrics")}</Badge>
        </span>
      )}
    </span>
  );
}

export const expiresWithinAWeek = (expiresAt: Date | null, now: number) =>
  expiresAt !== null && expiresAt.getTime() > now && expiresAt.getTime() - now <= WEEK_MS;

/** The expiry date, marked when it has passed or is less than a week away. */
export function ExpiryCell({ expiresAt, now }: { expiresAt: Date | null; now: number }) {
  const { t, lang } = useI18n();
  if (!expiresAt) return <span className="text-fg-muted">{t("settings.keys.neverExpires")}</span>;
  const date = (
    <time dateTime={expiresAt.toISOString()} className="whitespace-nowrap">
      {formatDate(lang, expiresAt)}
    </time>
  );
  if (expiresAt.getTime() <= now)
    return (
      <span className="flex flex-wrap items-center gap-1.5">
        {date}
        <Badge tone="danger">{t("settings.keys.expired")}</Badge>
      </span>
    );
  return (
    <span className="flex flex-wrap items-center gap-1.5">
      {date}
      {expiresWithinAWeek(expiresAt, now) && <Badge tone="warning">{t("settings.keys.expiresSoon")}</Badge>}
    </span>
  );
}

export interface ScopeDraft {
  limited: boolean;
  stacks: string;
  actions: DeployAction[];
  read: ReadArea[];
  metrics: boolean;
}

export const fullScopeDraft = (): ScopeDraft => ({
  limited: false,
  stacks: "",
  actions: [...DEPLOY_ACTIONS],
  read: [...READ_AREAS],
  metrics: false,
});

/** The scope to send: undefined while the key is not limited. */
export function scopeOf(draft: ScopeDraft): KeyScope | undefined {
  if (!draft.limited) return undefined;
  const stacks = draft.stacks
    .split(",")
    .map((pattern) => pattern.trim())
    .filter(Boolean);
  return {
    ...(stacks.length > 0 ? { stacks } : {}),
    actions: draft.actions,
    read: draft.read,
    metrics: draft.metrics,
  };
}

const toggle = <T,>(list: T[], item: T, on: boolean) =>
  on ? [...new Set([...list, item])] : list.filter((entry) => entry !== item);

function Checkbox({
  label,
  checked,
  onChange,
}: {
  label: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
}) {
  return (
    <label className="inline-flex min-h-6 items-center gap-2 text-sm">
      <input
        type="checkbox"
        className="size-4 accent-current"
        checked={checked}
        onChange={(event) => onChange(event.target.checked)}
      />
      {label}
    </label>
  );
}

function CheckboxGroup<T extends string>({
  legend,
  options,
  selected,
  label,
  onChange,
}: {
  legend: string;
  options: T[];
  selected: T[];
  label: (option: T) => string;
  onChange: (selected: T[]) => void;
}) {
  return (
    <fieldset className="flex flex-col gap-1.5">
      <legend className="mb-1 text-sm font-medium">{legend}</legend>
      <div className="flex flex-wrap gap-x-4 gap-y-1.5">
        {options.map((option) => (
          <Checkbox
            key={option}
            label={label(option)}
            checked={selected.includes(option)}
            onChange={(checked) => onChange(toggle(selected, option, checked))}
          />
        ))}
      </div>
    </fieldset>
  );
}

/** The create form's scope: off by default; on, stacks, actions, reads and metrics. */
export function ScopeFields({
  draft,
  onChange,
}: {
  draft: ScopeDraft;
  onChange: (draft: ScopeDraft) => void;
}) {
  const t = useT();
  return (
    <div className="flex flex-col gap-3">
      <Switch
        checked={draft.limited}
        onChange={(limited) => onChange({ ...draft, limited })}
        label={t("settings.keys.limit")}
        description={t("settings.keys.limitHint")}
      />
      {draft.limited && (
        <div className="flex flex-col gap-3 rounded-md border border-line p-3" data-testid="key-scope-fields">
          <TextField
            label={t("settings.keys.limitStacks")}
            hint={t("settings.keys.limitStacksHint")}
            value={draft.stacks}
            onChange={(event) => onChange({ ...draft, stacks: event.target.value })}
            autoComplete="off"
            inputClassName="font-mono"
            className="sm:max-w-sm"
          />
          <CheckboxGroup
            legend={t("settings.keys.limitActions")}
            options={DEPLOY_ACTIONS}
            selected={draft.actions}
            label={(action) => action}
            onChange={(actions) => onChange({ ...draft, actions })}
          />
          <CheckboxGroup
            legend={t("settings.keys.limitReads")}
            options={READ_AREAS}
            selected={draft.read}
            label={(area) => t(`settings.keys.read.${area}`)}
            onChange={(read) => onChange({ ...draft, read })}
          />
          <Checkbox
            label={t("settings.keys.limitMetrics")}
            checked={draft.metrics}
            onChange={(metrics) => onChange({ ...draft, metrics })}
          />
        </div>
      )}
    </div>
  );
}
