/** The address of a stack's page: every character of the name that means something in a URL is escaped. */
export const stackHref = (stack: string) => `/stacks/${encodeURIComponent(stack)}`;

const PREFIX = "/stacks/";

/**
 * The stack name in a stack page's address, the inverse of `stackHref`. Astro decodes the route
 * parameter with decodeURI, which leaves the escapes of reserved characters (`%3D` for `=`, `%26`,
 * `%23`, `%3F`, `%2F`…) as they are; the name is decoded whole here instead. Null when the path is
 * not a stack page or its escapes are malformed.
 */
export function stackNameFromPath(pathname: string): string | null {
  if (!pathname.startsWith(PREFIX)) return null;
  try {
    const name = decodeURIComponent(pathname.slice(PREFIX.length));
    return name === "" ? null : name;
  } catch {
    return null;
  }
}
