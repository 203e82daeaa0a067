import { ORPCError } from "@orpc/server";
import { NoConnectionError } from "../connection/service.ts";
import { UpstreamError } from "./komodo-client.ts";

/** Runs an upstream call and answers its expected failures: no connection 503, Komodo's refusal 502. */
export async function answeringUpstreamFailures<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof NoConnectionError) {
      throw new ORPCError("SERVICE_UNAVAILABLE", { status: 503, message: error.message });
    }
    if (error instanceof UpstreamError)
      throw new ORPCError("BAD_GATEWAY", { status: 502, message: error.message });
    throw error;
  }
}
