// Issue 27, finding 5, through index.ts: archive writes the disk refuses (a sidecar, the blob directory, a
// session entry; ENOSPC, EACCES, EROFS) never stub an output they failed to archive, lose nothing once the
// disk has room again, and are told to the user once, not once per output.
import { afterAll, describe, expect, mock, spyOn, test } from "bun:test";
import * as actualCompat from "@earendil-works/pi-ai/compat";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeAgentDir, streamReply } from "../../test/fake-host.js";
import { faultyFiles, systemError, type DiskRefusal } from "../../test/faulty-files.js";
import { startSim, type Sim, type SimOptions } from "../../test/session-sim.js";

mock.module("@earendil-works/pi-ai/compat", () => ({
  ...actualCompat,
  stream: (_model: any, context: any) => {
    const labels = [...new Set(String(context.messages[0].content[0].text).match(/\[\[\d+:[^\]\s]+\]\]/g) ?? [])];
    return streamReply(labels.map((label) => `- ${label} counted`).join("\n") || "- counted");
  },
}));

const T = await import("../names.js");

const cleanups: Array<() => void> = [];
afterAll(() => cleanups.forEach((fn) => fn()));

const NO_CHAINS = { enabled: false, rollingWindow: 0, stripFinalAssistantThinking: true, fuseRangeSummary: false };
const CHAINS = { enabled: true, rollingWindow: 0, stripFinalAssistantThinking: true, fuseRangeSummary: false };

function settings(contextPrune: Record<string, unknown> = {}): void {
  const agent = makeAgentDir({ enabled: true, pruneOn: "on-demand", minBatchChars: 0, spillThreshold: 200, chainCompression: NO_CHAINS, ...contextPrune });
  cleanups.push(agent.cleanup);
  process.env.PI_CODING_AGENT_DIR = agent.dir;
}

function sessionDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "disk-faults-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const countTo = (n: number, label: string) => Array.from({ length: n }, (_, i) => `${label} ${i + 1}`).join("\n");
const BIG = countTo(60, "line");
const resultText = (messages: any[], id: string): string | undefined =>
  messages.find((m) => m.role === "toolResult" && m.toolCallId === id)?.content?.map((b: any) => b.text ?? "").join("");
const archiveNotices = (sim: Sim) => sim.fake.notices.filter((n) => n.message.startsWith("pruner: could not write to the archive"));

/** A sim on its own session directory; console.error (every refused write is logged) is kept quiet. */
async function sim(options: SimOptions = {}): Promise<Sim> {
  const errors = spyOn(console, "error").mockImplementation(() => {});
  cleanups.push(() => errors.mockRestore());
  return startSim({ sessionDir: sessionDir(), ...options });
}

const refuseEntry = (customType: string) => (type: string) => {
  if (type === customType) throw systemError("ENOSPC", "write", "/sessions/test.jsonl");
};

describe("archive writes the disk refuses, through index.ts (issue 27, finding 5)", () => {
  test("with room on the disk an oversized output is spilled and stubbed at once", async () => {
    settings();
    const s = await sim({ files: faultyFiles() });
    await s.prompt({ turns: [[{ id: "big", text: BIG }]] });
    expect(resultText(await s.render(), "big")).toContain("Oversized output spilled to file");
  });

  test.each(["ENOSPC", "EACCES", "EROFS"] as DiskRefusal[])("a sidecar refused with %s leaves its output raw in the next request", async (code) => {
    settings();
    const s = await sim({ files: faultyFiles({ create: code }) });
    await s.prompt({ turns: [[{ id: "big", text: BIG }]] });
    expect(resultText(await s.render(), "big")).toBe(BIG);
  });

  test.each(["ENOSPC", "EACCES", "EROFS"] as DiskRefusal[])("a blob directory refused with %s leaves its output raw in the next request", async (code) => {
    settings();
    const s = await sim({ files: faultyFiles({ mkdir: code }) });
    await s.prompt({ turns: [[{ id: "big", text: BIG }]] });
    expect(resultText(await s.render(), "big")).toBe(BIG);
  });

  test("a blob directory that cannot be created is told once, however many outputs it refuses", async () => {
    settings();
    const dir = sessionDir();
    writeFileSync(join(dir, "test-blobs"), "a file where the blob directory belongs");
    const s = await sim({ sessionDir: dir });
    await s.prompt({ turns: [[{ id: "big1", text: BIG }]] });
    await s.prompt({ turns: [[{ id: "big2", text: countTo(60, "row") }]] });
    expect(archiveNotices(s)).toHaveLength(1);
    expect(archiveNotices(s)[0]!.type).toBe("warning");
  });

  test("an index entry the session refuses leaves the spilled output raw in the next request", async () => {
    settings();
    const s = await sim({ beforeSessionAppend: refuseEntry(T.CUSTOM_TYPE_INDEX) });
    await s.prompt({ turns: [[{ id: "big", text: BIG }]] });
    expect(resultText(await s.render(), "big")).toBe(BIG);
    expect(archiveNotices(s)).toHaveLength(1);
  });

  test("an output whose sidecar was refused loses nothing: once the disk has room, the next flush archives it and it comes back verbatim", async () => {
    settings();
    const files = faultyFiles({ create: "ENOSPC" });
    const s = await sim({ files });
    await s.prompt({ turns: [[{ id: "big", text: BIG }]], final: "Counted." });
    files.faults = {};
    await s.host.commands.get("pruner").handler("now", s.ctx);
    expect(resultText(await s.render(), "big")).toStartWith("[Summarized in pruner summary, ref `t1`.");
    expect((await s.query(["t1"])).text).toEndWith(`\n\n${BIG}`);
  });

  test("a flush whose summary the session refuses leaves its outputs raw and is told once as a refused write, not as a failed summary", async () => {
    settings({ pruneOn: "agent-message", flushPolicy: "classic", spillThreshold: 65536 });
    const s = await sim({ beforeSessionAppend: refuseEntry(T.CUSTOM_TYPE_SUMMARY) });
    await s.prompt({ turns: [[{ id: "out1", text: countTo(60, "a") }]], final: "One." });
    await s.prompt({ turns: [[{ id: "out2", text: countTo(60, "b") }]], final: "Two." });
    const rendered = await s.render();
    expect([resultText(rendered, "out1"), resultText(rendered, "out2")]).toEqual([countTo(60, "a"), countTo(60, "b")]);
    expect(archiveNotices(s)).toHaveLength(1);
    expect(s.fake.notices.filter((n) => n.message.startsWith("pruner: summarization failed"))).toEqual([]);
  });

  test("/pruner compact never drops a chain whose oversized output it cannot archive", async () => {
    settings({ chainCompression: CHAINS });
    const s = await sim({ files: faultyFiles({ create: "ENOSPC" }) });
    for (let k = 1; k <= 3; k++) await s.prompt({ turns: [[{ id: `big${k}`, text: countTo(60, `prompt ${k} line`) }]], final: `Prompt ${k} done.` });
    await s.host.commands.get("pruner").handler("compact", s.ctx);
    const rendered = await s.render();
    for (let k = 1; k <= 3; k++) expect(resultText(rendered, `big${k}`)).toBe(countTo(60, `prompt ${k} line`));
    expect(archiveNotices(s)).toHaveLength(1);
  });
});
