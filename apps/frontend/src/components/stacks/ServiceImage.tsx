import { useT } from "../I18nProvider.tsx";
import { Code } from "../ui/Code.tsx";
import type { Stack } from "./model.ts";

type Service = Stack["info"]["services"][number];

/** A service's image reference in monospace: cut to fit, whole on hover, with a copy button. */
export function ImageRef({ service, stack }: { service: Service; stack: string }) {
  const t = useT();
  return (
    <Code
      value={service.image}
      truncate
      copyable
      copyLabel={t("stacks.copyImage", { service: service.service, stack })}
      className="max-w-full"
    />
  );
}

/** The first service and its image, and how many more the stack has: one line in the list. */
export function ServicesSummary({ stack }: { stack: Stack }) {
  const t = useT();
  const [first, ...others] = stack.info.services;
  if (!first) return <span className="text-xs text-fg-muted">{t("stacks.noServices")}</span>;
  // The image comes first: the service's name shows only where the cell also has room for a long image
  // beside it (container query), instead of both being cut.
  return (
    <span className="@container block min-w-0">
      <span className="flex min-w-0 items-center gap-1.5">
        <span
          className="hidden max-w-20 shrink-0 truncate text-xs text-fg-muted @[24rem]:inline"
          title={first.service}
        >
          <bdi>{first.service}</bdi>
        </span>
        <span className="min-w-0">
          <ImageRef service={first} stack={stack.name} />
        </span>
        {others.length > 0 && (
          <span
            className="shrink-0 text-xs text-fg-muted"
            title={others.map((service) => `${service.service}: ${service.image}`).join("\n")}
          >
            {t("stacks.moreServices", { count: others.length })}
          </span>
        )}
      </span>
    </span>
  );
}
