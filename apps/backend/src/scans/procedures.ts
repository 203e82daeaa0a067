import { ORPCError } from "@orpc/server";
import type { Implementer } from "../auth/procedures.ts";
import { answeringUpstreamFailures } from "../upstream/http-errors.ts";
import { ImagesNotInUseError, type ScanService, UnknownImageError } from "./service.ts";

export function scanProcedures(os: Implementer, { scans }: { scans: ScanService }) {
  return {
    images: os.scans.images.handler(() =>
      answeringUpstreamFailures(async () => ({
        images: await scans.listImages(),
        scanner: scans.scannerStatus(),
      })),
    ),
    image: os.scans.image.handler(({ input }) =>
      answeringUpstreamFailures(async () => {
        try {
          return await scans.imageDetail(input.image);
        } catch (error) {
          if (error instanceof UnknownImageError)
            throw new ORPCError("NOT_FOUND", { message: error.message });
          throw error;
        }
      }),
    ),
    scan: os.scans.scan.handler(({ input }) =>
      answeringUpstreamFailures(async () => {
        try {
          return await scans.requestScans(input?.images);
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
