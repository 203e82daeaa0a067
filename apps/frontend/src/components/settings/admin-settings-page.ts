import { rolePermits } from "@stackgate/contract";
import type { AstroGlobal } from "astro";
import { createTranslator } from "../../lib/i18n.ts";

/**
 * For a settings page that only admins see (Alerts, People, Audit log), in its front matter: who
 * asks and whether they may see it. Anyone else gets the page's frame with a 403, set here because
 * only a page may set its status.
 */
export function adminSettingsPage(astro: Pick<AstroGlobal, "locals" | "response">) {
  const { lang, user } = astro.locals;
  const role = user?.role ?? "viewer";
  const allowed = rolePermits(role, "admin");
  if (!allowed) astro.response.status = 403;
  return { lang, user, role, allowed, t: createTranslator(lang) };
}
