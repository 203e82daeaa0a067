import { Card } from "../ui/Card.tsx";
import { QueryView, type QueryViewProps } from "../ui/QueryView.tsx";
import { SkeletonLines } from "../ui/Skeleton.tsx";

interface OverviewPanelProps<Data> extends Omit<QueryViewProps<Data>, "placeholder" | "padded"> {
  title: string;
  /** Announced while loading, e.g. "Loading the history…". */
  loadingLabel: string;
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
  loadingLabel,
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
      <QueryView padded placeholder={<SkeletonLines label={loadingLabel} />} {...content} />
    </Card>
  );
}
