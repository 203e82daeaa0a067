import { ORPCError } from "@orpc/server";
import { deployRunPath, idempotencyKey, RESPOND_ASYNC_PREFERENCE } from "@stackgate/contract";
import type { Implementer } from "../implementer.ts";
import { IdempotencyKeyReused, UnknownRunError } from "./runs.ts";
import type { DeployService } from "./service.ts";

/** Whether a `Prefer` header (RFC 7240: comma-separated preferences, each maybe with parameters) asks for it. */
export function prefersRespondAsync(prefer: string | null): boolean {
  if (!prefer) return false;
  return prefer
    .split(",")
    .some(
      (preference) =>
        preference.split(";")[0]?.split("=")[0]?.trim().toLowerCase() === RESPOND_ASYNC_PREFERENCE,
    );
}

/** The request's Idempotency-Key, if any; a malformed one is a 400 naming the header. */
function idempotencyKeyOf(headers: Headers): string | undefined {
  const raw = headers.get("idempotency-key");
  if (raw === null) return undefined;
  const parsed = idempotencyKey.safeParse(raw.trim());
  if (!parsed.success) {
    throw new ORPCError("BAD_REQUEST", {
      message: parsed.error.issues.map((issue) => issue.message).join("; "),
    });
  }
  return parsed.data;
}

/** The deploy's own errors as HTTP answers: a reused idempotency key, an unknown run. */
async function answeringRunErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof IdempotencyKeyReused) {
      throw new ORPCError("UNPROCESSABLE_CONTENT", { status: 422, message: error.message, cause: error });
    }
    if (error instanceof UnknownRunError)
      throw new ORPCError("NOT_FOUND", { message: error.message, cause: error });
    throw error;
  }
}

export function deployProcedures(os: Implementer, { deploy }: { deploy: DeployService }) {
  return {
    run: os.deploy.run.handler(async ({ input, context }) => {
      const request = { ...input, caller: context.caller, idempotencyKey: idempotencyKeyOf(context.headers) };
      if (prefersRespondAsync(context.headers.get("prefer"))) {
        const run = await answeringRunErrors(() => deploy.start(request));
        return {
          status: 202 as const,
          headers: { location: deployRunPath(run.id), "preference-applied": RESPOND_ASYNC_PREFERENCE },
          body: { run },
        };
      }
      return { status: 200 as const, body: await answeringRunErrors(() => deploy.run(request)) };
    }),
    getRun: os.deploy.getRun.handler(async ({ input, context }) => ({
      run: await answeringRunErrors(() => deploy.find(input.id, context.caller.stacks)),
    })),
    getRunLogs: os.deploy.getRunLogs.handler(({ input, context }) =>
      answeringRunErrors(() => deploy.logs(input.id, context.caller.stacks)),
    ),
  };
}
