/**
 * The palette for meaning (UI.md), one set used everywhere:
 * - success  (green):   running, success, done
 * - progress (blue):    deploying, scanning, queued, in progress
 * - neutral  (grey):    stopped, down, unknown, never scanned
 * - warning  (amber):   unhealthy, restarting, update available, medium severity
 * - danger   (red):     failed, dead, high severity
 * - critical (magenta): critical severity
 * Colour never stands alone: every use pairs it with a word.
 */
export type Tone = "success" | "progress" | "neutral" | "warning" | "danger" | "critical";

/** Full class names (Tailwind only generates classes it finds written out in the source). */
export const toneClasses: Record<Tone, { dot: string; text: string; soft: string }> = {
  success: { dot: "bg-success", text: "text-success-text", soft: "bg-success-soft" },
  progress: { dot: "bg-progress", text: "text-progress-text", soft: "bg-progress-soft" },
  neutral: { dot: "bg-neutral", text: "text-neutral-text", soft: "bg-neutral-soft" },
  warning: { dot: "bg-warning", text: "text-warning-text", soft: "bg-warning-soft" },
  danger: { dot: "bg-danger", text: "text-danger-text", soft: "bg-danger-soft" },
  critical: { dot: "bg-critical", text: "text-critical-text", soft: "bg-critical-soft" },
};
