import { type Implementer, visibleStacks } from "../implementer.ts";
import type { ScanService } from "./service.ts";

export function scanProcedures(os: Implementer, { scans }: { scans: ScanService }) {
  return {
    images: os.scans.images.handler(async ({ context }) => ({
      images: await scans.listImages(visibleStacks(context.caller)),
      scanner: scans.scannerStatus(),
    })),
    image: os.scans.image.handler(({ input, context }) =>
      scans.imageDetail(input.image, visibleStacks(context.caller)),
    ),
    scan: os.scans.scan.handler(({ input, context }) =>
      scans.requestScans(input?.images, visibleStacks(context.caller)),
    ),
  };
}
