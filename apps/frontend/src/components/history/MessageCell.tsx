import { useState } from "react";
import { cx } from "../../lib/cx.ts";
import { useT } from "../I18nProvider.tsx";

/**
 * A message cut to one line (the full text on hover); pressing it shows it whole, wrapped, so a long
 * Komodo failure can be read without a mouse. `className` sets the width it is cut to.
 */
export function MessageCell({
  message,
  failed,
  className,
}: {
  message: string;
  failed: boolean;
  className?: string;
}) {
  const t = useT();
  const [expanded, setExpanded] = useState(false);
  return (
    <button
      type="button"
      aria-expanded={expanded}
      title={expanded ? undefined : message}
      aria-label={expanded ? undefined : `${message} (${t("history.showFullMessage")})`}
      onClick={() => setExpanded(!expanded)}
      className={cx(
        "block cursor-pointer rounded-sm text-left",
        expanded ? "whitespace-pre-wrap break-words py-1" : "truncate",
        failed ? "text-fg" : "text-fg-muted",
        className,
      )}
    >
      <bdi>{message}</bdi>
    </button>
  );
}
