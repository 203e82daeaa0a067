import { useId, useRef, useState } from "react";
import { useT } from "../../I18nProvider.tsx";
import { Button } from "../../ui/Button.tsx";
import { Dialog } from "../../ui/Dialog.tsx";
import {
  type BulkAction,
  isDeployAction,
  loadConcurrency,
  MAX_CONCURRENCY,
  saveConcurrency,
  stackCount,
} from "./bulk-model.ts";

export interface BulkRequest {
  action: BulkAction;
  stacks: string[];
}

export interface BulkConfirmDialogProps {
  request: BulkRequest | null;
  onCancel: () => void;
  onConfirm: (request: BulkRequest, limit: number) => void;
}

/**
 * Names the action, the count and every stack, and (for deploys) how many run at once: the choice is
 * remembered in this browser.
 */
export function BulkConfirmDialog({ request, onCancel, onConfirm }: BulkConfirmDialogProps) {
  const t = useT();
  const cancelRef = useRef<HTMLButtonElement>(null);
  const confirmRef = useRef<HTMLButtonElement>(null);
  const limitId = useId();
  const [limit, setLimit] = useState(loadConcurrency);
  const action = request?.action ?? "pull";
  const stacks = stackCount(request?.stacks.length ?? 0, t);
  const safe = action === "pull" || action === "poll-on" || action === "poll-off";
  return (
    <Dialog
      open={request !== null}
      onClose={onCancel}
      initialFocusRef={safe ? confirmRef : cancelRef}
      title={request ? t(`bulk.confirm.title.${action}`, { stacks }) : ""}
      description={request ? t(`bulk.confirm.description.${action}`) : ""}
      footer={
        <>
          <Button ref={cancelRef} onClick={onCancel}>
            {t("ui.cancel")}
          </Button>
          <Button
            ref={confirmRef}
            variant={safe ? "primary" : "danger"}
            onClick={() => {
              if (!request) return;
              saveConcurrency(limit);
              onConfirm(request, limit);
            }}
          >
            {t(`bulk.confirm.run.${action}`, { stacks })}
          </Button>
        </>
      }
    >
      {request && (
        <div className="flex flex-col gap-3">
          <ul
            // A long selection scrolls: it must be reachable by keyboard too.
            // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must take focus to scroll by keyboard
            tabIndex={0}
            aria-label={t("bulk.confirm.stacks")}
            className="max-h-40 overflow-y-auto rounded-md border border-line bg-surface-muted/40 px-3 py-2 font-mono text-xs"
          >
            {request.stacks.map((stack) => (
              <li key={stack} className="truncate" title={stack}>
                <bdi>{stack}</bdi>
              </li>
            ))}
          </ul>
          {isDeployAction(action) || action === "delete" ? (
            <label htmlFor={limitId} className="flex items-center gap-2 text-sm">
              {t("bulk.confirm.limitBefore")}
              <select
                id={limitId}
                value={limit}
                onChange={(event) => setLimit(Number(event.target.value))}
                className="h-8 rounded-md border border-control/60 bg-surface px-2 text-sm text-fg"
              >
                {Array.from({ length: MAX_CONCURRENCY }, (_, index) => index + 1).map((value) => (
                  <option key={value} value={value}>
                    {value}
                  </option>
                ))}
              </select>
              {t("bulk.confirm.limitAfter")}
            </label>
          ) : null}
        </div>
      )}
    </Dialog>
  );
}
