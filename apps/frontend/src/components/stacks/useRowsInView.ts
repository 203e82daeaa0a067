import { type RefObject, useEffect, useRef, useState } from "react";

/** A little more than a screenful of rows: a laptop's in the table, a phone's in the compact list. */
const FIRST_ROWS = { table: 30, compact: 12 } as const;
/** Added each time the end of the rendered rows comes near. */
const MORE_ROWS = 50;
/** How far ahead of the end the next rows are rendered, so scrolling never meets an empty end. */
const AHEAD = "800px";

/**
 * The element that scrolls `element`: the table's own container, or the page (null). Not asked for
 * the compact list, which scrolls with the page: getComputedStyle right after new rows forces their
 * styles in the same task (33 ms per load on a phone, 4× slowed down).
 */
function scrollingAncestor(element: Element): Element | null {
  for (let around = element.parentElement; around; around = around.parentElement) {
    if (/(auto|scroll)/.test(getComputedStyle(around).overflowY)) return around;
  }
  return null;
}

/**
 * Renders a long list a screenful at a time: the first rows at once, then more whenever the marker
 * after the last rendered row comes within reach of the scrolled view (scrolling, or Tab moving
 * through the rows). With 200 stacks this keeps the DOM and the hydration work to what is in view.
 * The marker goes after the rendered rows; `more` says whether rows are still held back.
 */
export function useRowsInView<Item>(
  items: readonly Item[] | undefined,
  layout: keyof typeof FIRST_ROWS,
): {
  visible: readonly Item[] | undefined;
  more: boolean;
  markerRef: RefObject<HTMLElement | null>;
} {
  const [added, setAdded] = useState(0);
  const count = FIRST_ROWS[layout] + added;
  const markerRef = useRef<HTMLElement | null>(null);
  const more = items !== undefined && items.length > count;

  // biome-ignore lint/correctness/useExhaustiveDependencies: observing again after each step: a marker still in reach reports at once, one that stayed in reach would not report again
  useEffect(() => {
    const marker = markerRef.current;
    if (!more || !marker) return;
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((entry) => entry.isIntersecting)) setAdded((current) => current + MORE_ROWS);
      },
      { root: layout === "compact" ? null : scrollingAncestor(marker), rootMargin: AHEAD },
    );
    observer.observe(marker);
    return () => observer.disconnect();
  }, [more, count, layout]);

  return { visible: more ? items.slice(0, count) : items, more, markerRef };
}
