import { type ReactNode, type RefObject, useEffect, useId, useRef } from "react";
import { useT } from "../I18nProvider.tsx";
import { Button } from "./Button.tsx";

export interface DialogProps {
  open: boolean;
  /** Called on Escape and by the dialog's own close controls; the parent sets `open` to false. */
  onClose: () => void;
  title: ReactNode;
  description?: ReactNode;
  /** Buttons, right-aligned at the bottom. */
  footer?: ReactNode;
  /** Receives focus on open; otherwise the browser focuses the first focusable element. */
  initialFocusRef?: RefObject<HTMLElement | null>;
  /** While true, Escape does nothing (an action is in flight). */
  busy?: boolean;
  children?: ReactNode;
}

/**
 * A modal on the native <dialog>: the browser traps focus, makes the page behind inert, closes on
 * Escape and returns focus to the control that opened it.
 */
export function Dialog({
  open,
  onClose,
  title,
  description,
  footer,
  initialFocusRef,
  busy = false,
  children,
}: DialogProps) {
  const dialogRef = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const descriptionId = useId();

  useEffect(() => {
    const dialog = dialogRef.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      dialog.showModal();
      initialFocusRef?.current?.focus();
    } else if (!open && dialog.open) {
      dialog.close();
    }
  }, [open, initialFocusRef]);

  return (
    <dialog
      ref={dialogRef}
      aria-labelledby={titleId}
      aria-describedby={description ? descriptionId : undefined}
      onCancel={(event) => {
        // Keep the element's state in React's hands: Escape asks the parent to close.
        event.preventDefault();
        if (!busy) onClose();
      }}
      className="m-auto w-[calc(100%-2rem)] max-w-md rounded-lg border border-line bg-surface p-0 text-fg shadow-xl backdrop:bg-black/50"
    >
      <div className="p-5">
        <h2 id={titleId} className="text-base font-semibold">
          {title}
        </h2>
        {description && (
          <div id={descriptionId} className="mt-2 text-sm text-fg-muted">
            {description}
          </div>
        )}
        {children && <div className="mt-4">{children}</div>}
      </div>
      {footer && (
        <div className="flex flex-wrap justify-end gap-2 border-t border-line bg-surface-muted/50 px-5 py-3">
          {footer}
        </div>
      )}
    </dialog>
  );
}

export interface ConfirmDialogProps {
  open: boolean;
  title: ReactNode;
  /** Say exactly what will happen, e.g. that a redeploy takes the stack down first. */
  description: ReactNode;
  confirmLabel: string;
  /** `danger` for destructive actions: red confirm button, focus starts on Cancel. */
  tone?: "primary" | "danger";
  /** Shows the confirm button as loading and blocks closing. */
  pending?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}

export function ConfirmDialog({
  open,
  title,
  description,
  confirmLabel,
  tone = "primary",
  pending = false,
  onConfirm,
  onCancel,
}: ConfirmDialogProps) {
  const t = useT();
  const cancelRef = useRef<HTMLButtonElement>(null);
  return (
    <Dialog
      open={open}
      onClose={onCancel}
      title={title}
      description={description}
      busy={pending}
      initialFocusRef={tone === "danger" ? cancelRef : undefined}
      footer={
        <>
          <Button ref={cancelRef} onClick={onCancel} disabled={pending}>
            {t("ui.cancel")}
          </Button>
          <Button variant={tone} loading={pending} onClick={onConfirm}>
            {confirmLabel}
          </Button>
        </>
      }
    />
  );
}
