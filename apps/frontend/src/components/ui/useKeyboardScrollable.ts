import { type HTMLAttributes, useEffect, useRef, useState } from "react";

const FOCUSABLE = "a[href], button, input, select, textarea, summary, [tabindex]";

/**
 * A box that scrolls must be scrollable from the keyboard. While it overflows and holds nothing that
 * takes focus (a code snippet, a table of plain text), it becomes a focusable, labelled region; while
 * it fits, or its links and buttons already lead the keyboard through it, it stays out of the tab order.
 */
export function useKeyboardScrollable<T extends HTMLElement>(label: string | undefined) {
  const ref = useRef<T>(null);
  const [needsFocus, setNeedsFocus] = useState(false);
  useEffect(() => {
    const element = ref.current;
    if (!element || label === undefined) return;
    const measure = () =>
      setNeedsFocus(
        (element.scrollWidth > element.clientWidth || element.scrollHeight > element.clientHeight) &&
          !element.querySelector(FOCUSABLE),
      );
    measure();
    const resizes = new ResizeObserver(measure);
    resizes.observe(element);
    for (const child of element.children) resizes.observe(child);
    const changes = new MutationObserver(measure);
    changes.observe(element, { childList: true, subtree: true });
    return () => {
      resizes.disconnect();
      changes.disconnect();
    };
  }, [label]);
  const props: HTMLAttributes<T> = needsFocus ? { tabIndex: 0, role: "region", "aria-label": label } : {};
  return { ref, props };
}
