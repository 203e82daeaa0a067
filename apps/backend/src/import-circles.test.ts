import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { expect, it } from "vitest";

/**
 * The backend's modules import one another without a circle: identity (the caller, sessions,
 * people, keys) above the audit, features above identity. A circle (audit → caller → keys → audit
 * was one) means no layer can be read or tested without the others.
 */
it("the backend's modules import one another without a circle", () => {
  const root = import.meta.dirname;
  const modules = readdirSync(root, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts"))
    .map((file) => join(root, file));
  const known = new Set(modules);
  const imports = new Map(
    modules.map((file) => [
      file,
      [...readFileSync(file, "utf8").matchAll(/from\s+"(\.{1,2}\/[^"]+)"/g)]
        .map((match) => resolve(dirname(file), match[1]!))
        .filter((target) => known.has(target)),
    ]),
  );
  const circles: string[] = [];
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (file: string) => {
    state.set(file, "open");
    path.push(file);
    for (const target of imports.get(file) ?? []) {
      if (state.get(target) === "open")
        circles.push(
          [...path.slice(path.indexOf(target)), target].map((each) => relative(root, each)).join(" → "),
        );
      else if (!state.has(target)) visit(target);
    }
    path.pop();
    state.set(file, "done");
  };
  for (const file of modules) if (!state.has(file)) visit(file);
  expect(circles).toEqual([]);
});
