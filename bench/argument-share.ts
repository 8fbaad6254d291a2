/**
 * Argument-share measurement (issue 35): the share of the characters sent that are `edit` and `write`
 * arguments, replaying recorded pi sessions as `/pruner report` does (`src/report/replay.ts`): pi alone,
 * the cost policy with `stubArguments` off (as before argument stubs), and the cost policy with it on;
 * with the what-if's dollars at the session model's catalog prices.
 * Characters: each request's messages as JSON (`sizeMessages`), without the turns that stopped with an
 * error or aborted (pi-ai never sends them); arguments: each edit's or write's `arguments` as JSON.
 * Finished: the arguments of calls a user prompt came after. Targets: on both sessions, finished edit and
 * write arguments at most 5% of the characters the cost policy sends with argument stubs; the strict dollars at least 8% lower with them on the session where they weigh more.
 * Run: bun bench/argument-share.ts [session.jsonl ...]
 */
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { getBuiltinModel } from "@earendil-works/pi-ai/providers/all";
import { costModelFor } from "../src/economics/cost-model.js";
import { MissCounter } from "../src/forgetting/miss-model.js";
import { sizeMessages } from "../src/render/pruner.js";
import { replaySession } from "../src/report/replay.js";
import { parseSession } from "../src/report/session-parse.js";
import { DEFAULT_CONFIG } from "../src/settings/config-shape.js";
import { reportTargets, type Target } from "./targets.js";

const CORPUS = ["../shared/corpus/pi-sessions", "/work/shared/corpus/pi-sessions"].map((dir) => resolve(import.meta.dir, "..", dir)).find(existsSync) ?? "../shared/corpus/pi-sessions";
const SESSIONS = process.argv.slice(2).filter((arg) => !arg.startsWith("--"));
const FILES = SESSIONS.length > 0 ? SESSIONS : [`${CORPUS}/session.jsonl`, `${CORPUS}/large-session.jsonl`];
const MAX_SHARE = 0.05;
const MIN_SAVING = 0.08;

interface Tally {
  sent: number;
  edit: number;
  write: number;
  /** Of both, the calls whose prompt had ended (a user message came after them): finished. */
  finished: number;
}

/** Per miss counter (one per replayed configuration, in order), the characters of what it was shown as sent. */
const tallies = new Map<MissCounter, Tally>();
const observe = MissCounter.prototype.observe;
MissCounter.prototype.observe = function (this: MissCounter, context, sent, systemText, reply) {
  let tally = tallies.get(this);
  if (tally === undefined) tallies.set(this, (tally = { sent: 0, edit: 0, write: 0, finished: 0 }));
  // pi-ai leaves a turn that stopped with an error or aborted out of the request: it is not sent.
  const sentMessages = (sent as any[]).filter((m) => !(m?.role === "assistant" && (m.stopReason === "error" || m.stopReason === "aborted")));
  tally.sent += sizeMessages(sentMessages);
  const lastUser = sentMessages.findLastIndex((m) => m?.role === "user");
  sentMessages.forEach((message, i) => {
    if (message?.role !== "assistant" || !Array.isArray(message.content)) return;
    for (const block of message.content) {
      if (block?.type !== "toolCall" || (block.name !== "edit" && block.name !== "write")) continue;
      const chars = JSON.stringify(block.arguments ?? {}).length;
      tally[block.name as "edit" | "write"] += chars;
      if (i < lastUser) tally.finished += chars;
    }
  });
  return observe.call(this, context, sent, systemText, reply);
};

function catalog(provider: string | undefined, id: string | undefined) {
  const model = provider && id ? (getBuiltinModel as (p: string, i: string) => Parameters<typeof costModelFor>[0])(provider, id) : undefined;
  return { cost: costModelFor(model), contextWindow: model?.contextWindow, model };
}

async function replay(file: string, stubArguments: boolean): Promise<{ none: Tally; whatIf: Tally; dollars: number }> {
  tallies.clear();
  const parsed = parseSession(readFileSync(file, "utf8"));
  const config = { ...DEFAULT_CONFIG, enabled: true, stubArguments };
  const report = await replaySession({ sessionId: file, branch: parsed.branch, problems: parsed.problems, config, overrides: [], costModelOf: catalog });
  const runs = [...tallies.values()];
  const dollars = report.scenarios.find((s) => s.name === "whatif")!.totals.dollars ?? 0;
  return { none: runs[0]!, whatIf: runs.at(-1)!, dollars };
}

const pct = (part: number, whole: number) => `${whole === 0 ? "0.0" : ((100 * part) / whole).toFixed(1)}%`;
const row = (label: string, t: Tally, dollars?: number) =>
  `| ${label} | ${t.sent.toLocaleString("en-US")} | ${pct(t.edit, t.sent)} | ${pct(t.write, t.sent)} | ${pct(t.edit + t.write, t.sent)} | ${pct(t.finished, t.sent)} | ${dollars === undefined ? "" : `$${dollars.toFixed(2)}`} |`;

const targets: Target[] = [];
const savings: Array<{ file: string; weight: number; saving: number }> = [];
for (const file of FILES) {
  const before = await replay(file, false);
  const after = await replay(file, true);
  console.log(`\n${file}\n`);
  console.log("| run | chars sent | edit args | write args | both | finished | dollars |");
  console.log("|---|---|---|---|---|---|---|");
  console.log(row("pi alone", before.none));
  console.log(row("cost policy, stubArguments off", before.whatIf, before.dollars));
  console.log(row("cost policy, stubArguments on", after.whatIf, after.dollars));
  const share = after.whatIf.finished / Math.max(1, after.whatIf.sent);
  const saving = before.dollars > 0 ? 1 - after.dollars / before.dollars : 0;
  console.log(`dollars: ${pct(saving, 1)} lower with argument stubs`);
  targets.push({ name: `finished edit and write arguments at most ${MAX_SHARE * 100}% of the characters sent on ${file}`, met: share <= MAX_SHARE });
  savings.push({ file, weight: (before.whatIf.edit + before.whatIf.write) / Math.max(1, before.whatIf.sent), saving });
}
const heaviest = savings.reduce((a, b) => (b.weight > a.weight ? b : a));
targets.push({ name: `dollars at least ${MIN_SAVING * 100}% lower on ${heaviest.file}, where the arguments weigh more`, met: heaviest.saving >= MIN_SAVING });
reportTargets(targets);
