import "../../lib/zod-without-eval.ts";
import { ntfyTopic } from "@stackgate/contract/notify.ts";
import { type FormEvent, useState } from "react";
import { api } from "../../lib/api.ts";
import { useT } from "../I18nProvider.tsx";
import {
  Button,
  Notice,
  requestMessage,
  SelectField,
  SendIcon,
  Switch,
  showToast,
  TextField,
  TrashIcon,
} from "../ui/index.ts";
import { useHydrated } from "../useHydrated.ts";
import type { NotifySettings } from "./NotifySection.tsx";
import { NotifyTokenField, type TokenChoice, tokenForSave } from "./NotifyTokenField.tsx";
import { type SubmitState, useWriteOnlySubmit } from "./useWriteOnlySubmit.ts";

interface NotifyFormProps {
  saved: NotifySettings | null;
  onSaved: (settings: NotifySettings) => void;
  onRemove: () => void;
}

type Severity = NotifySettings["vulnerabilitySeverity"];
const SEVERITIES: Severity[] = ["critical", "high", "medium", "low"];

const initialToken = (saved: NotifySettings | null): TokenChoice =>
  saved?.tokenSet ? { kind: "keep" } : { kind: "replace", value: "" };

export function NotifyForm({ saved, onSaved, onRemove }: NotifyFormProps) {
  const t = useT();
  const hydrated = useHydrated();
  const [url, setUrl] = useState(saved?.url ?? "");
  const [topic, setTopic] = useState(saved?.topic ?? "");
  const [enabled, setEnabled] = useState(saved?.enabled ?? true);
  const [token, setToken] = useState<TokenChoice>(initialToken(saved));
  const [vulnerabilityAlerts, setVulnerabilityAlerts] = useState(saved?.vulnerabilityAlerts ?? false);
  const [vulnerabilitySeverity, setVulnerabilitySeverity] = useState<Severity>(
    saved?.vulnerabilitySeverity ?? "critical",
  );
  const [alertOnFirstScan, setAlertOnFirstScan] = useState(saved?.alertOnFirstScan ?? false);
  const save = useWriteOnlySubmit(api.notify.save);
  const test = useWriteOnlySubmit(api.notify.test);
  // A hint only: the server has the last word, and its refusal is shown as it says it.
  const topicLooksWrong = topic !== "" && !ntfyTopic.safeParse(topic).success;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (save.pending) return;
    const input = {
      url,
      topic,
      enabled,
      token: tokenForSave(token),
      vulnerabilityAlerts,
      vulnerabilitySeverity,
      alertOnFirstScan,
    };
    setToken(initialToken(saved));
    const result = await save.submit(input);
    if (!result) return;
    setToken(initialToken(result.settings));
    showToast({ tone: "success", title: t("settings.notify.saved") });
    onSaved(result.settings);
  };

  // Tests what the form shows, saved or not; without a new token the server uses the saved one.
  const sendTest = () => {
    const typedToken = token.kind === "replace" && token.value !== "" ? { token: token.value } : {};
    void test.submit({ url, topic, ...typedToken });
  };

  return (
    <form onSubmit={submit} className="flex flex-col gap-4" aria-label={t("settings.notify.formLabel")}>
      <div className="grid gap-4 sm:grid-cols-2">
        <TextField
          label={t("settings.notify.url")}
          hint={t("settings.notify.urlHint")}
          type="url"
          value={url}
          onChange={(event) => setUrl(event.target.value)}
          required
          autoComplete="off"
          placeholder="https://ntfy.sh"
          inputClassName="font-mono"
        />
        <TextField
          label={t("settings.notify.topic")}
          hint={topicLooksWrong ? undefined : t("settings.notify.topicHint")}
          error={topicLooksWrong ? t("settings.notify.topicRule") : undefined}
          value={topic}
          onChange={(event) => setTopic(event.target.value)}
          required
          autoComplete="off"
          spellCheck={false}
          inputClassName="font-mono"
        />
        <NotifyTokenField tokenSet={saved?.tokenSet ?? false} choice={token} onChange={setToken} />
        <div className="sm:pt-7">
          <Switch
            checked={enabled}
            onChange={setEnabled}
            label={t("settings.notify.enabled")}
            description={t("settings.notify.enabledHint")}
          />
        </div>
      </div>
      <fieldset className="flex flex-col gap-3 border-t border-line pt-4">
        <legend className="sr-only">{t("settings.notify.vulnerabilities")}</legend>
        <Switch
          checked={vulnerabilityAlerts}
          onChange={setVulnerabilityAlerts}
          label={t("settings.notify.vulnerabilities")}
          description={t("settings.notify.vulnerabilitiesHint")}
        />
        {vulnerabilityAlerts && (
          <div className="grid gap-4 sm:grid-cols-2">
            <SelectField
              label={t("settings.notify.severity")}
              value={vulnerabilitySeverity}
              onChange={(event) => setVulnerabilitySeverity(event.target.value as Severity)}
            >
              {SEVERITIES.map((severity) => (
                <option key={severity} value={severity}>
                  {t(`settings.notify.severity.${severity}`)}
                </option>
              ))}
            </SelectField>
            <div className="sm:pt-7">
              <Switch
                checked={alertOnFirstScan}
                onChange={setAlertOnFirstScan}
                label={t("settings.notify.firstScan")}
                description={t("settings.notify.firstScanHint")}
              />
            </div>
          </div>
        )}
      </fieldset>
      {save.state.status === "failed" && (
        <Notice role="alert" tone="danger" title={t("settings.notify.saveFailed")}>
          {requestMessage(save.state.error, t)}
        </Notice>
      )}
      <TestAnswer state={test.state} />
      <div className="flex flex-wrap items-center gap-2">
        <Button type="submit" variant="primary" loading={save.pending} disabled={!hydrated}>
          {t("settings.notify.save")}
        </Button>
        <Button onClick={sendTest} loading={test.pending} disabled={!hydrated} icon={<SendIcon />}>
          {test.pending ? t("settings.notify.testing") : t("settings.notify.test")}
        </Button>
        {saved && (
          <Button variant="ghost" onClick={onRemove} icon={<TrashIcon />} className="sm:ml-auto">
            {t("settings.notify.remove")}
          </Button>
        )}
      </div>
      <p className="-mt-2 text-xs text-fg-muted">{t("settings.notify.testHint")}</p>
    </form>
  );
}

type TestResult = Awaited<ReturnType<typeof api.notify.test>>;

/** Exactly what the server answered to the test: delivered or not, ntfy's status and its message. */
function TestAnswer({ state }: { state: SubmitState<TestResult> }) {
  const t = useT();
  if (state.status === "failed") {
    return (
      <Notice role="alert" tone="danger" title={t("settings.notify.testFailed")}>
        {requestMessage(state.error, t)}
      </Notice>
    );
  }
  if (state.status !== "done") return null;
  const { delivered, status, message } = state.result;
  return (
    <Notice
      role="status"
      tone={delivered ? "success" : "danger"}
      title={delivered ? t("settings.notify.delivered") : t("settings.notify.notDelivered")}
    >
      <p>
        {status === null
          ? t("settings.notify.noAnswer")
          : t("settings.notify.answered", { status: String(status) })}{" "}
        <span className="text-fg">{message}</span>
      </p>
    </Notice>
  );
}
