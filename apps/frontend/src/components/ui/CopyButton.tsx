import { useEffect, useState } from "react";
import { useT } from "../I18nProvider.tsx";
import { CheckIcon, CopyIcon } from "../icons.tsx";
import { IconButton } from "./IconButton.tsx";

const FEEDBACK_MS = 2_000;

/**
 * navigator.clipboard exists only in secure contexts; a self-hosted dashboard is often plain http on a
 * LAN address, where the older execCommand route still works.
 */
async function copyText(text: string): Promise<void> {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return;
  }
  const scratch = document.createElement("textarea");
  scratch.value = text;
  scratch.setAttribute("readonly", "");
  scratch.className = "fixed -left-[9999px] top-0";
  document.body.append(scratch);
  scratch.select();
  const copied = document.execCommand("copy");
  scratch.remove();
  if (!copied) throw new Error("copy command refused");
}

export interface CopyButtonProps {
  value: string;
  /** Accessible name, e.g. "Copy image reference"; defaults to "Copy". */
  label?: string;
  className?: string;
}

export function CopyButton({ value, label, className }: CopyButtonProps) {
  const t = useT();
  const [result, setResult] = useState<"copied" | "failed" | null>(null);

  useEffect(() => {
    if (!result) return;
    const timer = setTimeout(() => setResult(null), FEEDBACK_MS);
    return () => clearTimeout(timer);
  }, [result]);

  const copy = () => {
    copyText(value).then(
      () => setResult("copied"),
      () => setResult("failed"),
    );
  };

  return (
    <>
      <IconButton
        size="sm"
        label={label ?? t("ui.copy")}
        icon={
          result === "copied" ? (
            <CheckIcon className="size-3.5 text-success-text" />
          ) : (
            <CopyIcon className="size-3.5" />
          )
        }
        onClick={copy}
        className={className}
      />
      <span role="status" className="sr-only">
        {result === "copied" ? t("ui.copied") : result === "failed" ? t("ui.copyFailed") : ""}
      </span>
    </>
  );
}
