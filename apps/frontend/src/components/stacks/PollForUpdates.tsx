import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { api } from "../../lib/api.ts";
import { useI18n } from "../I18nProvider.tsx";
import { Button } from "../ui/Button.tsx";
import { Card } from "../ui/Card.tsx";
import { describeLoadError } from "../ui/request-message.ts";
import { showToast } from "../ui/Toast.tsx";

/**
 * Komodo's automatic image update check for one stack. Komodo's stack list does not say whether it is
 * on, so this is two actions rather than a switch that would have to guess its position; the last
 * change made here is confirmed beside them.
 */
export function PollForUpdates({ stack }: { stack: string }) {
  const { t, lang } = useI18n();
  const [lastChange, setLastChange] = useState<{ enabled: boolean; at: Date } | null>(null);
  const mutation = useMutation({
    mutationFn: (enabled: boolean) => api.stacks.setPollForUpdates({ stack, enabled }),
    onSuccess: ({ enabled }) => {
      setLastChange({ enabled, at: new Date() });
      showToast({
        tone: "success",
        title: t(enabled ? "stacks.poll.turnedOn" : "stacks.poll.turnedOff", { stack }),
      });
    },
    onError: (error, enabled) => {
      showToast({
        tone: "danger",
        title: t(enabled ? "stacks.poll.turnOnFailed" : "stacks.poll.turnOffFailed", { stack }),
        description: describeLoadError(error, t),
      });
    },
  });
  const pendingValue = mutation.isPending ? mutation.variables : undefined;
  const time = (date: Date) => new Intl.DateTimeFormat(lang, { timeStyle: "short" }).format(date);

  return (
    <Card title={t("stacks.poll.title")} description={t("stacks.poll.description")}>
      <div className="flex flex-wrap gap-2">
        <Button
          size="sm"
          loading={pendingValue === true}
          disabled={pendingValue === false}
          onClick={() => mutation.mutate(true)}
        >
          {t("stacks.poll.turnOn")}
        </Button>
        <Button
          size="sm"
          loading={pendingValue === false}
          disabled={pendingValue === true}
          onClick={() => mutation.mutate(false)}
        >
          {t("stacks.poll.turnOff")}
        </Button>
      </div>
      <p role="status" className="mt-2 text-xs text-fg-muted empty:hidden">
        {lastChange &&
          t(lastChange.enabled ? "stacks.poll.lastOn" : "stacks.poll.lastOff", { time: time(lastChange.at) })}
      </p>
    </Card>
  );
}
