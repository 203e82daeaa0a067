import { ORPCError, ValidationError } from "@orpc/server";
import { CredentialsInUrlError, CredentialsRejectedError, NoConnectionError } from "./connection/service.ts";
import { databaseOutage } from "./db/outage.ts";
import { DeployFailure, type DeployFailureKind } from "./deploy/service.ts";
import { StackOutOfSight } from "./identity/apikeys/scope.ts";
import { PeopleError } from "./identity/people/service.ts";
import { ChannelError } from "./notify/channels.ts";
import { ImagesNotInUseError, UnknownImageError } from "./scans/service.ts";
import { UpstreamError } from "./upstream/errors.ts";

/*
 * The one place the services' errors become HTTP answers. Services throw their own errors and
 * know no status codes; procedures let them through; both handlers (REST and RPC) and the routes
 * outside oRPC (sign-in) answer them here.
 */

const deployFailureStatus: Record<DeployFailureKind, 404 | 502 | 503 | 504> = {
  "komodo-failed": 502,
  "unknown-stack": 404,
  unexpected: 502,
  unavailable: 503,
  "timed-out": 504,
};

const peopleErrorCodes = {
  "bad-input": ["BAD_REQUEST", 400],
  "not-found": ["NOT_FOUND", 404],
  conflict: ["CONFLICT", 409],
  gone: ["GONE", 410],
} as const;

const statusCodes = {
  404: "NOT_FOUND",
  502: "BAD_GATEWAY",
  503: "SERVICE_UNAVAILABLE",
  504: "GATEWAY_TIMEOUT",
} as const;

/** Turns a validation failure into a sentence naming each offending field. */
function describeValidationError(error: ValidationError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path
        ?.map((segment) => (typeof segment === "object" ? segment.key : segment))
        .join(".");
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join("; ");
}

/** The answer to an error the API expects; undefined for a bug (answered 500 by oRPC or Hono). */
export function answerTo(error: unknown): ORPCError<string, unknown> | undefined {
  if (error instanceof ORPCError) {
    if (error.code === "BAD_REQUEST" && error.cause instanceof ValidationError) {
      return new ORPCError("BAD_REQUEST", {
        message: describeValidationError(error.cause),
        cause: error.cause,
      });
    }
    return error;
  }
  if (error instanceof DeployFailure) {
    const status = deployFailureStatus[error.kind];
    // Deploy failures carry `success`, `stack` and `action` beside the message, for pipelines.
    return new ORPCError(statusCodes[status], {
      status,
      message: error.message,
      data: { success: false, ...error.target },
      cause: error,
    });
  }
  if (error instanceof PeopleError || error instanceof ChannelError) {
    const [code, status] = peopleErrorCodes[error.kind];
    return new ORPCError(code, { status, message: error.message, cause: error });
  }
  if (error instanceof StackOutOfSight)
    return new ORPCError("NOT_FOUND", { message: error.message, cause: error });
  if (error instanceof NoConnectionError) {
    return new ORPCError("SERVICE_UNAVAILABLE", { status: 503, message: error.message, cause: error });
  }
  if (error instanceof UpstreamError) {
    return new ORPCError("BAD_GATEWAY", { status: 502, message: error.message, cause: error });
  }
  if (error instanceof CredentialsInUrlError) {
    return new ORPCError("BAD_REQUEST", { message: error.message, cause: error });
  }
  if (error instanceof CredentialsRejectedError) {
    return new ORPCError("UNPROCESSABLE_CONTENT", { status: 422, message: error.message, cause: error });
  }
  if (error instanceof UnknownImageError) {
    return new ORPCError("NOT_FOUND", { message: error.message, cause: error });
  }
  if (error instanceof ImagesNotInUseError) {
    return new ORPCError("BAD_REQUEST", {
      message: error.message,
      data: { images: error.images },
      cause: error,
    });
  }
  const outage = databaseOutage(error);
  if (outage) {
    return new ORPCError("SERVICE_UNAVAILABLE", { status: 503, message: outage.message, cause: error });
  }
  return undefined;
}

/** oRPC interceptor: every procedure's expected errors are answered by `answerTo`. */
export async function answeringDomainErrors<T>({ next }: { next: () => Promise<T> }): Promise<T> {
  try {
    return await next();
  } catch (error) {
    throw answerTo(error) ?? error;
  }
}
