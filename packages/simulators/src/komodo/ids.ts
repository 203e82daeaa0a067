/** Mongo ObjectId-shaped ids (24 hex digits), as Komodo gives every resource and Update. */

const OBJECT_ID = /^[0-9a-f]{24}$/;
const MACHINE = "5e6d4c3b2a";

export function isObjectId(value: string): boolean {
  return OBJECT_ID.test(value);
}

/**
 * Returns a generator of ids laid out like ObjectIds: seconds, a fixed "machine" part, a counter.
 * With a fixed clock the sequence is the same on every run (seeded stacks keep their ids).
 */
export function objectIdSource(clock: () => number = Date.now): () => string {
  let counter = 0;
  return () => {
    const seconds = Math.floor(clock() / 1000);
    counter = (counter + 1) % 0x1000000;
    return hex(seconds, 8) + MACHINE + hex(counter, 6);
  };
}

function hex(value: number, width: number): string {
  return value.toString(16).padStart(width, "0").slice(-width);
}
