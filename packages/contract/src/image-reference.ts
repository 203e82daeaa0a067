/**
 * Container image references, checked against the grammar of the distribution
 * project (github.com/distribution/reference), which Docker, containerd and Trivy
 * all parse:
 *
 *   reference := name [ ":" tag ] [ "@" digest ]
 *   name      := [ domain "/" ] path-component { "/" path-component }
 *
 * The check doubles as our guard before a reference becomes a command-line
 * argument: anything that passes contains no whitespace, no control or shell
 * characters and cannot start with "-".
 */

export interface ImageReference {
  /** Registry host with optional port, e.g. `ghcr.io` or `localhost:5000`; null means Docker Hub. */
  registry: string | null;
  /** Repository path as written, without registry: `nginx`, `team/app`. */
  repository: string;
  tag: string | null;
  digest: string | null;
}

/** `reason` is a short phrase meant to follow "invalid image reference: ", e.g. "starts with '-'". */
export type ImageReferenceParseResult =
  | { ok: true; reference: ImageReference }
  | { ok: false; reason: string };

export const MAX_IMAGE_NAME_LENGTH = 255;

const PATH_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const DOMAIN_NAME =
  /^[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*$/;
const IPV6_HOST = /^\[[a-fA-F0-9:.]+\]$/;
const PORT = /^[0-9]{1,5}$/;
const TAG = /^\w[\w.-]{0,127}$/;
const DIGEST_HEX_LENGTH = new Map([
  ["sha256", 64],
  ["sha384", 96],
  ["sha512", 128],
]);

export function isValidImageReference(ref: string): boolean {
  return parseImageReference(ref).ok;
}

export function parseImageReference(ref: string): ImageReferenceParseResult {
  if (typeof ref !== "string" || ref.length === 0) return invalid("empty");
  if (ref.startsWith("-")) return invalid("starts with '-'");
  if (/[^\x21-\x7e]/.test(ref)) return invalid("contains whitespace, control or non-ASCII characters");

  let rest = ref;
  let digest: string | null = null;
  const at = rest.indexOf("@");
  if (at !== -1) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    const digestProblem = checkDigest(digest);
    if (digestProblem) return invalid(digestProblem);
  }

  let tag: string | null = null;
  const lastColon = rest.lastIndexOf(":");
  if (lastColon > rest.lastIndexOf("/")) {
    tag = rest.slice(lastColon + 1);
    rest = rest.slice(0, lastColon);
    if (!TAG.test(tag)) {
      return invalid("tag must be 1-128 letters, digits, '_', '.' or '-', not starting with '.' or '-'");
    }
  }

  const name = rest;
  if (name.length === 0) return invalid("no repository name");
  if (name.length > MAX_IMAGE_NAME_LENGTH) {
    return invalid(`name longer than ${MAX_IMAGE_NAME_LENGTH} characters`);
  }

  const components = name.split("/");
  let registry: string | null = null;
  if (components.length > 1 && looksLikeRegistry(components[0])) {
    registry = components.shift()!;
    const registryProblem = checkRegistry(registry);
    if (registryProblem) return invalid(registryProblem);
  }
  if (!components.every((component) => PATH_COMPONENT.test(component))) {
    return invalid("repository path allows only lowercase letters, digits and single separators");
  }

  return { ok: true, reference: { registry, repository: components.join("/"), tag, digest } };
}

/** Docker's own rule: the first component is a registry when it has a dot, a port, is `localhost` or has capitals. */
function looksLikeRegistry(component: string): boolean {
  return /[.:]/.test(component) || component === "localhost" || component !== component.toLowerCase();
}

function checkRegistry(registry: string): string | null {
  const match = /^(\[[^\]]*\]|[^:]*)(?::(.*))?$/.exec(registry);
  const host = match?.[1] ?? "";
  const port = match?.[2];
  if (!DOMAIN_NAME.test(host) && !IPV6_HOST.test(host)) {
    return "registry host is not a host name or [IPv6] address";
  }
  if (port !== undefined && !PORT.test(port)) return "registry port is not a number";
  return null;
}

function checkDigest(digest: string): string | null {
  const [algorithm, hex, ...extra] = digest.split(":");
  const length = DIGEST_HEX_LENGTH.get(algorithm);
  if (
    extra.length > 0 ||
    length === undefined ||
    hex === undefined ||
    !new RegExp(`^[a-f0-9]{${length}}$`).test(hex)
  ) {
    return "digest must be sha256:<64 lowercase hex>";
  }
  return null;
}

function invalid(reason: string): ImageReferenceParseResult {
  return { ok: false, reason };
}
