import { afterAll, describe, expect, test } from "bun:test";
import { assistantText, makeAgentDir, makeFakeCtx, makeFakePi, msgEntry, user } from "../../test/fake-host.js";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import piCondense from "../../index.js";

const originalAgentDir = process.env.PI_CODING_AGENT_DIR;
const cleanups: Array<() => void> = [];
afterAll(() => {
  cleanups.forEach((fn) => fn());
  if (originalAgentDir === undefined) delete process.env.PI_CODING_AGENT_DIR;
  else process.env.PI_CODING_AGENT_DIR = originalAgentDir;
});

/** A session started on the given settings; `resumed` gives it a transcript, `tui` the TUI's mode. */
async function startedOn(contextPrune: Record<string, unknown>, opts: { resumed?: boolean; tui?: boolean } = {}) {
  const agent = makeAgentDir(contextPrune);
  cleanups.push(agent.cleanup);
  process.env.PI_CODING_AGENT_DIR = agent.dir;
  const host = makeFakePi();
  piCondense(host.pi as any);
  const branch = opts.resumed ? [msgEntry(user(1, "hello")), msgEntry(assistantText(2, "hi"))] : [];
  const fake = makeFakeCtx(host, { branch });
  if (opts.tui) (fake.ctx as any).mode = "tui";
  await host.handlers.get("session_start")!({ type: "session_start", reason: "startup" }, fake.ctx);
  const pruner = (args: string) => host.commands.get("pruner")!.handler(args, fake.ctx);
  return { host, fake, pruner };
}

async function sessionStartNotices(contextPrune: Record<string, unknown>) {
  const { fake } = await startedOn(contextPrune);
  return fake.notices.filter((notice) => notice.type === "warning").map((notice) => notice.message);
}

describe("settings warnings at session_start", () => {
  test("each wrong-typed setting is shown as one warning naming its key", async () => {
    const warnings = await sessionStartNotices({ enabled: "true", minBatchChars: "500", chainCompression: {} });
    expect(warnings).toHaveLength(3);
    expect(warnings[0]).toContain("contextPrune.enabled");
    expect(warnings[1]).toContain("contextPrune.minBatchChars");
    expect(warnings[2]).toContain("contextPrune.chainCompression");
  });

  test("valid settings show no warning", async () => {
    expect(await sessionStartNotices({ enabled: true, minBatchChars: 500, thinkingStrip: { enabled: true } })).toEqual([]);
  });

  test("an unknown key gets a warning naming it", async () => {
    const warnings = await sessionStartNotices({ enabled: true, madeUpKey: 1 });
    expect(warnings).toEqual(["pruner: settings.json contextPrune.madeUpKey is not a pi-condense setting; it is left in the file and ignored"]);
  });
});

describe("settings warnings on a resumed session (issue 45, point 7)", () => {
  test("in the TUI they become one report entry, drawn after the restored transcript, not notices above it", async () => {
    const { host, fake } = await startedOn({ enabled: "yes", madeUpKey: 1 }, { resumed: true, tui: true });
    expect(fake.notices.filter((n) => n.type === "warning")).toEqual([]);
    const reports = host.entries.filter((e) => e.customType === "context-prune-report").map((e) => e.data);
    expect(reports).toHaveLength(1);
    expect(reports[0].level).toBe("warning");
    const [head, ...lines] = reports[0].text.split("\n");
    expect(head).toMatch(/^pruner: 2 problems in the contextPrune settings of .*settings\.json:$/);
    expect(lines).toEqual([
      '  contextPrune.enabled should be true or false, found the string "yes"; using false',
      "  contextPrune.madeUpKey is not a pi-condense setting; it is left in the file and ignored",
    ]);
  });

  test("a fresh session keeps one notice per warning", async () => {
    const { host, fake } = await startedOn({ enabled: "yes" }, { tui: true });
    expect(fake.notices.filter((n) => n.type === "warning")).toHaveLength(1);
    expect(host.entries.filter((e) => e.customType === "context-prune-report")).toEqual([]);
  });
});

describe("why pruning is off (issue 45, point 7)", () => {
  test("an enabled that is not true or false: the footer says prune: OFF and why", async () => {
    const { fake } = await startedOn({ enabled: "yes" }, { resumed: true });
    expect(fake.lastStatus()).toBe("\u2502 prune: OFF \u00b7 settings.json: enabled is not true or false");
  });

  test("/pruner status says Enabled: false and why", async () => {
    const { fake, pruner } = await startedOn({ enabled: "yes" });
    await pruner("status");
    const status = fake.notices.at(-1)!.message;
    expect(status).toMatch(/^ {2}Enabled: +false \(off because settings\.json contextPrune\.enabled should be true or false, found the string "yes"; fix it there, or \/pruner on\)$/m);
  });

  test("a contextPrune that is not an object: the footer names it", async () => {
    const agent = makeAgentDir({});
    cleanups.push(agent.cleanup);
    writeFileSync(join(agent.dir, "settings.json"), JSON.stringify({ contextPrune: "on" }));
    process.env.PI_CODING_AGENT_DIR = agent.dir;
    const host = makeFakePi();
    piCondense(host.pi as any);
    const fake = makeFakeCtx(host);
    await host.handlers.get("session_start")!({ type: "session_start" }, fake.ctx);
    expect(fake.lastStatus()).toBe("\u2502 prune: OFF \u00b7 settings.json: contextPrune is not an object");
  });

  test("pruning the user turned off, or never on, shows the plain prune: OFF", async () => {
    expect((await startedOn({ enabled: false })).fake.lastStatus()).toBe("\u2502 prune: OFF");
    expect((await startedOn({})).fake.lastStatus()).toBe("\u2502 prune: OFF");
  });

  test("once the user turns pruning on and off again, the settings reason is gone", async () => {
    const { fake, pruner } = await startedOn({ enabled: "yes" });
    await pruner("on");
    expect(fake.lastStatus()).toStartWith("\u2502 prune: ON");
    await pruner("off");
    expect(fake.lastStatus()).toBe("\u2502 prune: OFF");
    await pruner("status");
    expect(fake.notices.at(-1)!.message).toMatch(/^ {2}Enabled: +false$/m);
  });
});
