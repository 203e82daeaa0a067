import type { Translate } from "../../lib/i18n.ts";
import { stackHref } from "../../lib/stack-path.ts";
import { NAV_ITEMS } from "../shell/navigation.ts";
import { DEPLOY_ACTIONS, type DeployAction, type Stack } from "../stacks/model.ts";
import type { Rankable } from "./rank.ts";

export type PaletteItem = Rankable &
  (
    | { kind: "page" | "stack" | "image"; href: string }
    | { kind: "action"; stack: Stack; action: DeployAction }
  );

/** Pages, then stacks, then images, then deploy actions (for those who may deploy), as palette items. */
export function paletteItems(stacks: readonly Stack[], t: Translate, canDeploy: boolean): PaletteItem[] {
  const pages = NAV_ITEMS.map(
    (item): PaletteItem => ({
      kind: "page",
      id: `page:${item.href}`,
      name: t(item.labelKey),
      href: item.href,
      order: 0,
    }),
  );
  const stackItems = stacks.map(
    (stack): PaletteItem => ({
      kind: "stack",
      id: `stack:${stack.name}`,
      name: stack.name,
      href: stackHref(stack.name),
      order: 1,
    }),
  );
  const images = [...new Set(stacks.flatMap((stack) => stack.info.services.map((service) => service.image)))]
    .filter(Boolean)
    .map(
      (image): PaletteItem => ({
        kind: "image",
        id: `image:${image}`,
        name: image,
        href: `/security?image=${encodeURIComponent(image)}`,
        order: 2,
      }),
    );
  const actions = canDeploy
    ? stacks.flatMap((stack) =>
        DEPLOY_ACTIONS.map(
          (action): PaletteItem => ({
            kind: "action",
            id: `action:${action}:${stack.name}`,
            name: t(`stacks.action.${action}.forStack`, { stack: stack.name }),
            stack,
            action,
            order: 3,
          }),
        ),
      )
    : [];
  return [...pages, ...stackItems, ...images, ...actions];
}
