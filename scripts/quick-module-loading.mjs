// Preloaded (`--import`) into every Node process the tests start, which load the backend from its
// sources: Node 24 parses a package's whole `exports` map again for each of the package's files it
// loads (`deserializePackageJSON` spreads the lazy getter), and drizzle-orm's is 178 KB over a few
// hundred files: 0.7 s of CPU per start, a third of loading the backend. drizzle-orm's own imports
// are relative `.js` files of an ES module package, so they resolve here without that lookup. The
// production bundle holds drizzle-orm and never pays it.
import * as nodeModule from "node:module";

const DRIZZLE = "/node_modules/drizzle-orm/";

// Node 20 (the CLI's oldest supported) has no synchronous hooks; it loads as before.
nodeModule.registerHooks?.({
  resolve(specifier, context, nextResolve) {
    const parent = context.parentURL;
    if (parent?.includes(DRIZZLE) && specifier.startsWith(".") && specifier.endsWith(".js")) {
      return { url: new URL(specifier, parent).href, format: "module", shortCircuit: true };
    }
    return nextResolve(specifier, context);
  },
});
