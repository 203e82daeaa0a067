import { useSyncExternalStore } from "react";

const subscribeToNothing = () => () => {};

/**
 * False in the server render and during hydration, true once the island is interactive. For controls
 * that must not be used before their handlers exist (a form would otherwise submit natively).
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribeToNothing,
    () => true,
    () => false,
  );
}
