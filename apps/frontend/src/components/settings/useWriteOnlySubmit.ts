import { useState } from "react";

export type SubmitState<Result> =
  | { status: "idle" }
  | { status: "pending" }
  | { status: "done"; result: Result }
  | { status: "failed"; error: unknown };

/**
 * A mutation that keeps no copy of what it sent. TanStack's useMutation holds its variables in a
 * page-wide cache for minutes, and these variables are Komodo secrets and ntfy tokens; here only the
 * result or the error stays, and `clear()` forgets that too (the one-time API key lives in a result).
 */
export function useWriteOnlySubmit<Input, Result>(send: (input: Input) => Promise<Result>) {
  const [state, setState] = useState<SubmitState<Result>>({ status: "idle" });

  const submit = async (input: Input): Promise<Result | undefined> => {
    setState({ status: "pending" });
    try {
      const result = await send(input);
      setState({ status: "done", result });
      return result;
    } catch (error) {
      setState({ status: "failed", error });
      return undefined;
    }
  };

  return {
    state,
    pending: state.status === "pending",
    submit,
    clear: () => setState({ status: "idle" }),
  };
}
