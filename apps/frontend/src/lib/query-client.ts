import { QueryClient } from "@tanstack/react-query";

let browserQueryClient: QueryClient | undefined;

function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { staleTime: 5_000, retry: 1 },
      mutations: { retry: false },
    },
  });
}

/**
 * One client per page in the browser, shared by every island on it (they import the same module), so
 * a mutation in one island can invalidate a list in another. A fresh one for each server render.
 */
export function getQueryClient(): QueryClient {
  if (typeof window === "undefined") return createQueryClient();
  browserQueryClient ??= createQueryClient();
  return browserQueryClient;
}
