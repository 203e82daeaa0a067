import { CliError, EXIT } from "../exit.ts";
import { unexpectedAnswer } from "../http.ts";
import { table } from "../table.ts";
import { type CommandContext, type Flags, printJson } from "./context.ts";

interface HistoryEntry {
  createdAt: string;
  actor: string;
  stack: string;
  action: string;
  success: boolean;
  message: string;
}

export async function historyCommand(context: CommandContext, flags: Flags): Promise<number> {
  const query = new URLSearchParams();
  if (typeof flags.stack === "string") query.set("stack", flags.stack);
  const limit = typeof flags.limit === "string" ? Number(flags.limit) : 20;
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    throw new CliError("--limit must be a whole number from 1 to 100", EXIT.usage);
  query.set("limit", String(limit));
  const answer = await context.api.call("GET", `/api/v0/history?${query}`, {
    retryUntil: Date.now() + 30_000,
  });
  if (answer.status !== 200) throw unexpectedAnswer(answer, "read the history");
  if (context.json) {
    printJson(context, answer.json);
    return 0;
  }
  const history: HistoryEntry[] = answer.json.history;
  if (history.length === 0) {
    context.stdout.write("No finished deploys yet.\n");
    return 0;
  }
  const rows = history.map((entry) => [
    entry.createdAt.replace("T", " ").replace(/\.\d+Z$/, "Z"),
    entry.stack,
    entry.action,
    entry.success ? "ok" : "FAILED",
    entry.actor,
    entry.message.split("\n")[0].slice(0, 120),
  ]);
  context.stdout.write(`${table(["WHEN (UTC)", "STACK", "ACTION", "RESULT", "BY", "MESSAGE"], rows)}\n`);
  return 0;
}
