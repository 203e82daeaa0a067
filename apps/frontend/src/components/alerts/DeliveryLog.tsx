import { useQuery } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { orpc } from "../../lib/api.ts";
import { formatDateAndTime } from "../../lib/intl.ts";
import { useI18n, useT } from "../I18nProvider.tsx";
import { Button, Card, QueryView, RelativeTime, retryWithoutAnswer } from "../ui/index.ts";
import { DeliveryStatus } from "./DeliveryStatus.tsx";
import { type Channel, type Delivery, eventLabel } from "./model.ts";

/** While a delivery is under way (a retry waiting), the log is asked again this often; otherwise less often. */
const UNDER_WAY_POLL_MS = 5_000;
const IDLE_POLL_MS = 15_000;

/** A channel's delivery log: the last 200, newest first, each with every attempt and its answer. */
export function DeliveryLog({ channel, onClose }: { channel: Channel; onClose: () => void }) {
  const t = useT();
  const heading = useRef<HTMLDivElement>(null);
  const query = useQuery({
    ...orpc.notify.channels.deliveries.queryOptions({ input: { id: channel.id } }),
    retry: retryWithoutAnswer,
    refetchInterval: ({ state: { data } }) =>
      data?.deliveries.some((delivery) => delivery.status === "sending" || delivery.status === "retrying")
        ? UNDER_WAY_POLL_MS
        : IDLE_POLL_MS,
  });
  // Opened from a row's button: the log takes the focus, so a keyboard lands where it appeared.
  useEffect(() => heading.current?.focus(), []);

  return (
    <div ref={heading} tabIndex={-1} className="outline-none">
      <Card
        title={t("alerts.log.title", { name: channel.name })}
        description={t("alerts.log.description")}
        flush
        actions={
          <Button size="sm" onClick={onClose}>
            {t("alerts.log.close")}
          </Button>
        }
      >
        <QueryView query={query} errorTitle={t("alerts.log.loadFailed")} padded>
          {({ deliveries }) =>
            deliveries.length === 0 ? (
              <p className="p-4 text-sm text-fg-muted">{t("alerts.log.empty")}</p>
            ) : (
              <ol aria-label={t("alerts.log.title", { name: channel.name })} className="divide-y divide-line">
                {deliveries.map((delivery) => (
                  <DeliveryItem key={delivery.id} delivery={delivery} />
                ))}
              </ol>
            )
          }
        </QueryView>
      </Card>
    </div>
  );
}

function DeliveryItem({ delivery }: { delivery: Delivery }) {
  const t = useT();
  const { lang } = useI18n();
  return (
    <li className="flex flex-col gap-1 px-4 py-2.5 text-sm">
      <div className="flex flex-wrap items-center justify-between gap-x-3 gap-y-1">
        <span className="inline-flex min-w-0 flex-wrap items-center gap-x-2">
          <DeliveryStatus status={delivery.status} />
          <span className="font-medium">{t(eventLabel(delivery.event))}</span>
          {delivery.stack && (
            <span className="font-mono text-[0.8125rem] text-fg-muted">{delivery.stack}</span>
          )}
        </span>
        <span className="text-xs text-fg-muted">
          <RelativeTime date={delivery.createdAt} />
        </span>
      </div>
      <p className="break-words text-fg-muted">{delivery.summary}</p>
      {delivery.attempts.length > 0 && (
        <details className="text-xs">
          <summary className="cursor-pointer text-fg-muted">
            {t("alerts.log.attempts", { count: delivery.attempts.length })}
            {delivery.error ? ` — ${delivery.error}` : ""}
          </summary>
          <ul className="mt-1 flex flex-col gap-0.5 pl-4">
            {delivery.attempts.map((attempt) => (
              <li key={attempt.at.toISOString()} className="break-words">
                <span className="text-fg-muted">
                  {t("alerts.log.attemptAt", {
                    time: formatDateAndTime(lang, attempt.at, { seconds: true }),
                  })}
                </span>
                {": "}
                {attempt.status !== null && <span className="tabular-nums">{attempt.status} </span>}
                {attempt.delivered ? t("alerts.status.delivered") : attempt.error}
              </li>
            ))}
          </ul>
        </details>
      )}
    </li>
  );
}
