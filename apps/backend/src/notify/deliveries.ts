import { randomUUID } from "node:crypto";
import type { deliveryAttempt } from "@stackgate/contract";
import { and, desc, eq, inArray, notInArray } from "drizzle-orm";
import type { z } from "zod";
import type { Cluster } from "../db/cluster.ts";
import type { Database } from "../db/database.ts";
import { alertDelivery } from "../db/schema.ts";
import type { Clock } from "../platform/clock.ts";
import type { Logger } from "../platform/logger.ts";
import type { AlertEventType } from "./alert.ts";
import type { ChannelRow, ChannelStore } from "./channels.ts";
import type { Attempt } from "./kinds/attempt.ts";
import { sendFor } from "./kinds/index.ts";
import type { AlertMessage } from "./message.ts";

type StoredAttempt = z.input<typeof deliveryAttempt>;
export type DeliveryRow = typeof alertDelivery.$inferSelect;

/** The log keeps this many deliveries per channel. */
export const DELIVERY_LOG_SIZE = 200;
/** A channel whose last this many deliveries all failed is failing. */
const FAILING_AFTER = 10;
/** Alerts one channel may have waiting at once; more are recorded as dropped. */
const MAX_WAITING_PER_CHANNEL = 100;
/** Sends under way at once, over all channels. */
const CONCURRENT_SENDS = 8;

const UNFINISHED = ["sending", "retrying"] as const;
const ABANDONED = "Stackgate stopped before this alert was delivered; it is not sent again";

export interface RetryPolicy {
  timeoutMs: number;
  /** The waits before the second, third… try: as many retries as there are waits. */
  delaysMs: readonly number[];
  /** No try starts later than this after the first. */
  windowMs: number;
}

/**
 * The queue between events and services, and the log of what came of each alert. A delivery is
 * claimed in the database before it is sent: one row per (channel, event), so an event reported
 * twice, on one backend or two, reaches each channel once. Sends run in the background, so neither
 * a deploy nor another channel waits for a slow one; each retries network errors, 5xx and 429 within
 * the policy, and every attempt is written to the row.
 */
