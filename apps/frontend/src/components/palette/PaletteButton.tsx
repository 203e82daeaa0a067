import { lazy, Suspense, useEffect, useState, useSyncExternalStore } from "react";
import type { IslandProps } from "../AppProviders.tsx";
import { useT } from "../I18nProvider.tsx";

// Loaded on first use: the palette and the stack list it searches cost nothing until then.
const CommandPalette = lazy(() => import("./CommandPalette.tsx"));

/** Ctrl+K / ⌘K from anywhere on the page. */
function isPaletteShortcut(event: KeyboardEvent): boolean {
  return (
    event.key.toLowerCase() === "k" && (event.ctrlKey || event.metaKey) && !event.altKey && !event.shiftKey
  );
}

const subscribeToNothing = () => () => {};

/** Whether the shortcut reads ⌘K: false on the server and during hydration, so both render the same. */
function useIsApple(): boolean {
  return useSyncExternalStore(
    subscribeToNothing,
    () => /Mac|iPhone|iPad/.test(navigator.platform),
    () => false,
  );
}

/** The header's search button (for touch) and the keyboard shortcut, both opening the command palette. */
export function PaletteButton({ lang, role }: IslandProps) {
  const t = useT();
  const [open, setOpen] = useState(false);
  const [loaded, setLoaded] = useState(false);
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (!isPaletteShortcut(event)) return;
      event.preventDefault();
      setLoaded(true);
      setOpen(true);
    };
    document.addEventListener("keydown", onKeyDown);
    return () => document.removeEventListener("keydown", onKeyDown);
  }, []);
  const mac = useIsApple();
  return (
    <>
      <button
        type="button"
        aria-haspopup="dialog"
        aria-keyshortcuts="Control+K Meta+K"
        onClick={() => {
          setLoaded(true);
          setOpen(true);
        }}
        className="flex h-8 items-center gap-2 rounded-md border border-control/60 px-2 text-sm text-fg-muted hover:bg-surface-muted hover:text-fg"
      >
        <svg
          viewBox="0 0 24 24"
          fill="none"
          stroke="currentColor"
          strokeWidth={2}
          aria-hidden="true"
          className="size-4"
        >
          <circle cx="11" cy="11" r="7" />
          <path d="m20 20-4-4" strokeLinecap="round" />
        </svg>
        <span className="sr-only lg:not-sr-only">{t("palette.open")}</span>
        <kbd className="hidden rounded border border-line px-1 font-sans text-xs lg:inline">
          {mac ? "⌘K" : "Ctrl K"}
        </kbd>
      </button>
      {loaded && (
        <Suspense fallback={null}>
          <CommandPalette lang={lang} role={role} open={open} onClose={() => setOpen(false)} />
        </Suspense>
      )}
    </>
  );
}
