import type { Implementer } from "../implementer.ts";
import type { ScanService } from "./service.ts";

export function scanProcedures(os: Implementer, { scans }: { scans: ScanService }) {
  return {
    images: os.scans.images.handler(async ({ context }) => ({
      images: await scans.listImages(context.caller.stacks),
      scanner: scans.scannerStatus(),
    })),
    image: os.scans.image.handler(({ input, context }) =>
      scans.imageDetail(input.image, context.caller.stacks),
    ),
    scan: os.scans.scan.handler(({ input, context }) =>
      scans.requestScans(input?.images, context.caller.stacks),
    ),
  };
}
