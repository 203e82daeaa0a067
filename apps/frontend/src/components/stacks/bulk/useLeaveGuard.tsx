import { type ReactNode, useEffect, useRef, useState } from "react";
import { useT } from "../../I18nProvider.tsx";
import { Button } from "../../ui/Button.tsx";
import { Dialog } from "../../ui/Dialog.tsx";
import { stackCount } from "./bulk-model.ts";

/** A click that the browser would follow to another page of this site, in this tab. */
function followedLink(event: MouseEvent): HTMLAnchorElement | null {
  if (event.defaultPrevented || event.button !== 0) return null;
  if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return null;
  const link = event.target instanceof Element ? event.target.closest("a[href]") : null;
  if (!(link instanceof HTMLAnchorElement) || link.hasAttribute("download")) return null;
  if (link.target && link.target !== "_self") return null;
  const to = new URL(link.href, window.location.href);
  if (to.origin !== window.location.origin) return null;
  // The same page with only another fragment is not leaving it.
  const here = new URL(window.location.href);
  if (to.pathname === here.pathname && to.search === here.search && to.hash !== "") return null;
  return link;
}

/**
 * Leaving the page cancels the stacks a bulk run has not sent yet: while some wait, the browser asks
 * before the page goes (reload, closing the tab, typing an address), and a link on the page asks
 * first, saying how many would be cancelled and that the sent ones run on.
 */
export function useLeaveGuard(waiting: number, sent: number): ReactNode {
  const t = useT();
  const [leavingTo, setLeavingTo] = useState<string | null>(null);
  const allowed = useRef(false);
  const stayRef = useRef<HTMLButtonElement>(null);
  const guarding = waiting > 0;

  useEffect(() => {
    if (!guarding) return;
    const beforeUnload = (event: BeforeUnloadEvent) => {
      if (allowed.current) return;
      event.preventDefault();
      // Older browsers ask only when a value is set; the text itself is not shown.
      event.returnValue = "";
    };
    const click = (event: MouseEvent) => {
      const link = followedLink(event);
      if (!link) return;
      event.preventDefault();
      setLeavingTo(link.href);
    };
    window.addEventListener("beforeunload", beforeUnload);
    document.addEventListener("click", click);
    return () => {
      window.removeEventListener("beforeunload", beforeUnload);
      document.removeEventListener("click", click);
    };
  }, [guarding]);

  // Everything was sent meanwhile: nothing to ask about any more.
  useEffect(() => {
    if (!guarding) setLeavingTo(null);
  }, [guarding]);

  const stay = () => setLeavingTo(null);
  return (
    <Dialog
      open={leavingTo !== null}
      onClose={stay}
      initialFocusRef={stayRef}
      title={t("bulk.leave.title")}
      description={t("bulk.leave.description", { waiting: stackCount(waiting, t), sent })}
      footer={
        <>
          <Button ref={stayRef} onClick={stay}>
            {t("bulk.leave.stay")}
          </Button>
          <Button
            variant="danger"
            onClick={() => {
              if (leavingTo === null) return;
              allowed.current = true;
              window.location.assign(leavingTo);
            }}
          >
            {t("bulk.leave.confirm")}
          </Button>
        </>
      }
    />
  );
}
