import { CopyButton } from "./CopyButton.tsx";
import { useKeyboardScrollable } from "./useKeyboardScrollable.ts";

export interface CodeBlockProps {
  /** The text shown and copied, exactly. */
  code: string;
  /** What the block is, e.g. "curl"; also names the copy button. */
  title: string;
  copyLabel: string;
}

/** A multi-line snippet (commands, YAML) with a title bar and a copy button. */
export function CodeBlock({ code, title, copyLabel }: CodeBlockProps) {
  const scrollable = useKeyboardScrollable<HTMLPreElement>(title);
  return (
    <figure className="overflow-hidden rounded-md border border-line">
      <figcaption className="flex h-8 items-center justify-between border-b border-line bg-surface-muted pl-3 pr-1 text-xs font-medium text-fg-muted">
        {title}
        <CopyButton value={code} label={copyLabel} />
      </figcaption>
      <pre
        ref={scrollable.ref}
        {...scrollable.props}
        className="overflow-x-auto bg-surface p-3 font-mono text-xs leading-relaxed"
      >
        <code>{code}</code>
      </pre>
    </figure>
  );
}
