// Issue 45, point 1: a summarizer model picked after a fallback takes. /pruner model stops saying the session
// model stands in, and the next summaries go to the new model (the user was told the change worked).
import { afterAll, describe, expect, mock, test } from "bun:test";
import * as actualCompat from "@earendil-works/pi-ai/compat";
import { assistantWithTools, labelledSummary, makeAgentDir, makeFakeCtx, makeFakePi, msgEntry, toolResult, user } from "../../test/fake-host.js";

/** The models each summarizer call went to, as `<provider>/<id>`. */
const calls: string[] = [];
const CONNECTION_ERROR = "Connection error.: bad port";

function failedStream(errorMessage: string) {
  return {
    async *[Symbol.asyncIterator]() {},
    async result() {
      return { role: "assistant", stopReason: "error", errorMessage, content: [], usage: undefined };
    },
  };
}

mock.module("@earendil-works/pi-ai/compat", () => ({
  ...actualCompat,
  stream: (model: any, context: any) => {
    calls.push(`${model.provider}/${model.id}`);
    return model.provider === "broken" ? failedStream(CONNECTION_ERROR) : labelledSummary(context);
  },
}));

const { default: piCondense } = await import("../../index.js");

const MODELS = [
  { provider: "broken", id: "dead-model", name: "Dead Model" },
  { provider: "fake", id: "fake-summarizer", name: "Fake Summarizer" },
];
const cleanups: Array<() => void> = [];
afterAll(() => cleanups.forEach((fn) => fn()));

async function boot() {
  const agent = makeAgentDir({ enabled: true, minBatchChars: 0, flushPolicy: "classic" });
  cleanups.push(agent.cleanup);
  process.env.PI_CODING_AGENT_DIR = agent.dir;
  const host = makeFakePi();
  piCondense(host.pi as any);
  const fake = makeFakeCtx(host);
  Object.assign((fake.ctx as any).modelRegistry, {
    find: (provider: string, id: string) => MODELS.find((m) => m.provider === provider && m.id === id),
    getAll: () => MODELS,
    getAvailable: () => MODELS,
  });
  await host.handlers.get("session_start")!({}, fake.ctx);
  const run = (args: string) => host.commands.get("pruner").handler(args, fake.ctx) as Promise<void>;
  let ts = 100;
  const addToolTurn = (id: string) => {
    fake.branch.push(msgEntry(user(ts++)));
    fake.branch.push(msgEntry(assistantWithTools(ts++, [{ id, name: "bash", args: { command: `seq 1 ${ts}` } }])));
    fake.branch.push(msgEntry(toolResult(ts++, id, "bash", `${id}: ${"x".repeat(400)}`)));
  };
  const messages = () => fake.notices.map((n) => n.message);
  return { fake, run, addToolTurn, messages };
}

describe("a summarizer model picked after a fallback (issue 45, point 1)", () => {
  test("/pruner model names the new model and no longer says the session model stands in", async () => {
    const { fake, run, addToolTurn, messages } = await boot();
    await run("model broken/dead-model");
    addToolTurn("call_1");
    await run("now");
    expect(messages().some((m) => m.includes("Dead Model failing, using session model Session Model"))).toBe(true);
    await run("model");
    expect(messages().at(-1)).toContain("In use now: session model Session Model");

    await run("model fake/fake-summarizer");
    fake.notices.length = 0;
    await run("model");
    expect(messages().at(-1)).toContain("Current summarizer model: fake/fake-summarizer");
    expect(messages().at(-1)).not.toContain("In use now");
  });

  test("the next summary goes to the new model, not to the session model", async () => {
    const { run, addToolTurn } = await boot();
    await run("model broken/dead-model");
    addToolTurn("call_1");
    await run("now");
    expect(calls.slice(-2)).toEqual(["broken/dead-model", "fake/session-model"]);

    await run("model fake/fake-summarizer");
    addToolTurn("call_2");
    const before = calls.length;
    await run("now");
    expect(calls.slice(before)).toEqual(["fake/fake-summarizer"]);
  });

  test("picking the failing model again tries it at the next summary instead of in ten minutes", async () => {
    const { run, addToolTurn } = await boot();
    await run("model broken/dead-model");
    addToolTurn("call_1");
    await run("now");
    await run("model broken/dead-model");
    addToolTurn("call_2");
    const before = calls.length;
    await run("now");
    expect(calls.slice(before)).toEqual(["broken/dead-model", "fake/session-model"]);
  });

  test("the fallback notice gives the cause as one clause, without a period before its colon", async () => {
    const { run, addToolTurn, messages } = await boot();
    await run("model broken/dead-model");
    addToolTurn("call_1");
    await run("now");
    const notice = messages().find((m) => m.includes("Dead Model failing")) ?? "";
    expect(notice).toContain("Cause: Connection error: bad port. To fix:");
  });
});
