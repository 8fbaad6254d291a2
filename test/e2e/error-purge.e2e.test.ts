// Real pi 1.6.0 + pi-condense: a failed call of pi's grammar-constrained `codemode` tool, purged after
// the cooldown, keeps its string `code` argument, so pi-ai can still replay it as an OpenAI custom tool
// call and every later request reaches the provider (spec 70 §14). The control puts back the old
// `{ _purged }` shape and shows pi-ai refusing to build the request.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { RecordedRequest, ScriptedReply } from "./fake-llm.js";
import { disposeSandbox, mainRequests, makeSandbox, runJson, sessionEntries, type Sandbox } from "./harness.js";
import { bash, problems, say } from "./scenario-kit.js";

/** A script that fails at once, padded past the 200-char purge threshold. */
const FAILING_SCRIPT = `// ${"padding ".repeat(40)}\nthrow new Error("boom");`;
const MARKER = `<purged-errored-args size="${FAILING_SCRIPT.length}"/>`;
const GRAMMAR_ERROR = 'Grammar tool call "codemode" requires argument "code" to be a string.';

const codemode = (code: string): ScriptedReply => ({ toolCalls: [{ name: "codemode", args: { code } }] });
const script = () => ({ main: [codemode(FAILING_SCRIPT), say("The script failed."), bash("echo ok"), say("Done after the failure.")] });
const PURGE_PRESET = { enabled: true, minBatchChars: 0, pruneOn: "on-demand", purgeErrors: { enabled: true, cooldownTurns: 1, minArgChars: 100 } };
const CODEMODE_ARGS = ["-e", "builtin:codemode", "--tools", "+codemode"];

/** Marks the fake provider as accepting OpenAI grammar tools, so pi-ai declares codemode as a custom tool. */
function enableGrammarTools(sb: Sandbox): void {
  const file = join(sb.agentDir, "models.json");
  const models = JSON.parse(readFileSync(file, "utf8"));
  models.providers.fake.compat = { supportsOpenAIGrammarTools: true };
  writeFileSync(file, JSON.stringify(models, null, 2));
}

async function grammarSandbox(): Promise<Sandbox> {
  const sb = await makeSandbox({ contextPrune: PURGE_PRESET, script: script() });
  enableGrammarTools(sb);
  return sb;
}

function replayedCodemodeCalls(req: RecordedRequest): any[] {
  return (req.body.messages ?? []).flatMap((m: any) => m.tool_calls ?? []).filter((c: any) => (c.custom ?? c.function)?.name === "codemode");
}

function codemodeResult(entries: any[]): any {
  return entries.find((e) => e.type === "message" && e.message.role === "toolResult" && e.message.toolName === "codemode")?.message;
}

describe("a purged failed codemode call over a grammar-capable provider", () => {
  let sb: Sandbox;
  let run: Awaited<ReturnType<typeof runJson>>;
  beforeAll(async () => {
    sb = await grammarSandbox();
    run = await runJson(sb, ["run the script", "try something else"], CODEMODE_ARGS, { timeoutMs: 60000 });
  });
  afterAll(() => disposeSandbox(sb));

  test("the codemode call really failed and codemode is declared as a grammar custom tool", () => {
    expect(codemodeResult(sessionEntries(sb))?.isError).toBe(true);
    const tools = mainRequests(sb)[0]!.body.tools;
    expect(tools.find((t: any) => t.custom?.name === "codemode")?.type).toBe("custom");
  });

  test("every request after the failure reaches the provider and the run finishes", () => {
    expect(run.code).toBe(0);
    expect(mainRequests(sb)).toHaveLength(4);
    expect(mainRequests(sb).map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(problems(sb)).toEqual([]);
    const last = sessionEntries(sb).filter((e) => e.type === "message" && e.message.role === "assistant").at(-1);
    expect(last.message.stopReason).toBe("stop");
    expect(JSON.stringify(last.message.content)).toContain("Done after the failure.");
  });

  test("inside the cooldown the script is replayed verbatim, after it as a string size marker", () => {
    const [, second, third, fourth] = mainRequests(sb);
    expect(replayedCodemodeCalls(second!)[0].custom.input).toBe(FAILING_SCRIPT);
    for (const req of [third!, fourth!]) {
      expect(replayedCodemodeCalls(req)).toEqual([{ id: expect.any(String), type: "custom", custom: { name: "codemode", input: MARKER } }]);
    }
  });

  test("the session file keeps the original script", () => {
    const call = sessionEntries(sb)
      .filter((e) => e.type === "message" && e.message.role === "assistant")
      .flatMap((e) => e.message.content)
      .find((b: any) => b.type === "toolCall" && b.name === "codemode");
    expect(call.arguments).toEqual({ code: FAILING_SCRIPT });
  });
});

describe("control: the old whole-arguments purge shape", () => {
  test("pi-ai refuses to build the next request, so it never reaches the provider", async () => {
    const sb = await grammarSandbox();
    try {
      await runJson(sb, ["run the script", "try something else"], CODEMODE_ARGS, { timeoutMs: 60000, extraExtensions: ["old-purge-shape.ts"] });
      expect(mainRequests(sb)).toHaveLength(2);
      const failed = sessionEntries(sb).filter((e) => e.type === "message" && e.message.role === "assistant" && e.message.stopReason === "error");
      expect(failed.length).toBeGreaterThanOrEqual(1);
      expect(failed[0].message.errorMessage).toContain(GRAMMAR_ERROR);
    } finally {
      await disposeSandbox(sb);
    }
  });
});
