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

const stage = (overrides: Record<string, unknown> = {}) => ({
  stage: "Compose Pull",
  command: "docker compose pull",
  stdout: "Pulled",
  stderr: "",
  success: true,
  start_ts: 1_700_000_000_000,
  end_ts: 1_700_000_001_000,
  ...overrides,
});
const update = (overrides: Record<string, unknown> = {}) => ({
  _id: { $oid: "65f1" },
  operation: "PullStack",
  status: "Complete",
  success: true,
  logs: [stage()],
  version: { major: 2 },
  ...overrides,
});

/** Updates (`GetUpdate`, an execute's answer) as Komodo may send them, and wrong ones. */
const updateSamples: unknown[] = [
  update(),
  update({ logs: [] }),
  update({ _id: undefined }),
  update({ logs: [stage({ command: null, start_ts: null, end_ts: undefined })] }),
  update({ logs: [stage({ command: undefined })] }),
  (({ _id, ...rest }) => rest)(update()),
  update({ logs: [(({ command, start_ts, end_ts, ...rest }) => rest)(stage())] }),
  update({ logs: [stage({ stdout: `${"x".repeat(300_000)}s3cr3t-value` })] }),
  update({ operation: "Pull\u001b[31mStack s3cr3t-value" }),
  // What the schema takes in its stride (an odd command or time reads as unknown); the reader leaves it to the schema.
  update({ logs: [stage({ command: 7 })] }),
  update({ logs: [stage({ start_ts: -1, end_ts: 1.5 })] }),
  update({ logs: [stage({ start_ts: 2 ** 60 })] }),
  update({ _id: { $oid: 5 } }),
  update({ _id: "65f1" }),
  update({ success: "yes" }),
  update({ logs: null }),
  update({ logs: [null] }),
  update({ logs: [stage({ stderr: 3 })] }),
  update({ status: undefined }),
  [],
  null,
];

describe("an Update's one-pass reader", () => {
  it.each(updateSamples.map((sample, index) => [index, sample]))(
    "agrees with the schema on sample %i",
    (_, sample) => {
      const checked = answers.update.safeParse(sample);
      const read = answers.readUpdate(sample);
      if (read !== undefined) expect(read).toStrictEqual(checked.data);
      else if (checked.success)
        expect(JSON.stringify(sample)).toMatch(/"command":7|"start_ts":(-1|1152921504606847000)|"\$oid":5/);
    },
  );

  it("reads the well-formed ones itself", () => {
    for (const index of [0, 1, 2, 3, 4, 5, 6, 7, 8])
      expect(answers.readUpdate(updateSamples[index])).toBeDefined();
  });
});

const service = (
  overrides: Record<string, unknown> = {},
  container: Record<string, unknown> | null = {},
) => ({
  service: "web",
  image: "nginx:1.27",
  container:
    container === null
      ? null
      : {
          id: "c0ffee",
          state: "running",
          status: "Up 3 minutes",
          created: 1_700_000_000,
          image_id: "sha256:ab",
          names: ["web-1"],
          ...container,
        },
  image_digests: ["nginx@sha256:3f2a"],
  ...overrides,
});

/** `ListStackServices` answers of Komodo 2.x and 1.x, and wrong ones. */
const servicesSamples: unknown[] = [
  [],
  [service(), service({ service: "cache", image: "redis:7" })],
  [service({ image_digests: undefined })],
  [service({ image_digests: null }, null)],
  [service({ container: undefined })],
  [(({ container, image_digests, ...rest }) => rest)(service())],
  [service({}, { id: undefined })],
  [service({}, { id: null, status: undefined, created: null, image_id: undefined })],
  [service({ service: "we\u001b[31mb s3cr3t-value" })],
  // The schema reads these odd parts as unknown; the reader leaves them to it.
  [service({}, { created: "yesterday" })],
  [service({ image_digests: [1] })],
  [service({}, { state: 1 })],
  [service({ image: null })],
  [null],
  {},
  null,
];

describe("ListStackServices' one-pass reader", () => {
  it.each(servicesSamples.map((sample, index) => [index, sample]))(
    "agrees with the schema on sample %i",
    (_, sample) => {
      const checked = answers.stackServices.safeParse(sample);
      const read = answers.readStackServices(sample);
      if (read !== undefined) expect(read).toStrictEqual(checked.data);
    },
  );

  it("reads the well-formed ones itself", () => {
    for (const index of [0, 1, 2, 3, 4, 5, 6, 7, 8])
      expect(answers.readStackServices(servicesSamples[index])).toBeDefined();
    expect(answers.readStackServices(servicesSamples[8])![0]!.service).toBe("web [redacted]");
  });
});
