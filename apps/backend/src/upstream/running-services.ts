import type { KomodoStackService } from "./answers.ts";

/** One service as Komodo says it runs: its image's digest, and its container. */
export interface RunningService {
  service: string;
  image: string;
  digest: string | null;
  state: string | null;
  status: string | null;
  /** When the container was created (ms); a container older than a deploy is not the deploy's. */
  createdAt: number | null;
  /** Docker's id of the container: another id is another container, even created in the same second. */
  containerId: string | null;
}

/**
 * The digest a service runs: the `sha256:…` of the running image's first repository digest (Komodo
 * 2.x), else its container's image id (1.x reports no digests), else unknown.
 */
function digestOf(service: KomodoStackService): string | null {
  const repoDigest = service.image_digests?.find((digest) => digest.includes("@sha256:"));
  if (repoDigest) return repoDigest.slice(repoDigest.indexOf("@") + 1);
  const imageId = service.container?.image_id;
  return imageId?.startsWith("sha256:") ? imageId : null;
}

/** What `ListStackServices` says runs: each service's image, digest and container. */
export function runningServices(services: KomodoStackService[]): RunningService[] {
  return services.map((service) => ({
    service: service.service,
    image: service.image,
    digest: digestOf(service),
    state: service.container?.state ?? null,
    status: service.container?.status ?? null,
    createdAt: typeof service.container?.created === "number" ? service.container.created * 1000 : null,
    containerId: service.container?.id ?? null,
  }));
}