export function createDeliveries({
  db,
  clock,
  logger,
  cluster,
  channels,
  policy,
}: {
  db: Database;
  clock: Clock;
  logger: Logger;
  cluster: Cluster;
  channels: ChannelStore;
  policy: RetryPolicy;
}) {
  const stopping = new AbortController();
  const waiting = new Map<string, number>();
  const running = new Set<Promise<unknown>>();
  const slots = createSlots(CONCURRENT_SENDS);
  let lastAt = 0;
  let sameMoment = 0;
  // Ids that sort as they were made, so the log reads in order within one millisecond too.
  const newId = (at: number) => {
    sameMoment = at === lastAt ? sameMoment + 1 : 0;
    lastAt = at;
    return `${at.toString(36).padStart(9, "0")}${sameMoment.toString(36).padStart(4, "0")}-${randomUUID()}`;
  };

  /** Inserts the delivery's row unless this (channel, event) has one; prunes the channel's log. */
  async function claim(channel: ChannelRow, eventId: string, message: AlertMessage): Promise<string | null> {
    const at = clock.now();
    const id = newId(at);
    return db.transaction(async (tx) => {
      const inserted = await tx
        .insert(alertDelivery)
        .values({
          id,
          channelId: channel.id,
          eventId,
          event: message.event,
          stack: message.stack,
          summary: message.title,
          status: "sending",
          attempts: [],
          runner: cluster.id,
          createdAt: new Date(at),
          updatedAt: new Date(at),
        })
        .onConflictDoNothing({ target: [alertDelivery.channelId, alertDelivery.eventId] })
        .returning({ id: alertDelivery.id });
      if (inserted.length === 0) return null;
      const kept = tx
        .select({ id: alertDelivery.id })
        .from(alertDelivery)
        .where(eq(alertDelivery.channelId, channel.id))
        .orderBy(desc(alertDelivery.createdAt), desc(alertDelivery.id))
        .limit(DELIVERY_LOG_SIZE);
      await tx
        .delete(alertDelivery)
        .where(and(eq(alertDelivery.channelId, channel.id), notInArray(alertDelivery.id, kept)));
      return id;
    });
  }

  async function record(id: string, status: DeliveryRow["status"], attempts: StoredAttempt[]) {
    await db.transaction((tx) =>
      tx
        .update(alertDelivery)
        .set({
          status,
          attempts,
          runner: status === "sending" || status === "retrying" ? cluster.id : null,
          updatedAt: new Date(clock.now()),
        })
        .where(eq(alertDelivery.id, id)),
    );
  }

  const describeFailure = (event: AlertEventType) =>
    event === "deploy.failed"
      ? "failure alert not delivered"
      : event === "vulnerability.new"
        ? "vulnerability alert not delivered"
        : "alert not delivered";

  /**
   * Sends one claimed delivery, with its retries. Resolves with the first attempt (or null when
   * there was none: the channel went away); the retries go on in the background.
   */
  function send(id: string, channelId: string, message: AlertMessage, { retries }: { retries: boolean }) {
    let firstAttempt!: (attempt: Attempt | null) => void;
    const first = new Promise<Attempt | null>((resolve) => {
      firstAttempt = resolve;
    });
    const started = clock.now();
    const attempts: StoredAttempt[] = [];
    const log = { channel: channelId, event: message.event, stack: message.stack ?? undefined };

    const finish = async (status: DeliveryRow["status"], note?: string) => {
      if (note) attempts.push({ at: new Date(clock.now()), delivered: false, status: null, error: note });
      await record(id, status, attempts);
    };

    const work = (async () => {
      for (let number = 1; ; number++) {
        const current = await channels.find(channelId);
        // Removed meanwhile: its log went with it.
        if (!current) return firstAttempt(null);
        if (!current.enabled && message.event !== "test") {
          await finish("failed", "the channel was turned off before this alert was delivered");
          return firstAttempt(null);
        }
        const at = clock.now();
        const attempt = await slots.run(() =>
          sendFor(current.kind)(
            { settings: current.settings, secrets: channels.secretsOf(current) },
            message,
            { timeoutMs: policy.timeoutMs, deliveryId: id, now: () => clock.now(), signal: stopping.signal },
          ),
        );
        attempts.push({
          at: new Date(at),
          delivered: attempt.delivered,
          status: attempt.status,
          error: attempt.delivered ? null : attempt.message,
        });
        let status: DeliveryRow["status"] = attempt.delivered ? "delivered" : "failed";
        let delay = 0;
        if (!attempt.delivered && attempt.retry && retries && number <= policy.delaysMs.length) {
          delay = Math.max(policy.delaysMs[number - 1]!, attempt.retryAfterMs ?? 0);
          if (clock.now() + delay - started <= policy.windowMs) status = "retrying";
          else
            attempts.at(-1)!.error +=
              ` (not tried again: the next try would come ${Math.ceil(delay / 1000)} s later, after the ` +
              `${policy.windowMs >= 60_000 ? `${Math.round(policy.windowMs / 60_000)}-minute` : `${Math.round(policy.windowMs / 1000)}-second`} window)`;
        }
        await record(id, status, attempts);
        if (attempt.delivered) logger.info({ ...log, attempt: number }, "alert delivered");
        else
          logger.warn(
            {
              ...log,
              attempt: number,
              reason: attempts.at(-1)!.error,
              retryInMs: status === "retrying" ? delay : undefined,
            },
            describeFailure(message.event),
          );
        if (number === 1) firstAttempt(attempt);
        if (status !== "retrying") return;
        if (!(await sleep(delay, stopping.signal))) return finish("failed", ABANDONED);
      }
    })()
      .catch((error: unknown) => {
        logger.warn({ err: error, ...log }, "an alert's delivery could not be recorded");
        firstAttempt(null);
      })
      .finally(() => {
        running.delete(work);
        waiting.set(channelId, (waiting.get(channelId) ?? 1) - 1);
      });
    waiting.set(channelId, (waiting.get(channelId) ?? 0) + 1);
    running.add(work);
    return first;
  }

  return {
    /**
     * Queues `message` for `channel` unless it already has this event. Resolves with the first
     * attempt's outcome (null when another backend has the event, or none was made), never rejects.
     */
    async deliver(channel: ChannelRow, eventId: string, message: AlertMessage): Promise<Attempt | null> {
      if (stopping.signal.aborted) return null;
      try {
        const id = await claim(channel, eventId, message);
        if (id === null) return null;
        if ((waiting.get(channel.id) ?? 0) >= MAX_WAITING_PER_CHANNEL) {
          await record(id, "failed", [
            {
              at: new Date(clock.now()),
              delivered: false,
              status: null,
              error: `dropped: ${MAX_WAITING_PER_CHANNEL} alerts were already waiting for this channel`,
            },
          ]);
          return null;
        }
        return await send(id, channel.id, message, { retries: true });
      } catch (error) {
        logger.warn(
          { err: error, channel: channel.id, event: message.event },
          "an alert could not be queued",
        );
        return null;
      }
    },

    /** Sends `message` once, at once, and keeps it in the log; resolves with what the service answered. */
    async test(channel: ChannelRow, message: AlertMessage): Promise<Attempt> {
      const id = await claim(channel, `test:${randomUUID()}`, message);
      const attempt = id ? await send(id, channel.id, message, { retries: false }) : null;
      return (
        attempt ?? {
          delivered: false,
          status: null,
          retry: false,
          message: "The channel was removed meanwhile",
        }
      );
    },

    /** The channel's log, newest first. */
    list: (channelId: string) =>
      db
        .select()
        .from(alertDelivery)
        .where(eq(alertDelivery.channelId, channelId))
        .orderBy(desc(alertDelivery.createdAt), desc(alertDelivery.id))
        .limit(DELIVERY_LOG_SIZE),

    /** Whether the channel's last deliveries all failed, and its last delivery. */
    async stateOf(channelId: string) {
      const recent = await db
        .select({
          createdAt: alertDelivery.createdAt,
          event: alertDelivery.event,
          status: alertDelivery.status,
          attempts: alertDelivery.attempts,
        })
        .from(alertDelivery)
        .where(eq(alertDelivery.channelId, channelId))
        .orderBy(desc(alertDelivery.createdAt), desc(alertDelivery.id))
        .limit(FAILING_AFTER + MAX_WAITING_PER_CHANNEL);
      const finished = recent
        .filter((row) => row.status === "delivered" || row.status === "failed")
        .slice(0, FAILING_AFTER);
      const last = recent[0];
      return {
        failing: finished.length === FAILING_AFTER && finished.every((row) => row.status === "failed"),
        lastDelivery: last
          ? { at: last.createdAt, event: last.event, status: last.status, error: lastError(last.attempts) }
          : null,
      };
    },

    /** Records the deliveries left under way by backends that are gone as failed; none is sent again. */
    async abandonGone() {
      const runners = await db
        .selectDistinct({ runner: alertDelivery.runner })
        .from(alertDelivery)
        .where(inArray(alertDelivery.status, [...UNFINISHED]));
      for (const { runner } of runners) {
        if (runner === cluster.id || !(await cluster.isGone(runner))) continue;
        const rows = await db
          .select()
          .from(alertDelivery)
          .where(and(eq(alertDelivery.runner, runner ?? ""), inArray(alertDelivery.status, [...UNFINISHED])));
        for (const row of rows) {
          await db.transaction((tx) =>
            tx
              .update(alertDelivery)
              .set({
                status: "failed",
                runner: null,
                attempts: [
                  ...row.attempts,
                  { at: new Date(clock.now()), delivered: false, status: null, error: ABANDONED },
                ],
                updatedAt: new Date(clock.now()),
              })
              .where(and(eq(alertDelivery.id, row.id), inArray(alertDelivery.status, [...UNFINISHED]))),
          );
        }
      }
    },

    /** Waits for every first attempt under way and the retries due; for tests. */
    idle: () => Promise.all([...running]).then(() => {}),

    /** Stops: no more alerts are taken, retries waiting are abandoned (and recorded so). */
    async close() {
      stopping.abort();
      await Promise.all([...running]);
    },
  };
}

export type Deliveries = ReturnType<typeof createDeliveries>;

const lastError = (attempts: StoredAttempt[]) => {
  const last = attempts.at(-1);
  return last && !last.delivered ? (last.error ?? null) : null;
};

/** Resolves true after `ms`, or false at once when `signal` aborts first. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", stop);
      resolve(true);
    }, ms);
    timer.unref();
    const stop = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener("abort", stop, { once: true });
  });
}

/** At most `size` pieces of work at once; the rest wait their turn. */
function createSlots(size: number) {
  let free = size;
  const queue: (() => void)[] = [];
  return {
    async run<T>(work: () => Promise<T>): Promise<T> {
      if (free === 0) await new Promise<void>((resolve) => queue.push(resolve));
      else free--;
      try {
        return await work();
      } finally {
        const next = queue.shift();
        if (next) next();
        else free++;
      }
    },
  };
}
