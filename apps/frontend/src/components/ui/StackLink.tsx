import { cx } from "../../lib/cx.ts";

/** The address of a stack's page. */
export const stackHref = (stack: string) => `/stacks/${encodeURIComponent(stack)}`;

/** A stack's name as a link to its page, wherever a list names a stack. */
export function StackLink({ stack, className }: { stack: string; className?: string }) {
  return (
    <a href={stackHref(stack)} className={cx("hover:underline", className)}>
      <bdi>{stack}</bdi>
    </a>
  );
}
