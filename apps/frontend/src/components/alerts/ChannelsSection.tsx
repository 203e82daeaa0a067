import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type RefObject, useEffect, useRef, useState } from "react";
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
import { type AlertEventName, type Channel, eventLabel, type TestAnswer } from "./model.ts";

type Editing = { channel: Channel | null } | null;

/** How often the channels' state and last delivery are asked again while the page is visible. */
const REFRESH_MS = 15_000;

/** Settings › Alerts: the channels with their state and last delivery, and what an admin does with them. */
export function ChannelsSection() {
  const t = useT();
  const queryClient = useQueryClient();
  const query = useQuery({
    ...orpc.notify.channels.list.queryOptions(),
    retry: retryWithoutAnswer,
    // Alerts go out in the background (a deploy, a scan): each channel's last delivery keeps up.
    refetchInterval: REFRESH_MS,
  });
  const [editing, setEditing] = useState<Editing>(null);
  const section = useRef<HTMLDivElement>(null);
  const focusLater = useFocusLater(section);
  const openForm = (channel: Channel | null) => {
    focusLater.forget();
    setEditing({ channel });
  };
  // Once the form closes, the keyboard goes back to the button that opened it (it is shown again).
  const closeForm = () => {
    focusLater.set(editing?.channel ? focusKey("edit", editing.channel) : "add");
    setEditing(null);
  };
  const [removing, setRemoving] = useState<Channel | null>(null);
  const [showingLog, setShowingLog] = useState<Channel | null>(null);
  const closeLog = () => {
    if (showingLog) focusLater.set(focusKey("log", showingLog));
    setShowingLog(null);
  };
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
    showLog: (channel) => {
      focusLater.forget();
      setShowingLog(channel);
    },
    remove: (channel) => setRemoving(channel),
  };

  return (
    <div ref={section} className="flex flex-col gap-6">
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
              data-focus="add"
              onClick={() => openForm(null)}
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
                      data-focus="add"
                      onClick={() => openForm(null)}
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
            <TestResult
              result={lastTest}
              onDismiss={() => {
                focusLater.set(focusKey("test", lastTest.channel));
                setLastTest(null);
              }}
            />
          </div>
        )}
      </Card>
      {editing && (
        <ChannelForm
          key={editing.channel?.id ?? "new"}
          channel={editing.channel}
          onSaved={(saved) => {
            closeForm();
            // A new channel's next step is its test: the keyboard waits there once its row shows.
            if (!editing.channel) focusLater.set(focusKey("test", saved));
            void refresh();
          }}
          onCancel={closeForm}
        />
      )}
      {showingLog && <DeliveryLog channel={showingLog} onClose={closeLog} />}
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
            if (editing?.channel?.id === removing.id) setEditing(null);
            setRemoving(null);
            // Its row goes: the keyboard goes to adding one, at the top of the list.
            focusLater.set("add");
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
  edit: (channel: Channel) => void;
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
            <Th>{t("alerts.col.receives")}</Th>
            <Th>{t("alerts.col.lastDelivery")}</Th>
            <Th>
              <span className="sr-only">{t("alerts.col.actions")}</span>
            </Th>
          </tr>
        </TableHead>
        <TableBody>
          {channels.map((channel) => (
            <Tr key={channel.id}>
              <Td className="max-w-52">
                <ChannelName channel={channel} />
              </Td>
              <Td>
                <ChannelState channel={channel} />
              </Td>
              <Td className="max-w-64">
                <Receives channel={channel} />
              </Td>
              <Td className="max-w-56">
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
          <Receives channel={channel} />
          <p className="flex flex-wrap items-center gap-x-1.5 text-xs">
            <span className="text-fg-muted">{t("alerts.col.lastDelivery")}:</span>
            <LastDelivery channel={channel} inline />
          </p>
          <ChannelButtons channel={channel} actions={actions} />
        </li>
      ))}
    </ul>
  );
}

/** Its events, and below them its stacks. */
function Receives({ channel }: { channel: Channel }) {
  const t = useT();
  const events = channel.events.map((event) => t(eventLabel(event))).join(", ");
  const stacks =
    channel.stacks.length === 1 && channel.stacks[0] === "*"
      ? t("alerts.allStacks")
      : t("alerts.stacksList", { stacks: channel.stacks.join(", ") });
  return (
    <span className="flex min-w-0 flex-col">
      <span className="truncate" title={events}>
        {events}
      </span>
      <span className="truncate text-xs text-fg-muted" title={stacks}>
        {stacks}
      </span>
    </span>
  );
}

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
      <span className="flex flex-col">
        <StatusMark tone="danger" label={t("alerts.state.failing")} />
        <span className="text-xs text-fg-muted">{t("alerts.failingHint")}</span>
      </span>
    );
  return <StatusMark tone="success" label={t("alerts.state.on")} />;
}

/**
 * The last delivery's outcome, and what and when (below it, or `inline` beside it): the error on
 * hover when it failed.
 */
function LastDelivery({ channel, inline = false }: { channel: Channel; inline?: boolean }) {
  const t = useT();
  const last = channel.lastDelivery;
  if (!last) return <span className="text-fg-muted">{t("alerts.never")}</span>;
  return (
    <span
      className={inline ? "inline-flex flex-wrap items-center gap-x-1.5" : "flex min-w-0 flex-col"}
      title={last.error ?? undefined}
    >
      <DeliveryStatus status={last.status} />
      <span className="truncate text-xs text-fg-muted">
        {t(eventLabel(last.event as AlertEventName | "test"))} · <RelativeTime date={last.at} />
      </span>
    </span>
  );
}

function ChannelButtons({ channel, actions }: { channel: Channel; actions: ChannelActions }) {
  const t = useT();
  return (
    <div className="flex flex-wrap items-center gap-1.5 lg:flex-nowrap">
      <Button
        size="sm"
        icon={<SendIcon />}
        loading={actions.testingId === channel.id}
        aria-label={t("alerts.testOf", { name: channel.name })}
        data-focus={focusKey("test", channel)}
        onClick={() => actions.test(channel)}
      >
        {t("alerts.test")}
      </Button>
      <Button
        size="sm"
        aria-label={t("alerts.deliveriesOf", { name: channel.name })}
        data-focus={focusKey("log", channel)}
        onClick={() => actions.showLog(channel)}
      >
        {t("alerts.deliveries")}
      </Button>
      <Button
        size="sm"
        aria-label={t("alerts.editOf", { name: channel.name })}
        data-focus={focusKey("edit", channel)}
        onClick={() => actions.edit(channel)}
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

/** What a control is to the focus that comes back to it: `add`, or an action and its channel. */
const focusKey = (action: "test" | "log" | "edit", channel: Channel) => `${action}-${channel.id}`;

/**
 * Focus for a control that is not on the page yet (a form's opener shown again once it closes, a new
 * channel's row once the list has it): set names it, and it is focused on the first render that
 * shows it (the table's or the list's, whichever is visible).
 */
function useFocusLater(root: RefObject<HTMLElement | null>) {
  const wanted = useRef<string | null>(null);
  useEffect(() => {
    if (!wanted.current || !root.current) return;
    const target = [...root.current.querySelectorAll<HTMLElement>(`[data-focus="${wanted.current}"]`)].find(
      (element) => element.checkVisibility(),
    );
    if (!target) return;
    wanted.current = null;
    target.focus();
  });
  return {
    set: (key: string) => {
      wanted.current = key;
    },
    forget: () => {
      wanted.current = null;
    },
  };
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
