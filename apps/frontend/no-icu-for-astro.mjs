/**
 * No ICU data in the server's memory for Astro's own use. Its logger makes an `Intl.DateTimeFormat` as
 * its module loads, and its router orders the routes with `localeCompare`: each loads ICU's data
 * into the process for good, 10 MiB of the one process's idle memory (117 → 107 MiB RSS,
 * bench/RESULTS.md, issue 34). The formatter is made at the first log line instead, and the routes,
 * ASCII paths, are ordered by their code units. The bundled server only (the self-contained one of
 * `npm start` and the images); the build fails if Astro's code no longer reads as expected.
 */
export function noIcuForAstro() {
  return {
    name: "stackgate:no-icu-for-astro",
    applyToEnvironment: (environment) => environment.name !== "client",
    transform: rewriteForNoIcu,
  };
}

/** What the plugin changes, by the file of Astro's it changes. */
export const rewrites = [
  {
    file: "/astro/dist/core/logger/core.js",
    from: "const dateTimeFormat = new Intl.DateTimeFormat([], {",
    to: "const dateTimeFormat = stackgateLazyDateTimeFormat({",
    helper:
      "function stackgateLazyDateTimeFormat(options) { let made; return { format: (date) => (made ??= new Intl.DateTimeFormat([], options)).format(date) }; }",
  },
  {
    file: "/astro/dist/core/routing/priority.js",
    from: /(\b[\w.]+)\.localeCompare\(([\w.]+)\)/g,
    to: "stackgateByCodeUnits($1, $2)",
    helper: "function stackgateByCodeUnits(a, b) { return a < b ? -1 : a > b ? 1 : 0; }",
  },
];

/** The module `id` as the plugin gives it to Vite: rewritten when it is one of `rewrites`' files. */
export function rewriteForNoIcu(code, id) {
  const rewrite = rewrites.find(({ file }) => id.replaceAll("\\", "/").includes(file));
  if (!rewrite) return undefined;
  const rewritten = code.replace(rewrite.from, rewrite.to);
  if (rewritten === code)
    throw new Error(
      `${rewrite.file} no longer reads as stackgate:no-icu-for-astro expects: update the plugin`,
    );
  return { code: `${rewritten}\n${rewrite.helper}\n`, map: null };
}
