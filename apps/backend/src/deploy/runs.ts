import { createHash } from "node:crypto";
import { IDEMPOTENCY_KEY_HOURS } from "@stackgate/contract";
import { and, eq, lt, sql } from "drizzle-orm";
import { type Database, placeholders, type Transaction } from "../db/database.ts";
import { deployHistory, deployIdempotency } from "../db/schema.ts";
import type { Clock } from "../platform/clock.ts";
import type { DeployStep } from "./run.ts";

const KEY_LIFETIME_MS = IDEMPOTENCY_KEY_HOURS * 3_600_000;
/** Expired keys are deleted at most this often (on the next keyed request). */
const PURGE_EVERY_MS = 60_000;

/** An Idempotency-Key already used, within its lifetime, by the same owner for another request body. */
export class IdempotencyKeyReused extends Error {
  constructor() {
    super(
      "Idempotency-Key: this key was already used for a different request body (stack or action) " +
        `within the last ${IDEMPOTENCY_KEY_HOURS} hours; use a new key for a different deploy`,
    );
    this.name = "IdempotencyKeyReused";
  }
}

/** No run with this id that the caller may see. */
export class UnknownRunError extends Error {
  constructor(id: string) {
    super(`No deploy run with id '${id}'`);
    this.name = "UnknownRunError";
  }
}

/** The fingerprint of what a keyed request asks for: a repeat must ask for the same. */
export const requestHash = (request: { stack: string; action: string; settleSeconds?: number }) =>
  createHash("sha256")
    .update(
      JSON.stringify(
        // Without a settle window of its own, as before it existed: keys of the day before still match.
        request.settleSeconds === undefined
          ? [request.stack, request.action]
          : [request.stack, request.action, request.settleSeconds],
      ),
    )
    .digest("hex");

export type KeyClaim = { claimed: true } | { claimed: false; runId: string; requestHash: string };

/**
 * The runs' own rows: the step of a running run, a run by id, and the idempotency keys
 * (table `deploy_idempotency`, primary key owner + key, which decides between concurrent repeats).
 */
export function createRunStore({ db, clock }: { db: Database; clock: Clock }) {
  let purgedAt = Number.NEGATIVE_INFINITY;

  const cutoff = () => new Date(clock.now() - KEY_LIFETIME_MS);

  const updateStep = db.prepare("runs_update_step", (q) =>
    q
      .update(deployHistory)
      .set(placeholders(deployHistory, ["step", "komodoUpdates"]))
      .where(and(eq(deployHistory.id, sql.placeholder("id")), eq(deployHistory.running, true))),
  );
  const selectRun = db.prepare("runs_select", (q) =>
    q
      .select()
      .from(deployHistory)
      .where(eq(deployHistory.id, sql.placeholder("id"))),
  );

  return {
    /**
     * The step a running run is on, and Komodo's Updates of its steps so far (the last one this
     * step's): another backend reads a cut run's real outcome there.
     */
    async setStep(id: string, step: DeployStep, komodoUpdates: string[]) {
      await db.transaction((tx) => updateStep.execute({ id, step, komodoUpdates }, tx));
    },

    async find(id: string) {
      const [run] = await selectRun.execute({ id });
      return run;
    },

    /**
     * Takes the key for a new run and records that run (`record`, the history's running row) in
     * the same transaction, so that neither exists without the other. When the owner already used
     * the key within its lifetime, nothing is written and the earlier run is answered: while it is
     * going or once it succeeded, or whatever it did when the body differs (the caller's 422). A run
     * of the key that failed or was interrupted (or is no longer in the history) hands the key over
     * to the new run: a retry.
     */
    async claim(
      claim: { ownerId: string; key: string; requestHash: string; runId: string },
      record: (tx: Transaction) => Promise<unknown>,
    ): Promise<KeyClaim> {
      const now = clock.now();
      if (now - purgedAt >= PURGE_EVERY_MS) {
        purgedAt = now;
        await db.transaction((tx) =>
          tx.delete(deployIdempotency).where(lt(deployIdempotency.createdAt, cutoff())),
        );
      }
      return db.transaction(async (tx): Promise<KeyClaim> => {
        const sameKey = and(
          eq(deployIdempotency.ownerId, claim.ownerId),
          eq(deployIdempotency.key, claim.key),
        );
        // A key past its lifetime that the purge has not reached yet is free again.
        await tx.delete(deployIdempotency).where(and(sameKey, lt(deployIdempotency.createdAt, cutoff())));
        const inserted = await tx
          .insert(deployIdempotency)
          .values({ ...claim, createdAt: new Date(now) })
          .onConflictDoNothing()
          .returning({ runId: deployIdempotency.runId });
        if (inserted.length === 0) {
          const [earlier] = await tx.select().from(deployIdempotency).where(sameKey);
          if (earlier) {
            const refused = {
              claimed: false as const,
              runId: earlier.runId,
              requestHash: earlier.requestHash,
            };
            if (earlier.requestHash !== claim.requestHash) return refused;
            const [run] = await tx
              .select({ running: deployHistory.running, success: deployHistory.success })
              .from(deployHistory)
              .where(eq(deployHistory.id, earlier.runId));
            if (run && (run.running || run.success)) return refused;
            // Only if no concurrent retry took the key first (PostgreSQL re-checks the row it waited for).
            const handedOver = await tx
              .update(deployIdempotency)
              .set({ runId: claim.runId, createdAt: new Date(now) })
              .where(and(sameKey, eq(deployIdempotency.runId, earlier.runId)))
              .returning({ runId: deployIdempotency.runId });
            if (handedOver.length === 0) {
              const [taken] = await tx.select().from(deployIdempotency).where(sameKey);
              return taken ? { claimed: false, runId: taken.runId, requestHash: taken.requestHash } : refused;
            }
          }
        }
        await record(tx);
        return { claimed: true };
      });
    },
  };
}

export type RunStore = ReturnType<typeof createRunStore>;
