import type { ReactNode } from "react";
import { cx } from "../../lib/cx.ts";
import { type Tone, toneClasses } from "./tone.ts";

/** A small pill: counts, labels, severities. */
export function Badge({ tone = "neutral", children }: { tone?: Tone; children: ReactNode }) {
  const { text, soft } = toneClasses[tone];
  return (
    <span
      className={cx(
        "inline-flex h-5 items-center gap-1 whitespace-nowrap rounded px-1.5 text-xs font-medium tabular-nums",
        text,
        soft,
      )}
    >
      {children}
    </span>
  );
}

export interface StatusMarkProps {
  tone: Tone;
  /** The word that says the state: colour never stands alone. */
  label: string;
  /** Pulses the dot for something happening right now; defaults to on for the progress tone. */
  live?: boolean;
  /** Lets the word be cut to the room it has (whole on hover); the dot always shows. */
  truncate?: boolean;
}

/** A coloured dot and the state's word, as in every list row. */
export function StatusMark({ tone, label, live = tone === "progress", truncate = false }: StatusMarkProps) {
  const { dot, text } = toneClasses[tone];
  return (
    <span
      className={cx(
        "inline-flex items-center gap-1.5 whitespace-nowrap font-medium",
        truncate && "min-w-0",
        text,
      )}
    >
      <span
        aria-hidden="true"
        className={cx("size-2 shrink-0 rounded-full", dot, live && "motion-safe:animate-pulse-dot")}
      />
      {truncate ? (
        <span className="min-w-0 truncate" title={label}>
          {label}
        </span>
      ) : (
        label
      )}
    </span>
  );
}
