// Real pi 1.6.0 + pi-condense: /pruner commands and UI records in RPC mode, reload and tree
// navigation through helper extensions (spec 60 §7 scenarios 9-11).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { disposeSandbox, makeSandbox, mainRequests, notifications, runPiRpc, runPrint, uiRequests, type Sandbox } from "./harness.js";
import { bash, probeLog, problems, say } from "./scenario-kit.js";
import { userMessages } from "./wire-view.js";

const prompt = (message: string) => ({ type: "prompt", message });

describe("/pruner in RPC mode (scenario 11)", () => {
  let sb: Sandbox;
  let records: any[] = [];
  let selects: any[] = [];
  beforeAll(async () => {
    sb = await makeSandbox({ script: { main: [bash("seq 1 300"), say("Counted.")] } });
    const rpc = await runPiRpc(sb, [prompt("/pruner status"), prompt("count"), prompt("/pruner stats"), prompt("/pruner")], {
      answer: (req) => {
        selects.push(req);
        return { value: req.options.find((o: string) => o.startsWith("stats ")) };
      },
    });
    records = rpc.records;
    expect(rpc.code).toBe(0);
    expect(rpc.responses.map((r) => r.data?.disposition)).toEqual(["handled", "started", "handled", "handled"]);
  });
  afterAll(() => disposeSandbox(sb));

  test("startup sets the prune status and shows the boot widget below the editor", () => {
    const status = uiRequests(records, "setStatus").find((r) => r.statusKey === "context-prune");
    expect(status?.statusText).toBe("│ prune: ON");
    const widget = uiRequests(records, "setWidget").find((r) => r.widgetKey === "pruner-boot");
    expect(widget?.widgetPlacement).toBe("belowEditor");
    expect(widget?.widgetLines).toEqual(["pruner loaded — pruning ON | model: default"]);
  });

  test("/pruner status notifies the status block", () => {
    const status = notifications(records).find((n) => n.message.startsWith("pruner status:"));
    expect(status?.message).toContain("\n  Enabled:                  true\n");
    expect(status?.message).toContain(
      "\n  Summarizer model:         default (the session's model, now fake/fake-model)\n  Summarizer thinking:      default (the model's own level; pi-condense asks for none)\n",
    );
  });

  test("/pruner stats notifies the persisted summarizer totals after a flush", () => {
    const stats = notifications(records).find((n) => n.message.startsWith("pruner stats:"));
    expect(stats?.message).toContain("\n  calls:       1\n");
  });

  test("a bare /pruner opens the subcommand picker and the picked label runs that subcommand", () => {
    expect(selects.map((s) => s.title)).toEqual(["pruner — choose a subcommand"]);
    // Names padded to one width, so the dashes line up (issue 36, point 11).
    expect(selects[0].options[0]).toMatch(/^settings +— open the settings overlay$/);
    expect(new Set(selects[0].options.map((option: string) => option.indexOf("—"))).size).toBe(1);
    expect(notifications(records).filter((n) => n.message.startsWith("pruner stats:"))).toHaveLength(2);
  });
});

describe("reload through a helper command (scenario 9)", () => {
  test("the factory runs twice, session_start says reload and stats reflect persisted totals", async () => {
    const sb = await makeSandbox({ script: { main: [bash("seq 1 300"), say("Counted.")] } });
    try {
      const rpc = await runPiRpc(sb, [prompt("go"), prompt("/test-reload"), prompt("/pruner stats")], { extraExtensions: ["test-reload.ts", "probe.ts"] });
      expect(rpc.code).toBe(0);
      const log = probeLog(sb);
      expect(log.filter((l) => l.event === "factory")).toHaveLength(2);
      expect(log.filter((l) => l.event === "session_start").map((l) => l.reason)).toEqual(["startup", "reload"]);
      const stats = notifications(rpc.records).find((n) => n.message.startsWith("pruner stats:"));
      expect(stats?.message).toContain("\n  calls:       1\n");
    } finally {
      await disposeSandbox(sb);
    }
  });
});

describe("tree navigation through a helper command (scenario 10)", () => {
  test("after navigating back to the first user entry the next request no longer holds the abandoned summary", async () => {
    const sb = await makeSandbox({ script: { main: [bash("seq 1 300"), say("Counted."), say("Fresh branch answer.")] } });
    try {
      const run = await runPrint(sb, ["go", "/test-tree", "again"], [], { extraExtensions: ["test-tree.ts", "probe.ts"] });
      expect(run.code).toBe(0);
      expect(probeLog(sb).filter((l) => l.event === "session_tree")).toHaveLength(1);
      const last = mainRequests(sb).at(-1)!;
      expect(userMessages(last)).toEqual(["again"]);
      expect(problems(sb)).toEqual([]);
    } finally {
      await disposeSandbox(sb);
    }
  });
});
