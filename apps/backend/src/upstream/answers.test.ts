import { describe, expect, it } from "vitest";
import { answerSchemas } from "./answers.ts";

const answers = answerSchemas((text) => text.replaceAll("s3cr3t-value", "[redacted]"));

const stack = (overrides: Record<string, unknown> = {}, info: Record<string, unknown> = {}) => ({
  id: "65f0",
  name: "web",
  extra: { ignored: true },
  info: {
    state: "running",
    status: "Up 3 hours",
    services: [{ service: "app", image: "acme/web:1", update_available: false, container: {} }],
    ...info,
  },
  ...overrides,
});

/** Answers ListStacks may get: well-formed ones and every kind of wrong one. */
const samples: unknown[] = [
  [],
  [stack()],
  [stack({}, { status: null }), stack({}, { status: undefined }), stack({ name: "api" }, { services: [] })],
  [stack({ name: "red\u001b[31mname\u202e s3cr3t-value" }, { state: "x".repeat(3000) })],
  {},
  null,
  "[]",
  [null],
  [[]],
  [{ x: 1 }],
  [stack({ id: 7 })],
  [stack({ name: null })],
  [stack({ info: [] })],
  [stack({}, { state: 1 })],
  [stack({}, { status: 5 })],
  [stack({}, { services: {} })],
  [stack({}, { services: [null] })],
  [stack({}, { services: [{ service: "app", image: "acme/web:1" }] })],
  [stack({}, { services: [{ service: "app", image: 3, update_available: true }] })],
  [stack(), stack({ id: undefined })],
];

describe("ListStacks' one-pass reader", () => {
  it.each(samples.map((sample, index) => [index, sample]))(
    "agrees with the schema on sample %i",
    (_, sample) => {
      const checked = answers.stackList.safeParse(sample);
      const read = answers.readStackList(sample);
      if (checked.success) expect(read).toStrictEqual(checked.data);
      else expect(read).toBeUndefined();
    },
  );

  it("cleans and cuts every text it keeps", () => {
    const [item] = answers.readStackList(samples[3])!;
    expect(item!.name).toBe("redname [redacted]");
    expect(item!.info.state).toHaveLength(2000);
  });
});
