/**
 * Replay benchmark (issue 19): `/pruner report`'s replay of a synthetic 5,000-request session for its
 * three configurations (no pruning, as recorded from the session's own pi-condense entries, what-if).
 * The session: 500 user prompts, each answered by 9 tool turns (one bash call, a 1,500-char output) and a
 * final text reply; after each reply a flush wrote a summary and an index entry, as pi-condense does.
 * Requests 5 s apart, an 8-minute pause every 25 prompts (a cold cache). Like pi, the session compacts
 * when its context would pass the model's window less pi's reserve (200k - 16,384 tokens at chars/4):
 * 5,000 requests without one would be a 2.2M-token context no model takes.
 * Times the whole replay (requests, renders, cache simulation under Anthropic's rule with the what-if billed
 * with and without pi-condense's spare breakpoint, totals) and, apart, the parse of the JSONL.
 * Run: bun bench/replay.ts
 */
import { getBuiltinModel } from "@earendil-works/pi-ai/providers/all";
import { costModelFor } from "../src/economics/cost-model.js";
import { replaySession } from "../src/report/replay.js";
import { parseSession } from "../src/report/session-parse.js";
import { cacheLines } from "../src/report/text-report.js";
import { CUSTOM_TYPE_INDEX, CUSTOM_TYPE_SUMMARY } from "../src/names.js";
import { DEFAULT_CONFIG } from "../src/settings/config-shape.js";
import { reportTargets } from "./targets.js";

const PROMPTS = Number(process.env.REPLAY_PROMPTS ?? 500);
const TOOL_TURNS = 9;
const RESULT_CHARS = 1_500;
const TARGET_MS = 10_000;
const COMPACT_AT_CHARS = (200_000 - 16_384) * 4;

function syntheticSession(): string {
  const lines: string[] = [JSON.stringify({ type: "session", version: 3, id: "bench", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/bench" })];
  let parent: string | null = null;
  let n = 0;
  let time = Date.UTC(2025, 0, 1);
  let ref = 1;
  const add = (fields: Record<string, unknown>) => {
    const id = (++n).toString(16).padStart(8, "0");
    lines.push(JSON.stringify({ ...fields, id, parentId: parent, timestamp: new Date(time).toISOString() }));
    parent = id;
  };
  const message = (m: Record<string, unknown>) => add({ type: "message", message: { ...m, timestamp: time } });
  const assistant = (content: unknown[]) => message({ role: "assistant", content, provider: "anthropic", model: "claude-sonnet-4-5", api: "anthropic-messages", stopReason: "stop" });
  message({ role: "system", content: "", sections: { preamble: "You are a coding assistant.".repeat(40) }, toolsAdded: [{ name: "bash", description: "Run a command", parameters: {} }] });
  let contextChars = 0;
  for (let p = 0; p < PROMPTS; p++) {
    time += p > 0 && p % 25 === 0 ? 8 * 60_000 : 5_000;
    const promptChars = TOOL_TURNS * (RESULT_CHARS + 300);
    if (contextChars + promptChars > COMPACT_AT_CHARS) {
      add({ type: "compaction", summary: `Summary of tasks before ${p}.`.repeat(50), firstKeptEntryId: "", tokensBefore: Math.round(contextChars / 4) });
      // A retain-none compaction names itself: nothing before it is kept.
      const self = JSON.parse(lines[lines.length - 1]!);
      self.firstKeptEntryId = self.id;
      lines[lines.length - 1] = JSON.stringify(self);
      contextChars = 0;
    }
    contextChars += promptChars;
    message({ role: "user", content: `task ${p}` });
    const records: any[] = [];
    for (let t = 0; t < TOOL_TURNS; t++) {
      time += 5_000;
      const id = `call_${p}_${t}`;
      assistant([{ type: "text", text: `step ${t}` }, { type: "toolCall", id, name: "bash", arguments: { command: `cat file_${p}_${t}` } }]);
      const text = `output ${p}/${t}\n${"x".repeat(RESULT_CHARS)}`;
      message({ role: "toolResult", toolCallId: id, toolName: "bash", content: [{ type: "text", text }], isError: false });
      records.push({ toolCallId: id, toolName: "bash", args: { command: `cat file_${p}_${t}` }, resultText: text, isError: false, turnIndex: t, timestamp: time, resultTimestamp: time });
    }
    time += 5_000;
    assistant([{ type: "text", text: `done ${p}` }]);
    const refs = records.map((r) => ({ shortId: `t${ref++}`, toolCallId: r.toolCallId, resultTimestamp: r.resultTimestamp }));
    add({ type: "custom_message", customType: CUSTOM_TYPE_SUMMARY, content: `- summary of task ${p}`.repeat(10), display: false, details: { toolCallRefs: refs, toolNames: records.map(() => "bash"), turnIndex: 0, timestamp: time } });
    add({ type: "custom", customType: CUSTOM_TYPE_INDEX, data: { toolCalls: records, refs } });
  }
  return `${lines.join("\n")}\n`;
}

const text = syntheticSession();
const parseStart = performance.now();
const parsed = parseSession(text);
const parseMs = performance.now() - parseStart;
const model = getBuiltinModel("anthropic", "claude-sonnet-4-5");
const start = performance.now();
const report = await replaySession({
  sessionId: parsed.id,
  branch: parsed.branch,
  problems: parsed.problems,
  config: { ...DEFAULT_CONFIG, enabled: true },
  overrides: [],
  costModelOf: () => ({ cost: costModelFor(model), contextWindow: model.contextWindow }),
});
const replayMs = performance.now() - start;

const compactions = parsed.branch.filter((e) => e.type === "compaction").length;
console.log(`replay benchmark: ${report.requests} requests, ${parsed.branch.length} entries (${compactions} compactions), ${(text.length / 1e6).toFixed(1)} MB of JSONL`);
console.log(`  parse:  ${parseMs.toFixed(0)} ms`);
console.log(`  replay: ${replayMs.toFixed(0)} ms for ${report.scenarios.length} configurations (${report.scenarios.map((s) => s.label).join(", ")})`);
for (const s of report.scenarios) console.log(`    ${s.label.padEnd(12)} peak ${Math.round(s.totals.peakContext)} tokens, ${s.totals.prefixBreaks} prefix breaks, $${s.totals.dollars?.toFixed(2)}`);
for (const line of cacheLines(report)) console.log(`  ${line}`);
reportTargets([
  { name: `5,000 requests replayed (${report.requests})`, met: report.requests === PROMPTS * (TOOL_TURNS + 1) },
  { name: "three configurations", met: report.scenarios.length === 3 },
  { name: `parse + replay under ${TARGET_MS / 1000} s (${((parseMs + replayMs) / 1000).toFixed(2)} s)`, met: parseMs + replayMs < TARGET_MS },
]);
