import { useRef } from "react";
import { nameOrder } from "../../lib/name-order.ts";
import { useStacksQuery } from "../../lib/queries.ts";
import { useT } from "../I18nProvider.tsx";
import { FilterChips, SelectField } from "../ui/index.ts";
import {
  type ActorFilter,
  actorDisplayName,
  type HistoryEntry,
  type HistoryPageFilters,
  isKeyActor,
} from "./filters.ts";

/** What the stack, actor and image filters offer. */
export interface FilterChoices {
  stacks: string[];
  people: string[];
  keys: string[];
  images: string[];
}

const distinctSorted = (values: Iterable<string>) => {
  const distinct = [...new Set(values)];
  return distinct.sort(nameOrder(distinct));
};

/**
 * The stacks, actors and images to offer: every one this page has listed so far, under any filters
 * (the API narrows the list, so the rows of one filter alone would offer nothing else), and those the
 * address names; for stacks and images also every one Komodo lists now, whose deploys may all be older
 * than the pages loaded (nothing more when Komodo cannot be asked).
 */
export function useFilterChoices(
  entries: readonly HistoryEntry[] | undefined,
  filters: HistoryPageFilters,
): FilterChoices {
  const liveStacks = useStacksQuery().data?.stacks ?? [];
  const seen = useRef(new Map<string, Pick<HistoryEntry, "stack" | "actor" | "via">>());
  const seenImages = useRef(new Set<string>());
  for (const { stack, actor, via, changes } of entries ?? []) {
    seen.current.set(`${via}:${actor}\n${stack}`, { stack, actor, via });
    for (const change of changes) seenImages.current.add(change.image);
  }
  const listed = [...seen.current.values()];
  const named = filters.actor.startsWith("actor:") ? filters.actor.slice("actor:".length) : undefined;
  const addressed = named !== undefined && !listed.some((entry) => entry.actor === named) ? [named] : [];
  const actors = (via: HistoryEntry["via"]) => [
    ...listed.filter((entry) => entry.via === via).map((entry) => entry.actor),
    ...addressed.filter((actor) => (via === "apiKey") === isKeyActor(actor)),
  ];
  return {
    stacks: distinctSorted([
      ...listed.map((entry) => entry.stack),
      ...liveStacks.map((stack) => stack.name),
      ...(filters.stack ? [filters.stack] : []),
    ]),
    people: distinctSorted(actors("session")),
    keys: distinctSorted(actors("apiKey")),
    images: distinctSorted([
      ...seenImages.current,
      ...liveStacks.flatMap((stack) => stack.images),
      ...(filters.image ? [filters.image] : []),
    ]),
  };
}

interface HistoryFilterBarProps {
  choices: FilterChoices;
  filters: HistoryPageFilters;
  onChange: (filters: HistoryPageFilters) => void;
}

export function HistoryFilterBar({
  choices: { stacks, people, keys, images },
  filters,
  onChange,
}: HistoryFilterBarProps) {
  const t = useT();
  return (
    <div className="flex flex-wrap items-end gap-3">
      <SelectField
        label={t("history.filter.stack")}
        value={filters.stack}
        onChange={(event) => onChange({ ...filters, stack: event.target.value })}
        className="w-full sm:w-48"
      >
        <option value="">{t("history.filter.allStacks")}</option>
        {stacks.map((stack) => (
          <option key={stack} value={stack}>
            {stack}
          </option>
        ))}
      </SelectField>
      <SelectField
        label={t("history.filter.actor")}
        value={filters.actor}
        onChange={(event) => onChange({ ...filters, actor: event.target.value as ActorFilter })}
        className="w-full sm:w-56"
      >
        <option value="">{t("history.filter.everyone")}</option>
        <option value="via:session">{t("history.filter.allPeople")}</option>
        <option value="via:apiKey">{t("history.filter.allPipelines")}</option>
        {people.length > 0 && (
          <optgroup label={t("history.filter.people")}>
            {people.map((actor) => (
              <option key={actor} value={`actor:${actor}`}>
                {actor}
              </option>
            ))}
          </optgroup>
        )}
        {keys.length > 0 && (
          <optgroup label={t("history.filter.pipelines")}>
            {keys.map((actor) => (
              <option key={actor} value={`actor:${actor}`}>
                {actorDisplayName(actor, "apiKey")}
              </option>
            ))}
          </optgroup>
        )}
      </SelectField>
      <SelectField
        label={t("history.filter.image")}
        value={filters.image}
        onChange={(event) => onChange({ ...filters, image: event.target.value })}
        className="w-full sm:w-64"
        title={filters.image || undefined}
      >
        <option value="">{t("history.filter.anyImage")}</option>
        {images.map((image) => (
          <option key={image} value={image}>
            {image}
          </option>
        ))}
      </SelectField>
      <FilterChips
        label={t("history.filter.result")}
        value={filters.result}
        onChange={(result) => onChange({ ...filters, result })}
        options={[
          { value: "all", label: t("history.filter.all") },
          { value: "succeeded", label: t("history.filter.succeeded") },
          { value: "failed", label: t("history.filter.failed") },
        ]}
        className="h-9"
      />
    </div>
  );
}
