import { useCan } from "../../lib/permissions.ts";
import { useT } from "../I18nProvider.tsx";
import { Button, CopyButton } from "../ui/index.ts";
import { type ImageScan, imageDetailHref, isInProgress } from "./scan-model.ts";
import type { useScanRequest } from "./useScanRequest.ts";

/** An image reference in monospace, cut to the room there is (in full on hover), a link to its detail. */
export function ImageRef({ image }: { image: string }) {
  const t = useT();
  return (
    <span className="flex min-w-0 items-center gap-1">
      <a
        href={imageDetailHref(image)}
        title={image}
        className="min-w-0 truncate font-mono text-[0.8125rem] hover:underline"
      >
        <bdi>{image}</bdi>
      </a>
      <CopyButton value={image} label={t("security.copyImage", { image })} />
    </span>
  );
}

interface RescanButtonProps {
  scan: ImageScan;
  /** One request shared by the list, so a row shows its own pending rescan. */
  request: ReturnType<typeof useScanRequest>;
}

/** Queues one image again; while it is queued or scanning there is nothing to ask for. */
export function RescanButton({ scan, request }: RescanButtonProps) {
  const t = useT();
  const canScan = useCan("scan");
  const pending = request.isPending && request.variables?.includes(scan.image) === true;
  if (!canScan) return null;
  return (
    <Button
      size="sm"
      loading={pending}
      disabled={isInProgress(scan)}
      onClick={() => request.mutate([scan.image])}
      aria-label={t("security.rescanImage", { image: scan.image })}
    >
      {t("security.rescan")}
    </Button>
  );
}
