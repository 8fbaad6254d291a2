import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readFileSync } from "node:fs";
import { PromptCacheSim } from "../test/e2e/cache-sim.js";
import { DEFAULT_SUMMARIZERS } from "../test/e2e/fake-llm.js";
import { disposeSandbox, makeSandbox, REPO_ROOT, runPrint, sessionFile, SUMMARIZER_MODEL } from "../test/e2e/harness.js";
import { pricedModelFields } from "../test/e2e/priced-models.js";
import { buildShape } from "./session-shapes.js";
const shapeId = (process.argv[2] ?? "e") as any;
const variant = process.argv[3] ?? "cost";
const work = await mkdtemp(join(tmpdir(), "dbg-"));
const shape = buildShape(shapeId, { repoRoot: REPO_ROOT, workDir: join(work, "files"), idleMs: 5500, quick: false });
const base: any = { enabled: true, summarizerModel: `fake/${SUMMARIZER_MODEL}` };
if (variant === "classic") base.flushPolicy = "classic";
const sb = await makeSandbox({ api: "anthropic-messages", projectDir: REPO_ROOT, cache: new PromptCacheSim({ ttlMs: 4000 }), modelFields: pricedModelFields(4), contextPrune: base, script: { main: shape.main, summarizers: DEFAULT_SUMMARIZERS } });
await runPrint(sb, shape.prompts.map((p) => p.text), [], { withExtension: true, timeoutMs: 600000 });
for (const r of sb.fake.requests) if (r.kind === "main") console.log(r.seq, "read", r.cache?.cacheReadTokens, "write", r.cache?.cacheWriteTokens, r.cache?.prefixBreak ? "BREAK" : "");
const entries = readFileSync(sessionFile(sb), "utf8").trim().split("\n").map((l) => JSON.parse(l));
let msgs = 0;
for (const e of entries) {
  if (e.type === "message" && e.message.role === "assistant") msgs++;
  if (e.customType === "context-prune-flush-metrics") console.log("after req", msgs, e.data.trigger, e.data.outcome, e.data.capturedBatches, e.data.decision?.basis, e.data.decision?.figures ? Math.round(e.data.decision.figures.netSaving * 1e4) / 1e4 : "");
}
await disposeSandbox(sb);
