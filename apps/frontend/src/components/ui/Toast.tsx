import { type ReactNode, useSyncExternalStore } from "react";
import { cx } from "../../lib/cx.ts";
import { useT } from "../I18nProvider.tsx";
import { CloseIcon } from "../icons.tsx";
import { IconButton } from "./IconButton.tsx";
import { type Tone, toneClasses } from "./tone.ts";

export interface ToastInput {
  tone?: Tone;
  title: ReactNode;
  description?: string;
  /** Milliseconds before it goes away by itself; `null` keeps it until dismissed. */
  durationMs?: number | null;
}

interface ToastEntry extends Required<Pick<ToastInput, "tone" | "title">> {
  id: number;
  description?: string;
}

const DEFAULT_DURATION_MS = 6_000;
const DANGER_DURATION_MS = 12_000;
const MAX_VISIBLE = 5;

/*
 * A page-wide store outside React: any island (or plain code such as a live-event listener) can call
 * showToast(), and the one <Toaster> in the app shell renders the queue.
 */
let entries: readonly ToastEntry[] = [];
let nextId = 1;
const listeners = new Set<() => void>();

function publish(next: readonly ToastEntry[]) {
  entries = next;
  for (const listener of listeners) listener();
}

export function showToast({ tone = "neutral", title, description, durationMs }: ToastInput): number {
  const id = nextId++;
  publish([...entries, { id, tone, title, description }].slice(-MAX_VISIBLE));
  const duration =
    durationMs === undefined ? (tone === "danger" ? DANGER_DURATION_MS : DEFAULT_DURATION_MS) : durationMs;
  if (duration !== null) setTimeout(() => dismissToast(id), duration);
  return id;
}

export function dismissToast(id: number): void {
  if (entries.some((entry) => entry.id === id)) publish(entries.filter((entry) => entry.id !== id));
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

const noEntries: readonly ToastEntry[] = [];

/** Mounted once, by the app shell. Screen readers hear each new toast (politely: never mid-word). */
export function Toaster() {
  const t = useT();
  const toasts = useSyncExternalStore(
    subscribe,
    () => entries,
    () => noEntries,
  );
  return (
    <section
      aria-label={t("ui.notifications")}
      className="pointer-events-none fixed inset-x-0 bottom-0 z-50 p-4"
    >
      <ol
        aria-live="polite"
        aria-relevant="additions"
        className="flex flex-col items-center gap-2 sm:items-end"
      >
        {toasts.map((toast) => (
          <li
            key={toast.id}
            className="pointer-events-auto flex w-full max-w-sm items-start gap-3 rounded-lg border border-line bg-surface p-3 shadow-lg"
          >
            <span
              aria-hidden="true"
              className={cx("mt-1.5 size-2 shrink-0 rounded-full", toneClasses[toast.tone].dot)}
            />
            <div className="min-w-0 flex-1">
              <p className="font-medium">{toast.title}</p>
              {toast.description && (
                <p className="mt-0.5 break-words text-fg-muted">
                  <bdi>{toast.description}</bdi>
                </p>
              )}
            </div>
            <IconButton
              size="sm"
              label={t("ui.dismiss")}
              icon={<CloseIcon className="size-3.5" />}
              onClick={() => dismissToast(toast.id)}
            />
          </li>
        ))}
      </ol>
    </section>
  );
}
