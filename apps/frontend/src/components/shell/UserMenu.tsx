import { useCallback, useId, useRef, useState } from "react";
import { useOwnName } from "../../lib/account-name.ts";
import type { SessionUser } from "../../lib/session.ts";
import { useT } from "../I18nProvider.tsx";
import { ChevronDownIcon, SignOutIcon } from "../icons.tsx";
import { Badge } from "../ui/Badge.tsx";
import { Button } from "../ui/Button.tsx";
import { useDismiss } from "./useDismiss.ts";

function initialsOf(name: string): string {
  const words = name.trim().split(/\s+/).filter(Boolean);
  return words
    .slice(0, 2)
    .map((word) => word[0]?.toUpperCase() ?? "")
    .join("");
}

/** Ends the session; resolves to where the browser goes next (the provider's logout after single sign-on). */
async function signOut(): Promise<string> {
  const response = await fetch("/api/auth/sso/sign-out", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "{}",
  });
  if (!response.ok) throw new Error(`sign-out answered ${response.status}`);
  const { redirectTo } = (await response.json()) as { redirectTo?: unknown };
  return typeof redirectTo === "string" ? redirectTo : "/sign-in";
}

export function UserMenu({ user: rendered }: { user: SessionUser }) {
  const t = useT();
  const user = { ...rendered, name: useOwnName(rendered.name) };
  const [open, setOpen] = useState(false);
  const [signingOut, setSigningOut] = useState(false);
  const [failed, setFailed] = useState(false);
  const containerRef = useRef<HTMLDivElement>(null);
  const triggerRef = useRef<HTMLButtonElement>(null);
  const panelId = useId();
  const close = useCallback(() => setOpen(false), []);
  useDismiss(open, close, containerRef, triggerRef);

  const handleSignOut = async () => {
    setSigningOut(true);
    setFailed(false);
    try {
      window.location.assign(await signOut());
    } catch {
      setFailed(true);
      setSigningOut(false);
    }
  };

  return (
    <div ref={containerRef} className="relative">
      <button
        ref={triggerRef}
        type="button"
        aria-expanded={open}
        aria-controls={panelId}
        aria-label={t("account.menu", { name: user.name })}
        onClick={() => setOpen((isOpen) => !isOpen)}
        className="flex h-9 items-center gap-2 rounded-md px-1.5 text-fg-muted transition-colors hover:bg-surface-muted hover:text-fg"
      >
        {/* The initials are drawn by CSS, not text: visible text must be part of the button's name. */}
        <span
          aria-hidden="true"
          data-initials={initialsOf(user.name)}
          className="grid size-7 place-items-center rounded-full bg-surface-muted text-xs font-semibold text-fg ring-1 ring-line before:content-[attr(data-initials)]"
        />
        <span className="hidden max-w-40 truncate text-sm font-medium text-fg lg:block">{user.name}</span>
        <ChevronDownIcon className="hidden size-3.5 lg:block" />
      </button>
      <div
        id={panelId}
        hidden={!open}
        className="absolute right-0 top-full z-50 mt-1 w-64 max-w-[calc(100vw-1.5rem)] rounded-lg border border-line bg-surface p-1 shadow-lg"
      >
        <div className="px-3 py-2">
          <p className="text-xs text-fg-muted">{t("account.signedInAs")}</p>
          <p className="truncate font-medium">{user.name}</p>
          <p className="truncate text-fg-muted">{user.email}</p>
          <p className="mt-1.5">
            <Badge tone="neutral">{t("account.role", { role: t(`role.${user.role}`) })}</Badge>
          </p>
        </div>
        <div className="my-1 border-t border-line" />
        <Button
          variant="ghost"
          className="w-full justify-start"
          loading={signingOut}
          icon={<SignOutIcon className="size-4" />}
          onClick={handleSignOut}
        >
          {t("account.signOut")}
        </Button>
        {failed && (
          <p role="alert" className="px-3 pb-2 pt-1 text-xs text-danger-text">
            {t("account.signOutFailed")}
          </p>
        )}
      </div>
    </div>
  );
}
