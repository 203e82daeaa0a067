import { useT } from "../I18nProvider.tsx";
import { FilterChips, SelectField } from "../ui/index.ts";
import {
  type ActorFilter,
  actorDisplayName,
  type HistoryEntry,
  type HistoryFilters,
  matchesResult,
  type ResultFilter,
} from "./filters.ts";

interface HistoryFilterBarProps {
  /** Every entry: the choices of stack and actor. */
  entries: HistoryEntry[];
  /** The entries the stack and actor filters keep: what the result counts count. */
  inScope: HistoryEntry[];
  filters: HistoryFilters;
  onChange: (filters: HistoryFilters) => void;
}

const distinctSorted = (values: string[]) => [...new Set(values)].sort((a, b) => a.localeCompare(b));

export function HistoryFilterBar({ entries, inScope, filters, onChange }: HistoryFilterBarProps) {
  const t = useT();
  // A stack named in the address stays choosable even when none of the last 100 entries has it.
  const stacks = distinctSorted([
    ...entries.map((entry) => entry.stack),
    ...(filters.stack ? [filters.stack] : []),
  ]);
  const people = distinctSorted(
    entries.filter((entry) => entry.via === "session").map((entry) => entry.actor),
  );
  const keys = distinctSorted(entries.filter((entry) => entry.via === "apiKey").map((entry) => entry.actor));
  const count = (result: ResultFilter) => inScope.filter((entry) => matchesResult(entry, result)).length;

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
      <FilterChips
        label={t("history.filter.result")}
        value={filters.result}
        onChange={(result) => onChange({ ...filters, result })}
        options={[
          { value: "all", label: t("history.filter.all"), count: count("all") },
          { value: "succeeded", label: t("history.filter.succeeded"), count: count("succeeded") },
          { value: "failed", label: t("history.filter.failed"), count: count("failed") },
        ]}
        className="h-9"
      />
    </div>
  );
}
