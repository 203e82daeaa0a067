import { describe, expect, test } from "vitest";
import { formatElapsed, parseDuration } from "./duration.ts";
import { createProgress } from "./progress.ts";

function recorder(isTTY: boolean) {
  const written: string[] = [];
  return { written, stream: { isTTY, write: (text: string) => written.push(text) > 0 } as never };
}

describe("progress", () => {
  test("on a terminal: one line redrawn in place with the step and the elapsed time", () => {
    let now = 0;
    const { written, stream } = recorder(true);
    const progress = createProgress({ stream, what: "web · redeploy", now: () => now });
    progress.started("run-1");
    now = 65_000;
    progress.step("take-down");
    progress.note("The event stream was interrupted (it closed); reconnecting");
    progress.stop();
    expect(written).toEqual([
      "\r\u001b[2Kweb · redeploy · waiting for Komodo · 0:00",
      "\r\u001b[2Kweb · redeploy · taking the stack down · 1:05",
      "\r\u001b[2K",
      "The event stream was interrupted (it closed); reconnecting\n",
      "\r\u001b[2Kweb · redeploy · taking the stack down · 1:05",
      "\r\u001b[2K",
    ]);
  });

  test("elsewhere: a plain timestamped line per change, none for a repeated step", () => {
    let now = 0;
    const { written, stream } = recorder(false);
    const progress = createProgress({ stream, what: "web · pull", now: () => now });
    progress.started("run-1");
    now = 3_000;
    progress.step("pull");
    progress.step("pull");
    now = 12_500;
    progress.step("\u001b[31mnew-step");
    progress.stop();
    expect(written.join("")).toBe(
      "[0:00] web · pull: started (run run-1)\n[0:03] step: pulling images\n[0:12] step: [31mnew-step\n",
    );
  });
});

test("durations as pipelines write them", () => {
  expect(parseDuration("15m")).toBe(900_000);
  expect(parseDuration("1h30m")).toBe(5_400_000);
  expect(parseDuration("90")).toBe(90_000);
  expect(parseDuration("500ms")).toBe(500);
  expect(parseDuration("soon")).toBeUndefined();
  expect(parseDuration("15 m")).toBeUndefined();
  expect(formatElapsed(3_725_000)).toBe("1:02:05");
});
