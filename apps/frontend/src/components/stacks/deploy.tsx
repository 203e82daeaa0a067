import { useMutation } from "@tanstack/react-query";
import { type ReactNode, useCallback, useState } from "react";
import { api } from "../../lib/api.ts";
import { deployResultMessage } from "../../lib/deploy-result.ts";
import type { Translate } from "../../lib/i18n.ts";
import { useCan } from "../../lib/permissions.ts";
import { useRefreshAfterDeploy } from "../../lib/queries.ts";
import { useT, useTIsolated } from "../I18nProvider.tsx";
import { Button } from "../ui/Button.tsx";
import { ConfirmDialog } from "../ui/Dialog.tsx";
import { errorMessage, errorStatus } from "../ui/request-error.ts";
import { describeLoadError } from "../ui/request-message.ts";
import { showToast } from "../ui/Toast.tsx";
import { DEPLOY_MUTATION_KEY, type DeployRequest } from "./live-deploys.ts";
import { DEPLOY_ACTIONS, type DeployAction, type Stack } from "./model.ts";

/** Why a deploy failed: Komodo's own words (502) or the deadline that passed (504), else as for reads. */
export function deployFailureReason(error: unknown, t: Translate): string {
  const status = errorStatus(error);
  // No answer does not mean no deploy: Komodo may well be running it.
  if (status === undefined) return t("stacks.deploy.noAnswer");
  if (status === 502 || status === 504) return errorMessage(error);
  return describeLoadError(error, t);
}

function useDeployMutation() {
  const t = useT();
  const tIsolated = useTIsolated();
  const refreshAfterDeploy = useRefreshAfterDeploy();
  return useMutation({
    mutationKey: DEPLOY_MUTATION_KEY,
    mutationFn: async (request: DeployRequest) => {
      // Asked without `Prefer: respond-async`, the answer is always the finished deploy's (200).
      const answer = await api.deploy.run(request);
      if (answer.status !== 200) throw new Error(`Unexpected answer ${answer.status} to a deploy`);
      return answer.body;
    },
    onSuccess: (answer) => {
      showToast({
        tone: answer.success ? "success" : "danger",
        title: deployResultMessage(answer, tIsolated),
      });
    },
    onError: (error, { stack, action }) => {
      showToast({
        tone: "danger",
        title: tIsolated(`stacks.deploy.failed.${action}`, { stack }),
        description: deployFailureReason(error, t),
      });
    },
    // The live `finished` event refreshes too; this covers a tab whose event stream is reconnecting.
    onSettled: refreshAfterDeploy,
  });
}

/** What the confirmation says will happen: the exact steps, and the outage a redeploy causes. */
function confirmationText(stack: Stack, action: DeployAction, t: Translate): string {
  const count = stack.info.services.length;
  const services = count === 1 ? t("stacks.serviceCount.one") : t("stacks.serviceCount.many", { count });
  const params = { stack: stack.name, services };
  if (action === "pull") return t("stacks.confirm.pull.description", params);
  // The backend skips the take-down of a stack that is already down.
  const down = stack.state === "down";
  if (action === "redeploy") {
    return down
      ? t("stacks.confirm.redeploy.descriptionDown", params)
      : t("stacks.confirm.redeploy.description", params);
  }
  return down
    ? t("stacks.confirm.pullRedeploy.descriptionDown", params)
    : t("stacks.confirm.pullRedeploy.description", params);
}

/**
 * Deploys behind a confirmation. `ask` opens the dialog; confirming closes it at once and sends the
 * request: the row's live indicator shows the progress and a toast reports the result, so several
 * stacks can be deployed side by side.
 */
export function useDeployFlow(): { ask: (stack: Stack, action: DeployAction) => void; dialog: ReactNode } {
  const t = useT();
  const mutation = useDeployMutation();
  const [asking, setAsking] = useState<{ stack: Stack; action: DeployAction } | null>(null);
  const close = () => setAsking(null);

  const dialog = (
    <ConfirmDialog
      open={asking !== null}
      tone={asking?.action === "pull" ? "primary" : "danger"}
      title={asking ? t(`stacks.confirm.title.${asking.action}`, { stack: asking.stack.name }) : ""}
      description={asking ? confirmationText(asking.stack, asking.action, t) : ""}
      confirmLabel={asking ? t(`stacks.action.${asking.action}`) : ""}
      onCancel={close}
      onConfirm={() => {
        if (asking) mutation.mutate({ stack: asking.stack.name, action: asking.action });
        close();
      }}
    />
  );
  const ask = useCallback((stack: Stack, action: DeployAction) => setAsking({ stack, action }), []);
  return { ask, dialog };
}

export interface DeployButtonsProps {
  stack: Stack;
  onAsk: (stack: Stack, action: DeployAction) => void;
  /** A deploy of this stack is in progress: another one would only meet Komodo's "busy". */
  busy: boolean;
  className?: string;
}

/**
 * Pull, Redeploy, Pull + Redeploy for one stack; each opens the confirmation. While a deploy runs
 * they are aria-disabled, not disabled: the confirmation returns focus to the button that opened it,
 * and a disabled button would drop that focus to the page.
 */
export function DeployButtons({ stack, onAsk, busy, className }: DeployButtonsProps) {
  const t = useT();
  const canDeploy = useCan("deploy");
  if (!canDeploy) return null;
  return (
    <div className={className ?? "flex items-center justify-end gap-1.5"}>
      {DEPLOY_ACTIONS.map((action) => (
        <Button
          key={action}
          size="sm"
          aria-disabled={busy || undefined}
          className="aria-disabled:opacity-50"
          title={busy ? t("stacks.action.busy") : undefined}
          aria-label={t(`stacks.action.${action}.forStack`, { stack: stack.name })}
          onClick={() => {
            if (!busy) onAsk(stack, action);
          }}
        >
          {t(`stacks.action.${action}`)}
        </Button>
      ))}
    </div>
  );
}
