import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** Which of React's builds runs in the browser: the development one is twice the size and much slower. */
export type ReactBuild = "production" | "development";

/** A warning only React's development build has (react-dom's client, from its act() support). */
const DEVELOPMENT_TEXT = "not configured to support act";
/** Only React's production build has it: its minified errors link to their explanation. */
const PRODUCTION_TEXT = "https://react.dev/errors/";

/** Which React the built dashboard in `dist` (an Astro build's output folder) gives the browser. */
export function reactBuildOf(dist: string): ReactBuild {
  const assets = join(dist, "client/_astro");
  const scripts = readdirSync(assets)
    .filter((file) => file.endsWith(".js"))
    .map((file) => readFileSync(join(assets, file), "utf8"));
  if (scripts.some((script) => script.includes(DEVELOPMENT_TEXT))) return "development";
  if (scripts.some((script) => script.includes(PRODUCTION_TEXT))) return "production";
  throw new Error(`Neither of React's builds is in ${assets}: the texts that tell them apart need updating`);
}
