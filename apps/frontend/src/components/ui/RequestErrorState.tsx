import { useT } from "../I18nProvider.tsx";
import { ErrorState } from "./ErrorState.tsx";
import { requestMessage } from "./request-message.ts";

export interface RequestErrorStateProps {
  /** What could not be loaded, e.g. "Couldn't load the history". */
  title: string;
  error: unknown;
  onRetry: () => void;
  retrying?: boolean;
}

/** A failed request: what failed, the backend's reason (or that it was unreachable), and a retry. */
export function RequestErrorState({ title, error, onRetry, retrying }: RequestErrorStateProps) {
  const t = useT();
  return (
    <ErrorState title={title} description={requestMessage(error, t)} onRetry={onRetry} retrying={retrying} />
  );
}
