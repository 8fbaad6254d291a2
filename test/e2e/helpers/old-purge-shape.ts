// Test helper extension: puts back the pre-2.11.3 error-purge shape. Loaded after pi-condense, its
// `context` handler turns every tool call whose `code` argument pi-condense already shrank to a size
// marker into `{ _purged: <marker> }`, the whole-arguments replacement older releases sent.
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

const MARKER_PREFIX = "<purged-errored-args size=";

function oldShape(block: any): any {
  const code = block?.type === "toolCall" ? block.arguments?.code : undefined;
  return typeof code === "string" && code.startsWith(MARKER_PREFIX) ? { ...block, arguments: { _purged: code } } : block;
}

export default function (pi: ExtensionAPI) {
  pi.on("context", async (event) => ({
    messages: event.messages.map((m: any) => (m?.role === "assistant" && Array.isArray(m.content) ? { ...m, content: m.content.map(oldShape) } : m)),
  }));
}
