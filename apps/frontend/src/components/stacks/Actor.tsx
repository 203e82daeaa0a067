import { useT } from "../I18nProvider.tsx";
import { KeyIcon, PersonIcon } from "../icons.tsx";

const KEY_PREFIX = "API Key: ";

function initials(name: string): string {
  const words = name.split(/\s+/).filter(Boolean);
  return words
    .slice(0, 2)
    .map((word) => word[0]?.toUpperCase() ?? "")
    .join("");
}

export interface ActorProps {
  name: string;
  via: "session" | "apiKey";
  /** For tight table cells: a person as initials; the full name stays in the tooltip and for readers. */
  compact?: boolean;
}

/**
 * Who started a deploy: a person, or a pipeline's API key ("API Key: deploy-web" shows as a key icon
 * and "deploy-web").
 */
export function Actor({ name, via, compact = false }: ActorProps) {
  const t = useT();
  const isKey = via === "apiKey";
  const kind = <span className="sr-only">{isKey ? t("stacks.actor.apiKey") : t("stacks.actor.person")}</span>;
  if (compact && !isKey) {
    return (
      <span title={name} className="inline-flex shrink-0 items-center">
        {kind}
        <span className="sr-only">{name}</span>
        <span
          aria-hidden="true"
          className="inline-flex size-5 items-center justify-center rounded-full bg-surface-muted text-[0.625rem] font-semibold text-fg"
        >
          {initials(name)}
        </span>
      </span>
    );
  }
  const shown = isKey && name.startsWith(KEY_PREFIX) ? name.slice(KEY_PREFIX.length) : name;
  const Icon = isKey ? KeyIcon : PersonIcon;
  return (
    <span className="inline-flex min-w-0 items-center gap-1" title={name}>
      <Icon className="size-3.5 shrink-0 text-fg-muted" />
      {kind}
      <span className="min-w-0 truncate">{shown}</span>
    </span>
  );
}
