import { describe, expect, test } from "bun:test";
import type { SessionEntry } from "@earendil-works/pi-coding-agent";
import type { AssistantMessage, Message, ToolResultMessage, UserMessage } from "@earendil-works/pi-ai";
import { getBuiltinModel } from "@earendil-works/pi-ai/providers/all";
import { costModelFor } from "../economics/cost-model.js";
import { DEFAULT_CONFIG, type ContextPruneConfig } from "../settings/config-shape.js";
import { argumentText, MissCounter, recoveryCost } from "./miss-model.js";
import { replaySession } from "../report/replay.js";
import { recordedSession } from "../../test/recorded-session.js";

const user = (text: string): UserMessage => ({ role: "user", content: text, timestamp: 0 });
const call = (id: string, name: string, args: Record<string, unknown>): AssistantMessage =>
  ({ role: "assistant", content: [{ type: "toolCall", id, name, arguments: args }], timestamp: 0 }) as unknown as AssistantMessage;
const result = (id: string, name: string, text: string): ToolResultMessage =>
  ({ role: "toolResult", toolCallId: id, toolName: name, content: [{ type: "text", text }], isError: false, timestamp: 0 }) as ToolResultMessage;
const said = (text: string): AssistantMessage => ({ role: "assistant", content: [{ type: "text", text }], timestamp: 0 }) as unknown as AssistantMessage;
const editOf = (path: string, oldText: string): AssistantMessage => call("e1", "edit", { path, edits: [{ oldText, newText: "x" }] });

const LISTING = "src/billing/ledger.py\nsrc/billing/invoice.py\nsrc/util/dates.py";
const SOURCE = "def settle(account):\n    balance = account.open_balance()\n    return round_half_even(balance)\n";

/** A request over `history`, the configuration having sent `sent` instead, answered by `reply`. */
function observe(history: Message[], sent: Message[], reply: unknown, systemText = ""): ReturnType<MissCounter["observe"]> {
  return new MissCounter().observe({ messages: history, length: history.length }, sent, systemText, reply);
}

const listed = (): Message[] => [user("find the ledger"), call("c1", "bash", { command: "ls -R src" }), result("c1", "bash", LISTING)];
const stubbed = (stub: string): Message[] => [user("find the ledger"), call("c1", "bash", { command: "ls -R src" }), result("c1", "bash", stub)];
const readsLedger = call("c2", "read", { path: "src/billing/ledger.py" });

describe("a miss: an item the reply used that an earlier output showed and the request no longer shows", () => {
  test("a path from a stubbed output used later is one miss and one recovery", () => {
    const misses = observe(listed(), stubbed("[`t1` archived: 3 lines]"), readsLedger);
    expect(misses?.items).toEqual(["src/billing/ledger.py"]);
    expect(misses?.editLines).toBe(0);
    expect(misses?.holderChars).toBe(LISTING.length);
  });

  test("a path the stub's digest kept is no miss", () => {
    expect(observe(listed(), stubbed("[`t1` archived: src/billing/ledger.py src/billing/invoice.py]"), readsLedger)).toBeUndefined();
  });

  test("a path another output still shows is no miss", () => {
    const sent = [...stubbed("[`t1` archived: 3 lines]"), call("c3", "bash", { command: "git status" }), result("c3", "bash", "modified: src/billing/ledger.py")];
    const history = [...listed(), call("c3", "bash", { command: "git status" }), result("c3", "bash", "modified: src/billing/ledger.py")];
    expect(observe(history, sent, readsLedger)).toBeUndefined();
  });

  test("a path used while its output is still raw is no miss", () => {
    expect(observe(listed(), listed(), readsLedger)).toBeUndefined();
  });

  test("a path the system prompt names is no miss", () => {
    expect(observe(listed(), stubbed("[`t1` archived]"), readsLedger, "Project files: src/billing/ledger.py")).toBeUndefined();
  });

  test("a path no earlier output showed is not a miss: the agent did not learn it from one", () => {
    expect(observe(listed(), stubbed("[`t1` archived]"), call("c2", "read", { path: "src/other/new_module.py" }))).toBeUndefined();
  });

  test("an edit whose old text no longer shows is a recovery, each line of that text a miss", () => {
    const history: Message[] = [user("fix settle"), call("c1", "read", { path: "src/billing/ledger.py" }), result("c1", "read", SOURCE)];
    const sent: Message[] = [history[0]!, history[1]!, result("c1", "read", "[`t1` archived: ledger.py: 3 lines; settle open_balance round_half_even]")];
    const misses = observe(history, sent, editOf("src/billing/ledger.py", "    balance = account.open_balance()\n    return round_half_even(balance)"));
    expect(misses?.items).toEqual(["balance = account.open_balance()", "return round_half_even(balance)"]);
    expect(misses?.editLines).toBe(2);
  });

  test("an edit whose old text is still in view misses nothing", () => {
    const history: Message[] = [user("fix settle"), call("c1", "read", { path: "src/billing/ledger.py" }), result("c1", "read", SOURCE)];
    expect(observe(history, history, editOf("src/billing/ledger.py", "    balance = account.open_balance()"))).toBeUndefined();
  });

  test("the outputs priced for a recovery are the fewest characters that hold every missing item", () => {
    const big = `${"padding ".repeat(100)}\nsrc/a/first.py src/b/second.py`;
    const history: Message[] = [
      user("go"),
      call("c1", "bash", { command: "one" }), result("c1", "bash", "src/a/first.py"),
      call("c2", "bash", { command: "two" }), result("c2", "bash", "src/b/second.py"),
      call("c3", "bash", { command: "three" }), result("c3", "bash", big),
    ];
    const sent = history.map((m) => (m.role === "toolResult" ? result(m.toolCallId, "bash", "[archived]") : m));
    const reply = { role: "assistant", content: [{ type: "text", text: "Compare src/a/first.py with src/b/second.py." }] };
    expect(observe(history, sent, reply)?.holderChars).toBe("src/a/first.py".length + "src/b/second.py".length);
  });
});

