import { Fragment } from "react";
import { StackLink } from "../ui/index.ts";

/** The stacks using an image, each a link to its page, on one line cut to the cell's width. */
export function StackLinks({ stacks }: { stacks: string[] }) {
  return (
    <span className="block truncate" title={stacks.join(", ")}>
      {stacks.map((stack, index) => (
        <Fragment key={stack}>
          {index > 0 && ", "}
          <StackLink stack={stack} />
        </Fragment>
      ))}
    </span>
  );
}
