import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { api, orpc } from "../../lib/api.ts";
import { useT } from "../I18nProvider.tsx";
import { RemoveDialog } from "../settings/RemoveDialog.tsx";
import {
  BellIcon,
  Button,
  Card,
  EmptyState,
  IconButton,
  Notice,
  PlusIcon,
  QueryView,
  RelativeTime,
  requestMessage,
  retryWithoutAnswer,
  SendIcon,
  StatusMark,
  Table,
  TableBody,
  TableContainer,
  TableHead,
  TableOrList,
  Td,
  Th,
  Tr,
  TrashIcon,
} from "../ui/index.ts";
import { ChannelForm } from "./ChannelForm.tsx";
import { DeliveryLog } from "./DeliveryLog.tsx";
import { DeliveryStatus } from "./DeliveryStatus.tsx";
import { type Channel, eventLabel, type TestAnswer } from "./model.ts";

type Editing = { channel: Channel | null } | null;

/** Settings › Alerts: the channels with their state and last delivery, and what an admin does with them. */
export function ChannelsSection() {
  const t = useT();
  const queryClient = useQueryClient();
  const query = useQuery({ ...orpc.notify.channels.list.queryOptions(), retry: retryWithoutAnswer });
  const [editing, setEditingState] = useState<Editing>(null);
  // Where the keyboard was when the form opened: it goes back there once the form has closed.
  const opener = useRef<HTMLElement | null>(null);
  const openForm = (channel: Channel | null, from: HTMLElement) => {
    opener.current = from;
    setEditingState({ channel });
  };
  const closeForm = () => setEditingState(null);
  useEffect(() => {
    if (editing || !opener.current) return;
    if (opener.current.isConnected) opener.current.focus();
    opener.current = null;
  }, [editing]);
  const [removing, setRemoving] = useState<Channel | null>(null);
  const [showingLog, setShowingLog] = useState<Channel | null>(null);
  const [lastTest, setLastTest] = useState<
    { channel: Channel; answer: TestAnswer } | { channel: Channel; error: unknown } | null
  >(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: orpc.notify.channels.key() });

  const test = useMutation({
    mutationFn: (channel: Channel) => api.notify.channels.test({ id: channel.id }),
    onSuccess: (answer, channel) => setLastTest({ channel, answer }),
    onError: (error, channel) => setLastTest({ channel, error }),
    onSettled: refresh,
  });

  const actions: ChannelActions = {
    testingId: test.isPending ? test.variables.id : null,
    test: (channel) => test.mutate(channel),
    edit: openForm,
    showLog: (channel) => setShowingLog(channel),
    remove: (channel) => setRemoving(channel),
  };

  return (
    <div className="flex flex-col gap-6">
      <Card
        title={t("alerts.title")}
        description={t("alerts.cardDescription")}
        flush
        actions={
          !editing && (
            <Button
              variant="primary"
              size="sm"
              icon={<PlusIcon />}
              onClick={(event) => openForm(null, event.currentTarget)}
            >
              {t("alerts.add")}
            </Button>
          )
        }
      >
        <QueryView query={query} errorTitle={t("alerts.loadFailed")} padded>
          {({ channels }) =>
            channels.length === 0 ? (
              <div className="p-4">
                <EmptyState
                  icon={<BellIcon className="size-6" />}
                  title={t("alerts.empty")}
                  description={t("alerts.emptyHint")}
                  action={
                    <Button
                      variant="primary"
                      icon={<PlusIcon />}
                      onClick={(event) => openForm(null, event.currentTarget)}
                    >
                      {t("alerts.add")}
                    </Button>
                  }
                />
              </div>
            ) : (
              <TableOrList
                from="lg"
                table={<ChannelsTable channels={channels} actions={actions} />}
                list={<ChannelsList channels={channels} actions={actions} />}
              />
            )
          }
        </QueryView>
        {lastTest && (
          <div className="border-t border-line p-4">
            <TestResult result={lastTest} onDismiss={() => setLastTest(null)} />
          </div>
        )}
      </Card>
      {editing && (
        <ChannelForm
          key={editing.channel?.id ?? "new"}
          channel={editing.channel}
          onSaved={() => {
            closeForm();
            void refresh();
          }}
          onCancel={closeForm}
        />
      )}
      {showingLog && <DeliveryLog channel={showingLog} onClose={() => setShowingLog(null)} />}
      {removing && (
        <RemoveDialog
          open
          title={t("alerts.removeTitle", { name: removing.name })}
          description={t("alerts.removeDescription")}
          confirmLabel={t("alerts.removeConfirm")}
          remove={() => api.notify.channels.remove({ id: removing.id })}
          removedTitle={t("alerts.removed", { name: removing.name })}
          failedTitle={t("alerts.removeFailed")}
          onClose={() => setRemoving(null)}
          onRemoved={() => {
            if (showingLog?.id === removing.id) setShowingLog(null);
            if (editing?.channel?.id === removing.id) closeForm();
            setRemoving(null);
            void refresh();
          }}
        />
      )}
    </div>
  );
}

interface ChannelActions {
  /** The channel whose test is on its way. */
  testingId: string | null;
  test: (channel: Channel) => void;
  edit: (channel: Channel, from: HTMLElement) => void;
  showLog: (channel: Channel) => void;
  remove: (channel: Channel) => void;
}

interface ChannelsViewProps {
  channels: Channel[];
  actions: ChannelActions;
}

