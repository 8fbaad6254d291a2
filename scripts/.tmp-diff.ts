import { getModel } from "@earendil-works/pi-ai/compat";
import { costModelFor } from "../src/economics/cost-model.js";
import { runReport } from "../src/report/run-report.js";
import { DEFAULT_CONFIG } from "../src/types.js";
const path = process.argv[2]!;
const r = await runReport({ path, config: { ...DEFAULT_CONFIG, enabled: true }, overrides: [], htmlPath: `/tmp/rr/x${Date.now()}.html`,
    costModelOf: (p, id) => { const m = getModel((p ?? "anthropic") as never, (id ?? "") as never) as any; return { cost: costModelFor(m), contextWindow: m?.contextWindow, api: m?.api }; } });
const w = r.report!.scenarios.at(-1)!;
for (let i = 1; i < w.cacheRead.length; i++) {
  if (w.cacheRead[i]! < 0.5 * w.context[i - 1]!) console.log(i, "read", Math.round(w.cacheRead[i]!), "ctx", Math.round(w.context[i]!), "prev ctx", Math.round(w.context[i - 1]!));
}
import { parseSession } from "../src/report/session-parse.js";
import { buildRequests } from "../src/report/requests.js";
import { readFileSync } from "node:fs";
const parsed = parseSession(readFileSync(path, "utf8"));
const reqs = buildRequests(parsed.branch as any);
for (const i of [33, 44, 62, 65, 78, 81, 84, 88, 92, 129]) console.log(i, "gap s", ((reqs[i]!.time - reqs[i - 1]!.time) / 1000).toFixed(0));
