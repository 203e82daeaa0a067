import { expect, test } from "vitest";
import { signInPathFor } from "./redirects.ts";

test("signInPathFor carries the path and query", () => {
  expect(signInPathFor("/history?range=7d")).toBe("/sign-in?next=%2Fhistory%3Frange%3D7d");
});
