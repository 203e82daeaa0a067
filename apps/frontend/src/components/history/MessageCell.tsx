import { useState } from "react";
import { cx } from "../../lib/cx.ts";
import { type DeployResult, deployResultMessage } from "../../lib/deploy-result.ts";
import { useT } from "../I18nProvider.tsx";

/**
 * A deploy's message, in the dashboard's language for a success, cut to one line (the full text on
 * hover); pressing it shows it whole, wrapped, so a long Komodo failure can be read without a mouse.
 * `className` sets the width it is cut to.
 */
export function MessageCell({ result, className }: { result: DeployResult; className?: string }) {
  const t = useT();
  const message = deployResultMessage(result, t);
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
        result.success ? "text-fg-muted" : "text-fg",
        className,
      )}
    >
      <bdi>{message}</bdi>
    </button>
  );
}
