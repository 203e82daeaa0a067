import { unexpectedAnswer } from "../http.ts";
import { table } from "../table.ts";
import { type CommandContext, printJson } from "./context.ts";

interface StackEntry {
  name: string;
  state: string;
  status: string | null;
  info: { services: Array<{ image: string; update_available: boolean }> };
}

export async function stacksCommand(context: CommandContext): Promise<number> {
  const answer = await context.api.call("GET", "/api/v0/stacks", { retryUntil: Date.now() + 30_000 });
  if (answer.status !== 200) throw unexpectedAnswer(answer, "list the stacks");
  if (context.json) {
    printJson(context, answer.json);
    return 0;
  }
  const stacks: StackEntry[] = answer.json.stacks;
  if (stacks.length === 0) {
    context.stdout.write("No stacks (none in Komodo, or none this key may see).\n");
    return 0;
  }
  const rows = stacks.map((stack) => [
    stack.name,
    stack.state,
    stack.status ?? "",
    stack.info.services.map((service) => service.image + (service.update_available ? " *" : "")).join(", "),
  ]);
  context.stdout.write(`${table(["STACK", "STATE", "STATUS", "IMAGES (* update available)"], rows)}\n`);
  return 0;
}
