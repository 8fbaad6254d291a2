// Test helper extension: imitates a foreign extension that appends its own custom message while
// a tool call is still executing, so the session holds assistant(toolCall X) / custom / toolResult(X)
// (the gh-11 shape). It only fires for bash commands containing the marker SPLICE.
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

export default function (pi: ExtensionAPI) {
  pi.on("tool_execution_start", async (event, ctx) => {
    const command = (event.args as { command?: unknown } | undefined)?.command;
    if (typeof command !== "string" || !command.includes("SPLICE")) return;
    const sm = ctx.sessionManager as unknown as { appendCustomMessageEntry(t: string, c: string, d: boolean): string };
    sm.appendCustomMessageEntry("foreign-notice", "[foreign extension] subagent control notice", true);
  });
}
