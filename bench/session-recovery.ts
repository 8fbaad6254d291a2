// The bench's loss check: every tool output that a main request no longer carried verbatim (stubbed,
// superseded, inside a compressed chain) resolves, through the archive pi-condense rebuilt from the
// session file (`context-prune-index` entries, dedup aliases, sidecars), to the original text exactly.
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { ToolCallIndexer } from "../src/archive/indexer.js";
import { extractToolResultText } from "../src/capture/batch-capture.js";
import { readOwnSidecar } from "../src/capture/sidecar-read.js";
import { blobDirFor } from "../src/capture/spill.js";
import type { ToolCallRecord } from "../src/capture/records.js";
import type { RecordedRequest } from "../test/e2e/fake-llm.js";
import { stubRefOf, toolMessages } from "../test/e2e/wire-view.js";

export interface RecoveryCheck {
  /** Outputs that some main request did not carry verbatim. */
  checked: number;
  failures: string[];
}

function originalsOf(sm: SessionManager): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of sm.getBranch() as any[]) {
    if (e.type === "message" && e.message?.role === "toolResult" && !out.has(e.message.toolCallId)) out.set(e.message.toolCallId, extractToolResultText(e.message));
  }
  return out;
}

/** Per tool-call id, the stub ref of the first main request that stopped carrying it verbatim ("" when it was not a ref stub). */
function prunedOutputs(requests: RecordedRequest[], originals: Map<string, string>): Map<string, string> {
  const seen = new Set<string>();
  const pruned = new Map<string, string>();
  for (const req of requests) {
    if (req.kind !== "main") continue;
    const carried = new Map(toolMessages(req).map((m) => [m.toolCallId, m.text]));
    for (const id of carried.keys()) if (originals.has(id)) seen.add(id);
    for (const id of seen) {
      const text = carried.get(id);
      if (text === originals.get(id) || pruned.has(id)) continue;
      pruned.set(id, text === undefined ? "" : (stubRefOf(text) ?? ""));
    }
  }
  return pruned;
}

export async function checkRecoverable(sessionFile: string, sessionDir: string, requests: RecordedRequest[]): Promise<RecoveryCheck> {
  const sm = SessionManager.open(sessionFile, sessionDir);
  const indexer = new ToolCallIndexer();
  indexer.reconstructFromSession({ sessionManager: sm } as never);
  const blobDir = blobDirFor(sessionDir, sm.getSessionId());
  const textOf = async (record: ToolCallRecord) => {
    if (!record.spillPath) return record.resultText;
    const read = await readOwnSidecar(blobDir, record.spillPath);
    return read.kind === "ok" ? read.text : undefined;
  };
  const originals = originalsOf(sm);
  const pruned = prunedOutputs(requests, originals);
  const failures: string[] = [];
  for (const [id, ref] of pruned) {
    const candidates = ref ? [indexer.getRecord(ref)].filter((r): r is ToolCallRecord => r !== undefined) : indexer.getRecordsForId(id);
    const texts = await Promise.all(candidates.map(textOf));
    if (!texts.includes(originals.get(id))) failures.push(`${id}${ref ? ` (stub ref ${ref})` : ""}: ${candidates.length === 0 ? "no archive record" : "archived text differs from the original"}`);
  }
  return { checked: pruned.size, failures };
}
