import { cx } from "../../lib/cx.ts";
import { CopyButton } from "./CopyButton.tsx";
import { useKeyboardScrollable } from "./useKeyboardScrollable.ts";

export interface CodeBlockProps {
  /** The text shown and copied, exactly. */
  code: string;
  /** What the block is, e.g. "curl"; also names the copy button. */
  title: string;
  copyLabel: string;
  /**
   * For output rather than a snippet: long lines wrap and a long text scrolls inside a box of at
   * most 24 rem (from the keyboard too), instead of the page growing with it.
   */
  output?: boolean;
  /** The name of the scrolling box, when several blocks on a page share a title; the title otherwise. */
  regionLabel?: string;
}

/** A multi-line snippet (commands, YAML) or a command's output, with a title bar and a copy button. */
export function CodeBlock({ code, title, copyLabel, output = false, regionLabel }: CodeBlockProps) {
  const scrollable = useKeyboardScrollable<HTMLPreElement>(regionLabel ?? title);
  return (
    <figure className="overflow-hidden rounded-md border border-line">
      <figcaption className="flex h-8 items-center justify-between border-b border-line bg-surface-muted pl-3 pr-1 text-xs font-medium text-fg-muted">
        {title}
        <CopyButton value={code} label={copyLabel} />
      </figcaption>
      <pre
        ref={scrollable.ref}
        {...scrollable.props}
        className={cx(
          "bg-surface p-3 font-mono text-xs leading-relaxed",
          output ? "max-h-96 overflow-y-auto whitespace-pre-wrap break-words" : "overflow-x-auto",
        )}
      >
        <code>{code}</code>
      </pre>
    </figure>
  );
}
