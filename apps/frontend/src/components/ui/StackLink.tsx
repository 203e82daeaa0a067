import { cx } from "../../lib/cx.ts";
import { stackHref } from "../../lib/stack-path.ts";

export { stackHref };

/** A stack's name as a link to its page, wherever a list names a stack. */
export function StackLink({ stack, className }: { stack: string; className?: string }) {
  return (
    <a href={stackHref(stack)} className={cx("hover:underline", className)}>
      <bdi>{stack}</bdi>
    </a>
  );
}
