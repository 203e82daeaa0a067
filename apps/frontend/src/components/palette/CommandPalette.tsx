import { type KeyboardEvent, useEffect, useId, useMemo, useRef, useState } from "react";
import { useCan } from "../../lib/permissions.ts";
import { useStacksQuery } from "../../lib/queries.ts";
import { AppProviders, type IslandProps } from "../AppProviders.tsx";
import { useT } from "../I18nProvider.tsx";
import { useDeployFlow } from "../stacks/deploy.tsx";
import { type PaletteItem, paletteItems } from "./palette-items.ts";
import { loadRecent, rankItems, rememberRecent } from "./rank.ts";

export interface CommandPaletteProps extends IslandProps {
  open: boolean;
  onClose: () => void;
}

/**
 * The command palette (loaded on first use): jump to a page, a stack or an image, or start a deploy
 * behind the same confirmation as the stack's own buttons. The WAI-ARIA combobox pattern: the input
 * keeps focus, the arrows move `aria-activedescendant` through the listbox, Enter chooses, Escape
 * closes and focus goes back where it was.
 */
export default function CommandPalette({ lang, role, ...props }: CommandPaletteProps) {
  return (
    <AppProviders lang={lang} role={role}>
      <Palette {...props} />
    </AppProviders>
  );
}

const KIND_LABEL = {
  page: "palette.kind.page",
  stack: "palette.kind.stack",
  image: "palette.kind.image",
  action: "palette.kind.action",
} as const;

function Palette({ open, onClose }: Omit<CommandPaletteProps, keyof IslandProps>) {
  const t = useT();
  const canDeploy = useCan("deploy");
  const stacksQuery = useStacksQuery();
  const { ask, dialog } = useDeployFlow();
  const dialogRef = useRef<HTMLDialogElement>(null);
  const inputRef = useRef<HTMLInputElement>(null);
  const returnFocusTo = useRef<HTMLElement | null>(null);
  const listboxId = useId();
  const optionIdPrefix = useId();
  const [query, setQuery] = useState("");
  const [activeIndex, setActiveIndex] = useState(0);
  const [recent, setRecent] = useState<string[]>([]);

  const items = useMemo(
    () => paletteItems(stacksQuery.data?.stacks ?? [], t, canDeploy),
    [stacksQuery.data, t, canDeploy],
  );
  const results = useMemo(() => rankItems(items, query, recent), [items, query, recent]);
  const active = results[Math.min(activeIndex, results.length - 1)];
  const optionId = (index: number) => `${optionIdPrefix}-${index}`;

  useEffect(() => {
    const element = dialogRef.current;
    if (!element) return;
    if (open && !element.open) {
      returnFocusTo.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      setQuery("");
      setActiveIndex(0);
      setRecent(loadRecent());
      element.showModal();
      inputRef.current?.focus();
    } else if (!open && element.open) {
      element.close();
      returnFocusTo.current?.focus();
    }
  }, [open]);

  useEffect(() => {
    if (!open || !active) return;
    document.getElementById(optionId(results.indexOf(active)))?.scrollIntoView({ block: "nearest" });
  });

  const choose = (item: PaletteItem) => {
    rememberRecent(item.id);
    onClose();
    // After the palette has closed and given focus back: the confirmation then returns focus there too.
    if (item.kind === "action") setTimeout(() => ask(item.stack, item.action), 0);
    else window.location.assign(item.href);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    const last = results.length - 1;
    const current = Math.min(activeIndex, last);
    const moves: Record<string, number> = {
      ArrowDown: current >= last ? 0 : current + 1,
      ArrowUp: current <= 0 ? last : current - 1,
      Home: 0,
      End: last,
      PageDown: Math.min(last, current + 8),
      PageUp: Math.max(0, current - 8),
    };
    if (event.key in moves && results.length > 0) {
      // Home and End move the caret in the field unless Ctrl is held, as in most comboboxes.
      if ((event.key === "Home" || event.key === "End") && !event.ctrlKey) return;
      event.preventDefault();
      setActiveIndex(moves[event.key] as number);
    } else if (event.key === "Enter" && active) {
      event.preventDefault();
      choose(active);
    }
  };

  const loading = stacksQuery.isPending;
  return (
    <>
      {/* biome-ignore lint/a11y/useKeyWithClickEvents: a click on the backdrop; the keyboard closes it with Escape */}
      <dialog
        ref={dialogRef}
        aria-label={t("palette.title")}
        onCancel={(event) => {
          event.preventDefault();
          onClose();
        }}
        onClick={(event) => {
          // A click on the backdrop (the dialog element itself, outside its box) closes it.
          if (event.target === dialogRef.current) onClose();
        }}
        className="mx-auto mt-[10vh] w-[calc(100%-1.5rem)] max-w-xl rounded-lg border border-line bg-surface p-0 text-fg shadow-xl backdrop:bg-black/50"
      >
        <div className="border-b border-line p-2">
          <label htmlFor={`${listboxId}-input`} className="sr-only">
            {t("palette.input")}
          </label>
          <input
            ref={inputRef}
            id={`${listboxId}-input`}
            type="text"
            role="combobox"
            aria-expanded={results.length > 0}
            aria-controls={listboxId}
            aria-autocomplete="list"
            aria-activedescendant={active ? optionId(results.indexOf(active)) : undefined}
            autoComplete="off"
            spellCheck={false}
            value={query}
            placeholder={t("palette.placeholder")}
            onChange={(event) => {
              setQuery(event.target.value);
              setActiveIndex(0);
            }}
            onKeyDown={onKeyDown}
            className="h-10 w-full rounded-md bg-surface px-3 text-base text-fg placeholder:text-fg-muted"
          />
        </div>
        <div
          id={listboxId}
          role="listbox"
          aria-label={t("palette.results")}
          className="max-h-[min(24rem,60vh)] overflow-y-auto p-1"
        >
          {results.map((item, index) => (
            // biome-ignore lint/a11y/useFocusableInteractive: the combobox pattern: focus stays in the field, aria-activedescendant points here
            // biome-ignore lint/a11y/useKeyWithClickEvents: the keyboard chooses from the field (arrows and Enter)
            <div
              key={item.id}
              id={optionId(index)}
              role="option"
              aria-selected={item === active}
              onMouseMove={() => {
                if (index !== activeIndex) setActiveIndex(index);
              }}
              onClick={() => choose(item)}
              className="flex min-w-0 cursor-pointer items-center gap-3 rounded-md px-3 py-2 text-sm aria-selected:bg-surface-muted"
            >
              <span
                className={item.kind === "image" ? "min-w-0 truncate font-mono text-xs" : "min-w-0 truncate"}
              >
                <bdi>{item.name}</bdi>
              </span>
              <span className="ml-auto shrink-0 text-xs text-fg-muted">
                {recent.includes(item.id) && query === "" ? `${t("palette.kind.recent")} · ` : ""}
                {t(KIND_LABEL[item.kind])}
              </span>
            </div>
          ))}
        </div>
        <div className="flex items-center justify-between gap-3 border-t border-line px-3 py-2 text-xs text-fg-muted">
          <span role="status">
            {loading
              ? t("palette.loading")
              : results.length === 0
                ? t("palette.noResults", { query })
                : results.length === 1
                  ? t("palette.count.one")
                  : t("palette.count.many", { count: results.length })}
          </span>
          <span aria-hidden="true" className="hidden sm:inline">
            {t("palette.hint")}
          </span>
        </div>
      </dialog>
      {dialog}
    </>
  );
}
