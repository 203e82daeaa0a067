import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useId, useRef, useState } from "react";
import { api } from "../../lib/api.ts";
import { useCan } from "../../lib/permissions.ts";
import { useT, useTIsolated } from "../I18nProvider.tsx";
import { Button } from "../ui/Button.tsx";
import { Card } from "../ui/Card.tsx";
import { Dialog } from "../ui/Dialog.tsx";
import { describeLoadError } from "../ui/request-message.ts";
import type { Stack } from "./model.ts";

/** Deleting a stack, behind a dialog that asks for its name to be typed. */
export function DeleteStack({ stack }: { stack: Stack }) {
  const t = useT();
  const tIsolated = useTIsolated();
  const [open, setOpen] = useState(false);
  const canDelete = useCan("admin");
  const running = stack.state !== "down" && stack.state !== "unknown";
  if (!canDelete) return null;
  return (
    <Card title={t("stacks.delete.title")}>
      <p className="text-sm text-fg-muted">
        {running
          ? tIsolated("stacks.delete.explainRunning", { stack: stack.name })
          : tIsolated("stacks.delete.explain", { stack: stack.name })}
      </p>
      <Button variant="danger" size="sm" className="mt-3" onClick={() => setOpen(true)}>
        {t("stacks.delete.open")}
      </Button>
      <DeleteStackDialog open={open} stack={stack} running={running} onClose={() => setOpen(false)} />
    </Card>
  );
}

interface DeleteStackDialogProps {
  open: boolean;
  stack: Stack;
  running: boolean;
  onClose: () => void;
}

function DeleteStackDialog({ open, stack, running, onClose }: DeleteStackDialogProps) {
  const t = useT();
  const tIsolated = useTIsolated();
  const formId = useId();
  const inputId = useId();
  const errorId = useId();
  const inputRef = useRef<HTMLInputElement>(null);
  const [typed, setTyped] = useState("");
  const mutation = useMutation({
    mutationFn: () => api.stacks.remove({ stack: stack.name }),
    // The stack is gone: the list confirms it there (this page would only say "not found").
    onSuccess: () => window.location.assign(`/stacks?deleted=${encodeURIComponent(stack.name)}`),
  });
  const matches = typed === stack.name;
  const busy = mutation.isPending || mutation.isSuccess;

  const close = () => {
    setTyped("");
    mutation.reset();
    onClose();
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (matches && !busy) mutation.mutate();
  };

  return (
    <Dialog
      open={open}
      onClose={close}
      busy={busy}
      initialFocusRef={inputRef}
      title={tIsolated("stacks.delete.confirmTitle", { stack: stack.name })}
      description={
        running
          ? tIsolated("stacks.delete.confirmRunning", { stack: stack.name })
          : tIsolated("stacks.delete.confirmDown", { stack: stack.name })
      }
      footer={
        <>
          <Button onClick={close} disabled={busy}>
            {t("ui.cancel")}
          </Button>
          <Button type="submit" form={formId} variant="danger" loading={busy} disabled={!matches}>
            {tIsolated("stacks.delete.confirm", { stack: stack.name })}
          </Button>
        </>
      }
    >
      <form id={formId} onSubmit={submit} className="flex flex-col gap-3">
        <label htmlFor={inputId} className="text-sm">
          {tIsolated("stacks.delete.typeName", { stack: stack.name })}
        </label>
        <input
          ref={inputRef}
          id={inputId}
          value={typed}
          onChange={(event) => setTyped(event.target.value)}
          autoComplete="off"
          spellCheck={false}
          aria-describedby={mutation.isError ? errorId : undefined}
          className="h-9 w-full rounded-md border border-control bg-surface px-3 font-mono text-sm text-fg"
        />
        {mutation.isError && (
          <p id={errorId} role="alert" className="text-sm text-danger-text">
            {t("stacks.delete.failed", { reason: describeLoadError(mutation.error, t) })}
          </p>
        )}
      </form>
    </Dialog>
  );
}
