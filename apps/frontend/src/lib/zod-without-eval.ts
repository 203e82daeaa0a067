import { z } from "zod";

// Zod compiles object parsers with `new Function` once it has found eval allowed, and finding out
// is itself an eval the page's CSP refuses (a violation report on every page that parses an object).
z.config({ jitless: true });
