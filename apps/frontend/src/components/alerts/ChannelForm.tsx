import { type FormEvent, useEffect, useRef, useState } from "react";
import { api } from "../../lib/api.ts";
import { LANGS, LANGUAGE_NAMES } from "../../lib/i18n.ts";
import { useI18n, useT } from "../I18nProvider.tsx";
import { useWriteOnlySubmit } from "../settings/useWriteOnlySubmit.ts";
import {
  Button,
  Card,
  Notice,
  requestMessage,
  SelectField,
  Switch,
  showToast,
  TextField,
} from "../ui/index.ts";
import { useHydrated } from "../useHydrated.ts";
import {
  ALERT_EVENTS,
  type AlertEventName,
  addressMoved,
  CHANNEL_KINDS,
  type Channel,
  type ChannelKind,
  eventLabel,
  type FieldSpec,
  fromText,
  isAddress,
  isSecret,
  KIND_FIELDS,
  SEVERITIES,
  type Severity,
  secretSaved,
  toText,
} from "./model.ts";
import { MultilineField, type SecretChoice, SecretField } from "./SecretField.tsx";

interface ChannelFormProps {
  /** The channel being changed; null for a new one. */
  channel: Channel | null;
  onSaved: (channel: Channel) => void;
  onCancel: () => void;
}

type Values = Record<string, string>;
type Secrets = Record<string, SecretChoice>;

const savedSettings = (channel: Channel | null) => (channel?.settings ?? {}) as Record<string, unknown>;

function initialValues(kind: ChannelKind, channel: Channel | null): Values {
  const saved = savedSettings(channel);
  return Object.fromEntries(
    KIND_FIELDS[kind]
      .filter((spec) => !isSecret(kind, spec.name))
      .map((spec) => [
        spec.name,
        toText(saved[spec.name] ?? (spec.input === "choice" ? spec.choices![0]!.value : "")),
      ]),
  );
}

function initialSecrets(kind: ChannelKind, channel: Channel | null): Secrets {
  const saved = savedSettings(channel);
  return Object.fromEntries(
    KIND_FIELDS[kind]
      .filter((spec) => isSecret(kind, spec.name))
      .map((spec) => [
        spec.name,
        secretSaved(saved, spec.name) ? { kind: "keep" } : { kind: "replace", value: "" },
      ]),
  );
}