describe("bad input is measured without a throw", () => {
  test("a reply that uses nothing, or no reply at all, misses nothing", () => {
    expect(observe(listed(), stubbed("[archived]"), said("All done."))).toBeUndefined();
    expect(observe(listed(), stubbed("[archived]"), undefined)).toBeUndefined();
    expect(observe([], [], { role: "assistant" })).toBeUndefined();
  });

  test("an edit with an empty old text misses nothing", () => {
    expect(observe(listed(), listed(), editOf("src/billing/ledger.py", ""))).toBeUndefined();
  });

  test("a 10 MB output and a binary output are read, and a path in the big one still counts", () => {
    const huge = `${"x".repeat(10_000_000)}\nsrc/billing/ledger.py`;
    const binary = "\u0000\u0001\uFFFD\u0007ELF\u0000".repeat(1000);
    const history: Message[] = [user("go"), call("c1", "bash", { command: "cat big" }), result("c1", "bash", huge), call("c2", "bash", { command: "cat bin" }), result("c2", "bash", binary)];
    const sent = history.map((m) => (m.role === "toolResult" ? result(m.toolCallId, "bash", "[archived]") : m));
    expect(observe(history, sent, readsLedger)?.holderChars).toBe(huge.length);
  });

  test("a unicode path the agent reads back is a miss like any other", () => {
    const history: Message[] = [user("go"), call("c1", "bash", { command: "ls" }), result("c1", "bash", "docs/notes/résumé_été.md")];
    const sent = history.map((m) => (m.role === "toolResult" ? result(m.toolCallId, "bash", "[archived]") : m));
    const misses = observe(history, sent, call("c2", "read", { path: "docs/notes/résumé_été.md" }));
    expect(misses?.items.length).toBe(1);
  });
});

describe("the text of a call's arguments", () => {
  test("holds each string as the model wrote it, not its JSON escapes", () => {
    expect(argumentText({ command: "grep -n\tfoo src/a.py", nested: { lines: [3, "b"] } })).toBe("grep -n\tfoo src/a.py\n3\nb");
  });
});

describe("the price of a recovery", () => {
  test("is the context read from the cache, the holders written to it, and 100 output tokens", () => {
    const prices = { cacheRead: 0.3e-6, cacheWrite: 3.75e-6, output: 15e-6 };
    expect(recoveryCost(100_000, 2_000, prices)).toBeCloseTo(100_000 * 0.3e-6 + 2_000 * 3.75e-6 + 100 * 15e-6, 12);
  });
});

const sonnet = getBuiltinModel("anthropic", "claude-sonnet-4-5");
const catalog = () => ({ cost: costModelFor(sonnet), contextWindow: sonnet.contextWindow });

/** Prompt 1 reads a file in a few tool turns and replies; prompt 2 edits a line only that read showed. */
function editAfterRead(): SessionEntry[] {
  const { entries, add } = recordedSession();
  const body = Array.from({ length: 120 }, (_, i) => `    step_${i} = prepare(step_${i - 1 < 0 ? 0 : i - 1}, ${i})  # stage ${i}`).join("\n");
  add({ role: "user", content: "read the pipeline" });
  add({ role: "assistant", content: [{ type: "toolCall", id: "r1", name: "read", arguments: { path: "src/pipeline.py" } }] });
  add({ role: "toolResult", toolCallId: "r1", toolName: "read", content: [{ type: "text", text: body }], isError: false });
  add({ role: "assistant", content: [{ type: "text", text: "Read it." }] });
  add({ role: "user", content: "fix stage 57" });
  add({ role: "assistant", content: [{ type: "toolCall", id: "e1", name: "edit", arguments: { path: "src/pipeline.py", edits: [{ oldText: "    step_57 = prepare(step_56, 57)  # stage 57", newText: "    step_57 = prepare(step_56, 58)" }] } }] });
  add({ role: "toolResult", toolCallId: "e1", toolName: "edit", content: [{ type: "text", text: "Applied." }], isError: false });
  add({ role: "assistant", content: [{ type: "text", text: "Fixed." }] });
  return entries;
}

describe("the replay counts and prices what each configuration hid", () => {
  test("the classic policy stubs the read at the first reply, so the edit after it is a priced recovery; no extension has none", async () => {
    const config = { ...DEFAULT_CONFIG, enabled: true, flushPolicy: "classic", minBatchChars: 0 } as ContextPruneConfig;
    const report = await replaySession({ sessionId: "s", branch: editAfterRead(), problems: [], config, overrides: [], costModelOf: catalog });
    const totals = (name: string) => report.scenarios.find((s) => s.name === name)!.totals;
    expect(totals("none").recoveries).toBe(0);
    expect(totals("whatif").recoveries).toBe(1);
    // The edit's old line, and the function it calls, which only the read showed.
    expect(totals("whatif").misses).toBe(2);
    expect(totals("whatif").recoveryDollars).toBeGreaterThan(0);
  });
});
