import { useT } from "../I18nProvider.tsx";
import { StatusMark, type Tone } from "../ui/index.ts";
import type { Delivery } from "./model.ts";

const TONES: Record<Delivery["status"], Tone> = {
  sending: "progress",
  retrying: "warning",
  delivered: "success",
  failed: "danger",
};

/** A delivery's state as a coloured mark and its word. */
export function DeliveryStatus({ status }: { status: Delivery["status"] }) {
  const t = useT();
  return <StatusMark tone={TONES[status]} label={t(`alerts.status.${status}`)} />;
}
