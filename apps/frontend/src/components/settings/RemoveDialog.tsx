import { useState } from "react";
import { useT } from "../I18nProvider.tsx";
import { ConfirmDialog, requestMessage, showToast } from "../ui/index.ts";

export interface RemoveDialogProps {
  open: boolean;
  title: string;
  /** Exactly what stops working once it is gone. */
  description: string;
  confirmLabel: string;
  /** The request; the dialog stays open (and busy) until it answers. */
  remove: () => Promise<unknown>;
  /** Toast titles for either outcome. */
  removedTitle: string;
  failedTitle: string;
  onClose: () => void;
  onRemoved: () => void;
}

/** A destructive confirmation that runs the removal itself and reports the outcome as a toast. */
export function RemoveDialog({
  open,
  title,
  description,
  confirmLabel,
  remove,
  removedTitle,
  failedTitle,
  onClose,
  onRemoved,
}: RemoveDialogProps) {
  const t = useT();
  const [pending, setPending] = useState(false);
  const confirm = async () => {
    setPending(true);
    try {
      await remove();
      showToast({ tone: "success", title: removedTitle });
      onRemoved();
    } catch (error) {
      showToast({ tone: "danger", title: failedTitle, description: requestMessage(error, t) });
      onClose();
    } finally {
      setPending(false);
    }
  };
  return (
    <ConfirmDialog
      open={open}
      tone="danger"
      title={title}
      description={description}
      confirmLabel={confirmLabel}
      pending={pending}
      onConfirm={confirm}
      onCancel={onClose}
    />
  );
}
