import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, orpc } from "../../lib/api.ts";
import { cx } from "../../lib/cx.ts";
import { formatTimeOfDay } from "../../lib/intl.ts";
import { useCan } from "../../lib/permissions.ts";
import { useI18n, useT } from "../I18nProvider.tsx";
import { Card } from "../ui/Card.tsx";
import { QueryView } from "../ui/QueryView.tsx";
import { retryUpstreamRead } from "../ui/request-error.ts";
import { describeLoadError } from "../ui/request-message.ts";
import { Skeleton } from "../ui/Skeleton.tsx";
import { Spinner } from "../ui/Spinner.tsx";
import { Switch } from "../ui/Switch.tsx";
import { showToast } from "../ui/Toast.tsx";

const settingOptions = (stack: string) =>
  orpc.stacks.getPollForUpdates.queryOptions({ input: { stack }, retry: retryUpstreamRead });

/** Komodo's automatic image update check for one stack, as Komodo has it now, with a switch to change it. */
export function PollForUpdates({ stack }: { stack: string }) {
  const t = useT();
  const setting = useQuery(settingOptions(stack));
  const canChange = useCan("admin");
  return (
    <Card title={t("stacks.poll.title")} description={t("stacks.poll.description")}>
      <QueryView
        query={setting}
        errorTitle={t("stacks.poll.loadFailed")}
        compact
        placeholder={
          <div role="status" className="flex items-center gap-3">
            <Skeleton className="h-5 w-9 rounded-full" />
            <span className="text-sm text-fg-muted">{t("stacks.poll.loading")}</span>
          </div>
        }
      >
        {(data) =>
          canChange ? (
            <PollSwitch stack={stack} enabled={data.enabled} />
          ) : (
            <p className="text-sm">{t(data.enabled ? "stacks.poll.isOn" : "stacks.poll.isOff")}</p>
          )
        }
      </QueryView>
    </Card>
  );
}

/** The switch, showing a change on its way as the position asked for, and below it what happened. */
function PollSwitch({ stack, enabled }: { stack: string; enabled: boolean }) {
  const { t, lang } = useI18n();
  const queryClient = useQueryClient();
  const { queryKey } = settingOptions(stack);
  const [lastChange, setLastChange] = useState<{ enabled: boolean; at: Date } | null>(null);
  const mutation = useMutation({
    mutationFn: (next: boolean) => api.stacks.setPollForUpdates({ stack, enabled: next }),
    onSuccess: (answer) => {
      queryClient.setQueryData(queryKey, answer);
      setLastChange({ enabled: answer.enabled, at: new Date() });
      showToast({
        tone: "success",
        title: t(answer.enabled ? "stacks.poll.turnedOn" : "stacks.poll.turnedOff", { stack }),
      });
    },
    onError: (error, next) => {
      setLastChange(null);
      // The change may or may not have reached Komodo: show what Komodo has now.
      void queryClient.invalidateQueries({ queryKey });
      showToast({
        tone: "danger",
        title: t(next ? "stacks.poll.turnOnFailed" : "stacks.poll.turnOffFailed", { stack }),
        description: describeLoadError(error, t),
      });
    },
  });

  const pending = mutation.isPending ? mutation.variables : undefined;
  const shown = pending ?? enabled;
  const time = (date: Date) => formatTimeOfDay(lang, date);
  let status: string;
  if (pending !== undefined) status = t(pending ? "stacks.poll.turningOn" : "stacks.poll.turningOff");
  else if (mutation.isError)
    status = t(mutation.variables ? "stacks.poll.turnOnFailed" : "stacks.poll.turnOffFailed", { stack });
  else if (lastChange)
    status = t(lastChange.enabled ? "stacks.poll.lastOn" : "stacks.poll.lastOff", {
      time: time(lastChange.at),
    });
  else status = t(shown ? "stacks.poll.isOn" : "stacks.poll.isOff");

  return (
    <div className="flex flex-col gap-2">
      <Switch
        checked={shown}
        busy={pending !== undefined}
        onChange={(next) => mutation.mutate(next)}
        label={t("stacks.poll.switch", { stack })}
      />
      <div
        role="status"
        className={cx(
          "flex items-start gap-1.5 text-xs",
          mutation.isError ? "text-danger-text" : "text-fg-muted",
        )}
      >
        {pending !== undefined && <Spinner className="mt-px size-3.5" />}
        <p>
          {status}
          {mutation.isError && (
            <span className="block text-fg-muted">{describeLoadError(mutation.error, t)}</span>
          )}
        </p>
      </div>
    </div>
  );
}
