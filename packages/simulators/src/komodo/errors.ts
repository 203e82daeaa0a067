/** A failure answered the way Komodo answers it: an HTTP status and a `{error, trace}` body. */
export class KomodoError extends Error {
  readonly status: number;
  readonly trace: string[];

  constructor(message: string, options: { status?: number; trace?: string[] } = {}) {
    super(message);
    this.name = "KomodoError";
    this.status = options.status ?? 500;
    this.trace = options.trace ?? [];
  }

  get body(): { error: string; trace: string[] } {
    return { error: this.message, trace: this.trace };
  }
}

export function unknownStack(idOrName: string): KomodoError {
  return new KomodoError(`Did not find any Stack matching ${idOrName}`);
}

export function missingPermission(level: "Read" | "Execute" | "Write"): string {
  return `User does not have required permissions on this Stack. Must have at least ${level} permissions`;
}

/** Komodo's action-state guard refuses a second action on a resource with this text. */
export const RESOURCE_BUSY = "Resource is busy";
