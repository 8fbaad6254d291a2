import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { bashBlocks, convertMiniSweAgent, unwrapObservation } from "../../scripts/convert-mini-swe-agent.js";

const CORPUS = ["../shared/corpus/mini-swe-agent", "/work/shared/corpus/mini-swe-agent"].map((dir) => resolve(import.meta.dir, "../..", dir)).find(existsSync);

const reply = (text: string, created?: number) => ({ role: "assistant", content: text, ...(created === undefined ? {} : { extra: { response: { created } } }) });
const said = (content: string) => ({ role: "user", content });

function messagesOf(messages: unknown[]): any[] {
  return convertMiniSweAgent(JSON.stringify({ messages }), "run")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line))
    .filter((entry) => entry.type === "message")
    .map((entry) => entry.message);
}

describe("the mini-swe-agent converter", () => {
  test("an action becomes one bash call and its observation the call's result", () => {
    const out = messagesOf([
      { role: "system", content: "You are a helpful assistant." },
      said("<pr_description>Fix it</pr_description>"),
      reply("THOUGHT: look\n\n```bash\nls -la\n```"),
      said("<returncode>0</returncode>\n<output>\na.py\nb.py\n</output>"),
    ]);
    expect(out.map((m) => m.role)).toEqual(["system", "user", "assistant", "toolResult"]);
    expect(out[2].content[1]).toEqual({ type: "toolCall", id: "call_1", name: "bash", arguments: { command: "ls -la" } });
    expect(out[3]).toMatchObject({ toolCallId: "call_1", toolName: "bash", content: [{ type: "text", text: "a.py\nb.py\n" }], isError: false });
  });

  test("a failed command ends with the status line pi's bash tool adds and is an error", () => {
    expect(unwrapObservation("<returncode>2</returncode>\n<output>\nboom\n</output>")).toEqual({ text: "boom\n\n\nCommand exited with code 2", isError: true });
  });

  test("an empty successful output reads (no output), as pi's bash tool says it", () => {
    expect(unwrapObservation("<returncode>0</returncode>\n<output>\n</output>")).toEqual({ text: "(no output)", isError: false });
  });

  test("an output mini-swe-agent cut keeps its head, the elided note and its tail", () => {
    const text = "<returncode>0</returncode>\n<warning>\ntoo long\n</warning><output_head>\nfirst\n</output_head>\n<elided_chars>\n12 characters elided\n</elided_chars>\n<output_tail>\nlast\n</output_tail>";
    expect(unwrapObservation(text).text).toBe("first\n\n\n[12 characters elided]\n\nlast\n");
  });

  test("a timeout note is kept as written and is an error", () => {
    const note = "The last command <command>sleep 99</command> timed out and has been killed.\nThe output of the command was:\n <output>\n\n</output>";
    expect(unwrapObservation(note)).toEqual({ text: note, isError: true });
  });

  test("a reply with two bash blocks calls no tool, and the format error stays a user message", () => {
    const out = messagesOf([reply("```bash\nls\n```\n```bash\npwd\n```"), said("Please always provide EXACTLY ONE action in triple backticks, found 2 actions.")]);
    expect(out.map((m) => m.role)).toEqual(["assistant", "user"]);
    expect(out[0].content).toHaveLength(1);
    expect(bashBlocks("```bash\nls\n```\n```bash\npwd\n```")).toEqual(["ls", "pwd"]);
  });

  test("replies take their recorded time when it moves forward, else one second more", () => {
    const out = messagesOf([reply("```bash\nls\n```", 1_763_510_433), said("<returncode>0</returncode>\n<output>\nx\n</output>"), reply("```bash\npwd\n```", 1_763_510_400)]);
    expect(out[0].timestamp).toBe(1_763_510_433_000);
    expect(out[2].timestamp).toBe(1_763_510_434_000);
  });

  test.skipIf(CORPUS === undefined)("every trajectory of the corpus converts, one result per call", () => {
    for (const file of readdirSync(CORPUS!).filter((f) => f.endsWith(".traj.json"))) {
      const messages = JSON.parse(readFileSync(join(CORPUS!, file), "utf8")).messages;
      const out = messagesOf(messages);
      const calls = out.flatMap((m) => (m.role === "assistant" ? m.content.filter((b: any) => b.type === "toolCall") : []));
      expect(out.filter((m) => m.role === "toolResult")).toHaveLength(calls.length);
    }
  });
});
