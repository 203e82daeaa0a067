import type { Api } from "../http.ts";

export interface Output {
  write(text: string): unknown;
  isTTY?: boolean;
}

/** What every command is given: the API, where to print, and whether to print JSON. */
export interface CommandContext {
  api: Api;
  stdout: Output;
  stderr: Output;
  json: boolean;
}

/** A command's flags as parsed, by name. */
export type Flags = Record<string, string | boolean | undefined>;

export const printJson = (context: CommandContext, value: unknown) =>
  context.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
