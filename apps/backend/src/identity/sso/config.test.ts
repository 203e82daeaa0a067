import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../platform/config.ts";
import { claimValues, roleFromClaims } from "./roles.ts";

const provider = {
  OIDC_ISSUER_URL: "https://id.example.com/application/o/stackgate/",
  OIDC_CLIENT_ID: "stackgate",
};

describe("single sign-on configuration", () => {
  it("is off by default, with password sign-in on", () => {
    expect(loadConfig({})).toMatchObject({ passwordSignIn: true, singleSignOn: null });
  });

  it("applies the documented defaults", () => {
    const config = loadConfig({ ...provider, OIDC_CLIENT_SECRET: "s3cret-value" });
    expect(config.singleSignOn).toEqual({
      issuerUrl: provider.OIDC_ISSUER_URL,
      clientId: "stackgate",
      clientSecret: "s3cret-value",
      name: "single sign-on",
      scopes: "openid email profile groups",
      roleClaim: "groups",
      roleValues: { admin: [], deployer: [], viewer: [] },
      defaultRole: null,
      autoRedirect: false,
    });
    const keycloak = loadConfig({
      ...provider,
      OIDC_CLIENT_SECRET: "s3cret-value",
      OIDC_ROLE_CLAIM: "realm_access.roles",
      OIDC_ADMIN_VALUES: " ops , platform,",
      OIDC_DEFAULT_ROLE: "viewer",
    }).singleSignOn;
    expect(keycloak).toMatchObject({
      scopes: "openid email profile",
      roleValues: { admin: ["ops", "platform"] },
      defaultRole: "viewer",
    });
  });

  it("takes empty values (compose passes unset variables as empty) as unset", () => {
    const empty = Object.fromEntries(
      [
        "OIDC_ISSUER_URL",
        "OIDC_CLIENT_ID",
        "OIDC_CLIENT_SECRET",
        "OIDC_CLIENT_SECRET_FILE",
        "OIDC_NAME",
        "OIDC_SCOPES",
      ]
        .concat(["OIDC_ROLE_CLAIM", "OIDC_ADMIN_VALUES", "OIDC_DEPLOYER_VALUES", "OIDC_VIEWER_VALUES"])
        .map((name) => [name, ""]),
    );
    expect(loadConfig(empty).singleSignOn).toBeNull();
    expect(loadConfig({ ...empty, ...provider, OIDC_CLIENT_SECRET: "x" }).singleSignOn).toMatchObject({
      name: "single sign-on",
      roleClaim: "groups",
      scopes: "openid email profile groups",
    });
  });

  it("reads the client secret from OIDC_CLIENT_SECRET_FILE", () => {
    const file = join(mkdtempSync(join(tmpdir(), "stackgate-oidc-")), "secret");
    writeFileSync(file, "from-a-file\n");
    expect(loadConfig({ ...provider, OIDC_CLIENT_SECRET_FILE: file }).singleSignOn?.clientSecret).toBe(
      "from-a-file",
    );
  });

  it.each([
    [{ ...provider }, /OIDC_CLIENT_SECRET: required/],
    [{ OIDC_ISSUER_URL: provider.OIDC_ISSUER_URL, OIDC_CLIENT_SECRET: "x" }, /OIDC_CLIENT_ID: required/],
    [{ OIDC_CLIENT_ID: "stackgate" }, /OIDC_ISSUER_URL: required when OIDC_CLIENT_ID is set/],
    [{ ...provider, OIDC_ISSUER_URL: "ftp://id.example.com" }, /OIDC_ISSUER_URL/],
    [
      { ...provider, OIDC_CLIENT_SECRET_FILE: "/nonexistent/secret" },
      /OIDC_CLIENT_SECRET_FILE: cannot read .*ENOENT/,
    ],
    [
      { ...provider, OIDC_CLIENT_SECRET: "x", OIDC_CLIENT_SECRET_FILE: "/x" },
      /OIDC_CLIENT_SECRET_FILE: set either/,
    ],
    [
      { ...provider, OIDC_CLIENT_SECRET: "x", OIDC_DEFAULT_ROLE: "owner" },
      /OIDC_DEFAULT_ROLE: must be admin/,
    ],
    [{ ...provider, OIDC_CLIENT_SECRET: "x", OIDC_ROLE_CLAIM: "realm_access..roles" }, /OIDC_ROLE_CLAIM/],
    [
      { ...provider, OIDC_CLIENT_SECRET: "x", OIDC_SCOPES: "email profile" },
      /OIDC_SCOPES: must include openid/,
    ],
    [{ ...provider, OIDC_CLIENT_SECRET: "x", OIDC_AUTO_REDIRECT: "maybe" }, /OIDC_AUTO_REDIRECT/],
    [{ PASSWORD_SIGN_IN: "false" }, /PASSWORD_SIGN_IN: false needs single sign-on/],
  ])("refuses %o with one line naming the variable", (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
    try {
      loadConfig(env);
    } catch (error) {
      expect((error as Error).message).not.toContain("\n");
      expect((error as Error).message).not.toMatch(/s3cret/);
    }
  });
});

describe("roles from the claim", () => {
  const config = loadConfig({
    ...provider,
    OIDC_CLIENT_SECRET: "x",
    OIDC_ROLE_CLAIM: "realm_access.roles",
    OIDC_ADMIN_VALUES: "ops",
    OIDC_DEPLOYER_VALUES: "ci,devs",
    OIDC_VIEWER_VALUES: "everyone",
  }).singleSignOn!;

  it("follows dotted paths and takes lists or a lone string", () => {
    expect(claimValues({ realm_access: { roles: ["a", 1, "b"] } }, "realm_access.roles")).toEqual(["a", "b"]);
    expect(claimValues({ groups: "admins" }, "groups")).toEqual(["admins"]);
    expect(claimValues({ realm_access: "x" }, "realm_access.roles")).toEqual([]);
  });

  it("picks the strongest role any value maps to, or none", () => {
    expect(roleFromClaims({ realm_access: { roles: ["everyone", "devs"] } }, config)).toBe("deployer");
    expect(roleFromClaims({ realm_access: { roles: ["everyone", "ops"] } }, config)).toBe("admin");
    expect(roleFromClaims({ realm_access: { roles: ["Ops"] } }, config)).toBeNull();
    expect(roleFromClaims({ groups: ["ops"] }, config)).toBeNull();
  });
});