/** Adding or changing a channel: its kind's settings (secrets write-only), its events, stacks and language. */
export function ChannelForm({ channel, onSaved, onCancel }: ChannelFormProps) {
  const { t, lang: uiLanguage } = useI18n();
  const hydrated = useHydrated();
  const [kind, setKind] = useState<ChannelKind>(channel?.kind ?? "slack");
  const [name, setName] = useState(channel?.name ?? "");
  const [enabled, setEnabled] = useState(channel?.enabled ?? true);
  const [events, setEvents] = useState<AlertEventName[]>(channel?.events ?? ["deploy.failed"]);
  const [stacks, setStacks] = useState((channel?.stacks ?? ["*"]).join(", "));
  // A new channel speaks the language of whoever adds it.
  const [language, setLanguage] = useState(channel?.language ?? uiLanguage);
  const [severity, setSeverity] = useState<Severity>(channel?.vulnerabilitySeverity ?? "critical");
  const [firstScan, setFirstScan] = useState(channel?.alertOnFirstScan ?? false);
  const [values, setValues] = useState<Values>(() => initialValues(kind, channel));
  const [secrets, setSecrets] = useState<Secrets>(() => initialSecrets(kind, channel));
  const save = useWriteOnlySubmit((input: CreateInput) =>
    channel
      ? api.notify.channels.update({ id: channel.id, ...withoutKind(input) })
      : api.notify.channels.create(input),
  );

  const formRef = useRef<HTMLFormElement>(null);
  // Opened from a button: the keyboard goes on in the form, at its first field.
  useEffect(() => formRef.current?.querySelector<HTMLElement>("select, input")?.focus(), []);

  const saved = savedSettings(channel);
  const specs = KIND_FIELDS[kind];
  // A changed address asks for every saved secret again: none follows it to another server.
  const moved =
    channel !== null &&
    specs.some((spec) =>
      isSecret(kind, spec.name)
        ? isAddress(kind, spec.name) &&
          secrets[spec.name]?.kind === "replace" &&
          (secrets[spec.name] as { value: string }).value !== ""
        : isAddress(kind, spec.name) && addressMoved(toText(saved[spec.name]), values[spec.name] ?? ""),
    );
  // What a saved secret is shown as: where a write-only address goes, which headers are set.
  const savedLabel = (field: string) => {
    if (isAddress(kind, field) && typeof saved.host === "string")
      return t("alerts.secret.savedAt", { host: saved.host });
    if (field === "headers" && Array.isArray(saved.headerNames))
      return t("alerts.secret.savedHeaders", { names: saved.headerNames.join(", ") });
    return t("alerts.secret.saved");
  };
  const choiceOf = (field: string): SecretChoice => {
    const choice = secrets[field] ?? { kind: "replace", value: "" };
    return moved && choice.kind === "keep" ? { kind: "replace", value: "" } : choice;
  };

  const chooseKind = (next: ChannelKind) => {
    setKind(next);
    setValues(initialValues(next, null));
    setSecrets(initialSecrets(next, null));
  };
  const toggleEvent = (event: AlertEventName, on: boolean) =>
    setEvents((current) =>
      on
        ? ALERT_EVENTS.filter((each) => each === event || current.includes(each))
        : current.filter((each) => each !== event),
    );

  const settingsToSend = () => {
    const settings: Record<string, unknown> = {};
    for (const spec of specs) {
      if (isSecret(kind, spec.name)) {
        const choice = choiceOf(spec.name);
        if (choice.kind === "remove") settings[spec.name] = null;
        else if (choice.kind === "replace" && choice.value.trim() !== "")
          settings[spec.name] = fromText(spec, choice.value);
        // Moved, and left empty: the saved one is not to follow, so it goes.
        else if (moved && secretSaved(saved, spec.name)) settings[spec.name] = null;
        continue;
      }
      const text = values[spec.name] ?? "";
      if (channel && text === toText(saved[spec.name])) continue;
      const value = fromText(spec, text);
      if (value !== undefined) settings[spec.name] = value;
      else if (channel) settings[spec.name] = null;
    }
    return settings;
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (save.pending) return;
    const input = {
      name,
      kind,
      enabled,
      events,
      stacks: stacks
        .split(",")
        .map((each) => each.trim())
        .filter(Boolean),
      language,
      vulnerabilitySeverity: severity,
      alertOnFirstScan: firstScan,
      settings: settingsToSend(),
    };
    // What was typed into secret fields leaves the page with the request, whatever the answer.
    setSecrets(initialSecrets(kind, channel));
    const result = await save.submit(input as Parameters<typeof api.notify.channels.create>[0]);
    if (!result) return;
    showToast({
      tone: "success",
      title: t(channel ? "alerts.form.saved" : "alerts.form.created", { name: result.channel.name }),
    });
    onSaved(result.channel);
  };

  return (
    <Card title={channel ? t("alerts.form.edit", { name: channel.name }) : t("alerts.form.new")}>
      <form
        ref={formRef}
        onSubmit={submit}
        className="flex flex-col gap-5"
        aria-label={channel ? t("alerts.form.edit", { name: channel.name }) : t("alerts.form.new")}
      >
        <div className="grid gap-4 sm:grid-cols-2">
          {channel ? (
            <div className="flex flex-col gap-1.5">
              <span className="text-sm font-medium">{t("alerts.form.kind")}</span>
              <span className="flex h-9 items-center text-sm">{t(`alerts.kind.${kind}`)}</span>
            </div>
          ) : (
            <SelectField
              label={t("alerts.form.kind")}
              hint={t("alerts.form.kindHint")}
              value={kind}
              onChange={(event) => chooseKind(event.target.value as ChannelKind)}
            >
              {CHANNEL_KINDS.map((each) => (
                <option key={each} value={each}>
                  {t(`alerts.kind.${each}`)}
                </option>
              ))}
            </SelectField>
          )}
          <TextField
            label={t("alerts.form.name")}
            hint={t("alerts.form.nameHint")}
            value={name}
            onChange={(event) => setName(event.target.value)}
            required
            maxLength={64}
            autoComplete="off"
          />
        </div>

        <fieldset className="flex flex-col gap-4 border-t border-line pt-4">
          <legend className="text-sm font-semibold">{t("alerts.form.settings")}</legend>
          {moved && Object.values(secrets).some((choice) => choice.kind === "keep") && (
            <Notice tone="warning" title={t("alerts.form.addressMoved")} />
          )}
          <div className="grid gap-4 sm:grid-cols-2">
            {specs.map((spec) =>
              isSecret(kind, spec.name) ? (
                <SecretField
                  key={spec.name}
                  label={t(spec.label)}
                  hint={`${t(spec.hint)} ${t("alerts.secret.stored")}`}
                  saved={secretSaved(saved, spec.name) && !moved}
                  savedLabel={savedLabel(spec.name)}
                  choice={choiceOf(spec.name)}
                  onChange={(choice) => setSecrets({ ...secrets, [spec.name]: choice })}
                  required={spec.required}
                  multiline={spec.input === "lines" || spec.input === "headers"}
                  removable={!spec.required}
                  extra={
                    spec.generate ? (
                      <Button
                        size="sm"
                        onClick={() =>
                          setSecrets({
                            ...secrets,
                            [spec.name]: { kind: "replace", value: spec.generate!() },
                          })
                        }
                      >
                        {t("alerts.generate")}
                      </Button>
                    ) : undefined
                  }
                />
              ) : (
                <PlainField
                  key={spec.name}
                  spec={spec}
                  value={values[spec.name] ?? ""}
                  onChange={(value) => setValues({ ...values, [spec.name]: value })}
                />
              ),
            )}
          </div>
        </fieldset>

        <fieldset className="flex flex-col gap-4 border-t border-line pt-4">
          <legend className="text-sm font-semibold">{t("alerts.form.what")}</legend>
          <fieldset className="flex flex-col gap-2">
            <legend className="mb-1 text-sm font-medium">{t("alerts.form.events")}</legend>
            {ALERT_EVENTS.map((event) => (
              <label key={event} className="flex items-start gap-2.5 text-sm">
                <input
                  type="checkbox"
                  className="mt-0.5 size-4 shrink-0 accent-primary"
                  checked={events.includes(event)}
                  onChange={(change) => toggleEvent(event, change.target.checked)}
                />
                <span className="min-w-0">
                  <span className="font-medium">{t(eventLabel(event))}</span>
                  <span className="block text-xs text-fg-muted">{t(`alerts.eventHint.${event}`)}</span>
                </span>
              </label>
            ))}
          </fieldset>
          {events.includes("vulnerability.new") && (
            <div className="grid gap-4 sm:grid-cols-2">
              <SelectField
                label={t("alerts.form.severity")}
                value={severity}
                onChange={(event) => setSeverity(event.target.value as Severity)}
              >
                {SEVERITIES.map((each) => (
                  <option key={each} value={each}>
                    {t(`alerts.severity.${each}`)}
                  </option>
                ))}
              </SelectField>
              <div className="sm:pt-7">
                <Switch
                  checked={firstScan}
                  onChange={setFirstScan}
                  label={t("alerts.form.firstScan")}
                  description={t("alerts.form.firstScanHint")}
                />
              </div>
            </div>
          )}
          <div className="grid gap-4 sm:grid-cols-2">
            <TextField
              label={t("alerts.form.stacks")}
              hint={t("alerts.form.stacksHint")}
              value={stacks}
              onChange={(event) => setStacks(event.target.value)}
              required
              autoComplete="off"
              spellCheck={false}
              inputClassName="font-mono"
            />
            <SelectField
              label={t("alerts.form.language")}
              value={language}
              onChange={(event) => setLanguage(event.target.value as typeof language)}
            >
              {LANGS.map((each) => (
                <option key={each} value={each}>
                  {LANGUAGE_NAMES[each]}
                </option>
              ))}
            </SelectField>
          </div>
          <Switch
            checked={enabled}
            onChange={setEnabled}
            label={t("alerts.form.enabled")}
            description={t("alerts.form.enabledHint")}
          />
        </fieldset>

        {save.state.status === "failed" && (
          <Notice role="alert" tone="danger" title={t("alerts.form.saveFailed")}>
            {requestMessage(save.state.error, t)}
          </Notice>
        )}
        <div className="flex flex-wrap gap-2">
          <Button type="submit" variant="primary" loading={save.pending} disabled={!hydrated}>
            {channel ? t("alerts.form.save") : t("alerts.form.create")}
          </Button>
          <Button onClick={onCancel} disabled={save.pending}>
            {t("ui.cancel")}
          </Button>
        </div>
      </form>
    </Card>
  );
}

