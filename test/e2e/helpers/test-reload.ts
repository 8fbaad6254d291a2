// Test helper extension: `/test-reload` reloads the extension runtime (session_start reason "reload").
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

export default function (pi: ExtensionAPI) {
  pi.registerCommand("test-reload", {
    description: "e2e: reload the extension runtime",
    handler: async (_args, ctx) => {
      await ctx.reload();
    },
  });
}
