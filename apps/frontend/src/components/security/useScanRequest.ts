import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api, orpc } from "../../lib/api.ts";
import { useT } from "../I18nProvider.tsx";
import { requestMessage, showToast } from "../ui/index.ts";

/**
 * Queues scans: of the given images, or of every image when called without any. The lists are
 * fetched again at once and then keep polling while anything is queued or scanning.
 */
export function useScanRequest() {
  const t = useT();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (images?: string[]) => api.scans.scan(images ? { images } : undefined),
    onSuccess: ({ queued, alreadyQueued }) => {
      showToast({
        tone: "progress",
        title:
          queued.length === 0
            ? t("security.scan.nothingNew")
            : t("security.scan.queued", { count: queued.length }),
        description:
          alreadyQueued.length > 0
            ? t("security.scan.alreadyQueued", { count: alreadyQueued.length })
            : undefined,
      });
    },
    onError: (error) =>
      showToast({ tone: "danger", title: t("security.scan.failed"), description: requestMessage(error, t) }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: orpc.scans.key() }),
  });
}