type CreateInput = Parameters<typeof api.notify.channels.create>[0];
type UpdateInput = Parameters<typeof api.notify.channels.update>[0];

/** A channel's kind never changes: a change leaves it out. */
function withoutKind({ kind: _, ...rest }: CreateInput): Omit<UpdateInput, "id"> {
  return rest;
}

/** A setting that is not secret: a text input, a choice, or lines. */
function PlainField({
  spec,
  value,
  onChange,
}: {
  spec: FieldSpec;
  value: string;
  onChange: (value: string) => void;
}) {
  const t = useT();
  if (spec.input === "choice")
    return (
      <SelectField
        label={t(spec.label)}
        hint={t(spec.hint)}
        value={value}
        onChange={(event) => onChange(event.target.value)}
      >
        {spec.choices!.map((choice) => (
          <option key={choice.value} value={choice.value}>
            {t(choice.label)}
          </option>
        ))}
      </SelectField>
    );
  if (spec.input === "lines" || spec.input === "headers")
    return (
      <MultilineField
        label={t(spec.label)}
        hint={t(spec.hint)}
        value={value}
        onChange={onChange}
        required={spec.required}
      />
    );
  return (
    <TextField
      label={t(spec.label)}
      hint={t(spec.hint)}
      type={
        spec.input === "url"
          ? "url"
          : spec.input === "email"
            ? "email"
            : spec.input === "number"
              ? "number"
              : "text"
      }
      inputMode={spec.input === "number" ? "numeric" : undefined}
      value={value}
      onChange={(event) => onChange(event.target.value)}
      required={spec.required}
      placeholder={spec.placeholder}
      autoComplete="off"
      spellCheck={false}
      inputClassName={spec.input === "url" || spec.input === "list" ? "font-mono" : undefined}
    />
  );
}