function ChannelsTable({ channels, actions }: ChannelsViewProps) {
  const t = useT();
  return (
    <TableContainer className="rounded-none border-0">
      <Table aria-label={t("alerts.title")}>
        <TableHead>
          <tr>
            <Th>{t("alerts.col.channel")}</Th>
            <Th>{t("alerts.col.state")}</Th>
            <Th>{t("alerts.col.events")}</Th>
            <Th>{t("alerts.col.stacks")}</Th>
            <Th>{t("alerts.col.lastDelivery")}</Th>
            <Th>
              <span className="sr-only">{t("alerts.col.actions")}</span>
            </Th>
          </tr>
        </TableHead>
        <TableBody>
          {channels.map((channel) => (
            <Tr key={channel.id}>
              <Td className="max-w-56">
                <ChannelName channel={channel} />
              </Td>
              <Td>
                <ChannelState channel={channel} />
              </Td>
              <Td className="max-w-64 truncate" title={eventNames(channel, t)}>
                {eventNames(channel, t)}
              </Td>
              <Td className="max-w-40 truncate font-mono text-[0.8125rem]" title={stackNames(channel, t)}>
                {stackNames(channel, t)}
              </Td>
              <Td>
                <LastDelivery channel={channel} />
              </Td>
              <Td className="w-0">
                <ChannelButtons channel={channel} actions={actions} />
              </Td>
            </Tr>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}

function ChannelsList({ channels, actions }: ChannelsViewProps) {
  const t = useT();
  return (
    <ul aria-label={t("alerts.title")} className="divide-y divide-line">
      {channels.map((channel) => (
        <li key={channel.id} className="flex flex-col gap-2 px-4 py-3">
          <div className="flex items-start justify-between gap-3">
            <ChannelName channel={channel} />
            <ChannelState channel={channel} />
          </div>
          <p className="text-xs text-fg-muted">
            {eventNames(channel, t)} · <span className="font-mono">{stackNames(channel, t)}</span>
          </p>
          <p className="text-xs text-fg-muted">
            {t("alerts.col.lastDelivery")}: <LastDelivery channel={channel} />
          </p>
          <ChannelButtons channel={channel} actions={actions} />
        </li>
      ))}
    </ul>
  );
}

const eventNames = (channel: Channel, t: ReturnType<typeof useT>) =>
  channel.events.map((event) => t(eventLabel(event))).join(", ");
const stackNames = (channel: Channel, t: ReturnType<typeof useT>) =>
  channel.stacks.length === 1 && channel.stacks[0] === "*"
    ? t("alerts.allStacks")
    : channel.stacks.join(", ");

function ChannelName({ channel }: { channel: Channel }) {
  const t = useT();
  return (
    <span className="flex min-w-0 flex-col">
      <bdi className="truncate font-medium" title={channel.name}>
        {channel.name}
      </bdi>
      <span className="truncate text-xs text-fg-muted">{t(`alerts.kind.${channel.kind}`)}</span>
    </span>
  );
}

function ChannelState({ channel }: { channel: Channel }) {
  const t = useT();
  if (!channel.enabled) return <StatusMark tone="neutral" label={t("alerts.state.off")} />;
  if (channel.failing)
    return (
      <span title={t("alerts.failingHint")}>
        <StatusMark tone="danger" label={t("alerts.state.failing")} />
      </span>
    );
  return <StatusMark tone="success" label={t("alerts.state.on")} />;
}

function LastDelivery({ channel }: { channel: Channel }) {
  const t = useT();
  const last = channel.lastDelivery;
  if (!last) return <span className="text-fg-muted">{t("alerts.never")}</span>;
  return (
    <span className="inline-flex flex-wrap items-center gap-x-1.5">
      <DeliveryStatus status={last.status} />
      <span className="text-fg-muted">
        <RelativeTime date={last.at} />
      </span>
    </span>
  );
}

function ChannelButtons({ channel, actions }: { channel: Channel; actions: ChannelActions }) {
  const t = useT();
  return (
    <div className="flex flex-wrap items-center gap-1.5">
      <Button
        size="sm"
        icon={<SendIcon />}
        loading={actions.testingId === channel.id}
        aria-label={t("alerts.testOf", { name: channel.name })}
        onClick={() => actions.test(channel)}
      >
        {t("alerts.test")}
      </Button>
      <Button
        size="sm"
        aria-label={t("alerts.deliveriesOf", { name: channel.name })}
        onClick={() => actions.showLog(channel)}
      >
        {t("alerts.deliveries")}
      </Button>
      <Button
        size="sm"
        aria-label={t("alerts.editOf", { name: channel.name })}
        onClick={(event) => actions.edit(channel, event.currentTarget)}
      >
        {t("alerts.edit")}
      </Button>
      <IconButton
        size="sm"
        label={t("alerts.removeOf", { name: channel.name })}
        icon={<TrashIcon />}
        onClick={() => actions.remove(channel)}
      />
    </div>
  );
}

/** Exactly what the service answered to the last test: delivered or not, its status and its words. */
function TestResult({
  result,
  onDismiss,
}: {
  result: { channel: Channel; answer: TestAnswer } | { channel: Channel; error: unknown };
  onDismiss: () => void;
}) {
  const t = useT();
  const dismiss = (
    <Button size="sm" variant="ghost" onClick={onDismiss}>
      {t("alerts.dismiss")}
    </Button>
  );
  if ("error" in result)
    return (
      <Notice role="alert" tone="danger" title={t("alerts.testFailed")} actions={dismiss}>
        {requestMessage(result.error, t)}
      </Notice>
    );
  const { delivered, status, message } = result.answer;
  const name = result.channel.name;
  return (
    <Notice
      role="status"
      tone={delivered ? "success" : "danger"}
      title={delivered ? t("alerts.testDelivered", { name }) : t("alerts.testNotDelivered", { name })}
      actions={dismiss}
    >
      <p>
        {status === null ? t("alerts.noAnswer") : t("alerts.answered", { status: String(status) })}{" "}
        <span className="text-fg">{message}</span>
      </p>
    </Notice>
  );
}
