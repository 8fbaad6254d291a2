// Test helper extension: `/test-tree [entryId]` navigates the session tree to the given entry,
// or to the first user message of the branch, without a branch summary.
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

export default function (pi: ExtensionAPI) {
  pi.registerCommand("test-tree", {
    description: "e2e: navigate the session tree",
    handler: async (args, ctx) => {
      const firstUser = ctx.sessionManager.getBranch().find((e: any) => e.type === "message" && e.message?.role === "user");
      const target = args.trim() || firstUser?.id;
      if (target) await ctx.navigateTree(target, { summarize: false });
    },
  });
}
