// Test helper extension: appends one JSON line per factory call and lifecycle event to
// <agentDir>/e2e-probe.jsonl, so a test can see reload/resume/tree events without UI access.
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

function log(record: Record<string, unknown>): void {
  const dir = process.env.PI_CODING_AGENT_DIR;
  if (dir) appendFileSync(join(dir, "e2e-probe.jsonl"), JSON.stringify(record) + "\n");
}

export default function (pi: ExtensionAPI) {
  log({ event: "factory" });
  pi.on("session_start", async (event) => log({ event: "session_start", reason: event.reason }));
  pi.on("session_tree", async (event) => log({ event: "session_tree", newLeafId: event.newLeafId, oldLeafId: event.oldLeafId }));
  pi.on("session_shutdown", async (event) => log({ event: "session_shutdown", reason: event.reason }));
}
