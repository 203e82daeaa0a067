/// <reference types="astro/client" />

declare namespace App {
  interface Locals {
    /** The signed-in user; null only on public pages such as /sign-in. */
    user: import("./lib/session.ts").SessionUser | null;
    lang: import("./lib/i18n.ts").Lang;
    theme: import("./lib/preferences.ts").Theme;
    /** Set by the middleware when the session check could not reach the backend. */
    backendUnavailable?: boolean;
  }
}
