import { describe, expect, it } from "vitest";
import { isValidImageReference, parseImageReference } from "./image-reference.ts";

const DIGEST = `sha256:${"0123456789abcdef".repeat(4)}`;

describe("isValidImageReference", () => {
  it.each([
    "nginx",
    "nginx:1.27-alpine",
    "library/nginx:latest",
    "ghcr.io/acme/team/api:v2.3.1",
    "registry.example.com:5000/app/web:2024.06.01_rc-1",
    "localhost:5000/app",
    "localhost/app",
    "[::1]:5000/app:dev",
    `alpine@${DIGEST}`,
    `ghcr.io/acme/api:1.0@${DIGEST}`,
    `registry.example.com/app@sha512:${"ab".repeat(64)}`,
    "a__b/c--d/e.f_g:Tag_With.Dots-1",
    `repo:${"t".repeat(128)}`,
  ])("accepts %s", (ref) => {
    expect(isValidImageReference(ref)).toBe(true);
  });

  it.each([
    ["empty", ""],
    ["a leading dash", "-x"],
    ["an option", "--help"],
    ["a short option", "-v"],
    ["a shell command", "a;rm -rf /"],
    ["a semicolon without spaces", "a;id"],
    ["command substitution", "$(id)"],
    ["backticks", "`id`"],
    ["a pipe", "nginx|sh"],
    ["an ampersand", "nginx&&id"],
    ["a redirection", "nginx>out"],
    ["a newline", "nginx\nid"],
    ["a trailing newline", "nginx\n"],
    ["a carriage return", "nginx\r"],
    ["a tab", "nginx\t:1"],
    ["a space", "nginx latest"],
    ["a NUL byte", "nginx\0"],
    ["non-ASCII", "ngïnx"],
    ["capitals in the path", "library/Nginx"],
    ["an empty tag", "nginx:"],
    ["a tag starting with a dot", "nginx:.1"],
    ["a tag of 129 characters", `repo:${"t".repeat(129)}`],
    ["an empty digest", "nginx@"],
    ["a short digest", "nginx@sha256:abc"],
    ["an uppercase digest", `nginx@${DIGEST.toUpperCase()}`],
    ["an unknown digest algorithm", `nginx@md5:${"a".repeat(32)}`],
    ["a double slash", "acme//api"],
    ["a trailing slash", "acme/api/"],
    ["a leading separator", "acme/_api"],
    ["a triple underscore", "a___b"],
    ["a bad port", "registry.example.com:http/app"],
    ["a registry without a repository", "registry.example.com:5000/"],
    ["a name over 255 characters", `registry.example.com/${"a".repeat(240)}`],
    ["a path traversal", "../../etc/passwd"],
  ])("rejects %s", (_label, ref) => {
    expect(isValidImageReference(ref)).toBe(false);
  });
});

describe("parseImageReference", () => {
  it("splits registry, repository, tag and digest", () => {
    expect(parseImageReference(`registry.example.com:5000/team/app:1.0@${DIGEST}`)).toEqual({
      ok: true,
      reference: {
        registry: "registry.example.com:5000",
        repository: "team/app",
        tag: "1.0",
        digest: DIGEST,
      },
    });
    expect(parseImageReference("team/app")).toEqual({
      ok: true,
      reference: { registry: null, repository: "team/app", tag: null, digest: null },
    });
  });

  it("explains a rejection without repeating the input", () => {
    const result = parseImageReference("--help");
    expect(result).toEqual({ ok: false, reason: "starts with '-'" });
  });
});
