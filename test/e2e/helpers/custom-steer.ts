// Test helper extension: imitates an orchestrator (pi-gauntlet) that starts the next task with a
// custom message instead of a user prompt. `/test-steer <text>` sends a
// `pi-gauntlet-transition-recovery` message that triggers a run, and returns once the run settled.
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

const STEER_TYPE = "pi-gauntlet-transition-recovery";

export default function (pi: ExtensionAPI) {
  pi.registerCommand("test-steer", {
    description: "e2e: start a run with a custom message",
    handler: async (args, ctx) => {
      pi.sendMessage({ customType: STEER_TYPE, content: args.trim(), display: true }, { triggerTurn: true });
      await ctx.waitForIdle();
    },
  });
}
