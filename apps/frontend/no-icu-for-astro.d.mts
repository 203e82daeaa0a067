import type { Plugin } from "vite";

export function noIcuForAstro(): Plugin;
export const rewrites: { file: string; from: string | RegExp; to: string; helper: string }[];
export function rewriteForNoIcu(code: string, id: string): { code: string; map: null } | undefined;
