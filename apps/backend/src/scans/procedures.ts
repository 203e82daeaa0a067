import { ORPCError } from "@orpc/server";
import { type Implementer, visibleStacks } from "../auth/procedures.ts";
import { answeringUpstreamFailures } from "../upstream/http-errors.ts";
import { ImagesNotInUseError, type ScanService, UnknownImageError } from "./service.ts";

export function scanProcedures(os: Implementer, { scans }: { scans: ScanService }) {
  return {
    images: os.scans.images.handler(({ context }) =>
      answeringUpstreamFailures(async () => ({
        images: await scans.listImages(visibleStacks(context.caller)),
        scanner: scans.scannerStatus(),
      })),
    ),
    image: os.scans.image.handler(({ input, context }) =>
      answeringUpstreamFailures(async () => {
        try {
          return await scans.imageDetail(input.image, visibleStacks(context.caller));
        } catch (error) {
          if (error instanceof UnknownImageError)
            throw new ORPCError("NOT_FOUND", { message: error.message });
          throw error;
        }
      }),
    ),
    scan: os.scans.scan.handler(({ input, context }) =>
      answeringUpstreamFailures(async () => {
        try {
          return await scans.requestScans(input?.images, visibleStacks(context.caller));
        } catch (error) {
          if (error instanceof ImagesNotInUseError) {
            throw new ORPCError("BAD_REQUEST", { message: error.message, data: { images: error.images } });
          }
          throw error;
        }
      }),
    ),
  };
}
