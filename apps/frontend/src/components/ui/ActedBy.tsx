import type { actedBy } from "@stackgate/contract";
import type { z } from "zod";
import { useT } from "../I18nProvider.tsx";

export type ActedByIdentity = z.infer<typeof actedBy>;

/**
 * Who exactly acted, under the name they chose (which anyone may copy): the person's email, or the
 * email of the API key's owner. Nothing for entries recorded before Stackgate kept it.
 */
export function ActedBy({ by, via }: { by?: ActedByIdentity | null; via: "session" | "apiKey" }) {
  const t = useT();
  if (!by?.email) return null;
  return (
    <span className="block min-w-0 truncate text-xs text-fg-muted" title={by.email}>
      <bdi>{via === "apiKey" ? t("actedBy.keyOf", { email: by.email }) : by.email}</bdi>
    </span>
  );
}
