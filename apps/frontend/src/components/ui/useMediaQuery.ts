import { useCallback, useSyncExternalStore } from "react";

/**
 * Whether a media query matches, kept up to date. The server (and hydration) assume `serverValue`;
 * use it only for content that is rendered after data arrives, or accept one re-render.
 */
export function useMediaQuery(query: string, serverValue = false): boolean {
  const subscribe = useCallback(
    (notify: () => void) => {
      const list = window.matchMedia(query);
      list.addEventListener("change", notify);
      return () => list.removeEventListener("change", notify);
    },
    [query],
  );
  return useSyncExternalStore(
    subscribe,
    () => window.matchMedia(query).matches,
    () => serverValue,
  );
}
