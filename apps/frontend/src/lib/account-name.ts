import { useEffect, useState } from "react";

/**
 * One's own name changes on the settings page while the header, another island, shows it too: the
 * settings page announces the new name on the window, and the header follows.
 */
const RENAMED = "stackgate:renamed";

export function announceOwnName(name: string): void {
  window.dispatchEvent(new CustomEvent<string>(RENAMED, { detail: name }));
}

/** The signed-in person's name: as the page was rendered with, then as announced. */
export function useOwnName(rendered: string): string {
  const [name, setName] = useState(rendered);
  useEffect(() => {
    const follow = (event: Event) => setName((event as CustomEvent<string>).detail);
    window.addEventListener(RENAMED, follow);
    return () => window.removeEventListener(RENAMED, follow);
  }, []);
  return name;
}
