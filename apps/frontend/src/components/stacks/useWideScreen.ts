import { useSyncExternalStore } from "react";

/** Tailwind's `lg`: from here the stacks show as a table, below as the compact list. */
const WIDE = "(min-width: 1024px)";

function subscribe(notify: () => void) {
  const query = window.matchMedia(WIDE);
  query.addEventListener("change", notify);
  return () => query.removeEventListener("change", notify);
}

/**
 * Whether the table fits, so that only the layout in use is built (building both and hiding one with
 * CSS doubled the DOM). Only for content the server does not render (the Stacks page's rows come after
 * hydration): the server's answer (`undefined`) would otherwise be swapped on a phone.
 */
export function useWideScreen(): boolean | undefined {
  return useSyncExternalStore(
    subscribe,
    () => window.matchMedia(WIDE).matches,
    () => undefined,
  );
}
