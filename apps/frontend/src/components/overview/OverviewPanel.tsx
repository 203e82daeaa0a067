import { QueryContent, type QueryContentProps } from "../stacks/QueryContent.tsx";
import { Card } from "../ui/Card.tsx";

interface OverviewPanelProps<Data> extends QueryContentProps<Data> {
  title: string;
  /** The page that shows all of it, and the words of the link there. */
  allHref: string;
  allLabel: string;
  className?: string;
}

/** A card of the overview that loads its own data and links to the page with all of it. */
export function OverviewPanel<Data>({
  title,
  allHref,
  allLabel,
  className,
  ...content
}: OverviewPanelProps<Data>) {
  return (
    <Card
      title={title}
      flush
      className={className}
      actions={
        <a href={allHref} className="text-xs font-medium underline underline-offset-2">
          {allLabel}
        </a>
      }
    >
      <QueryContent padded {...content} />
    </Card>
  );
}
