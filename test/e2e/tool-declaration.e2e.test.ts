// Issue 26 item 4: real pi 1.6.0 + pi-condense. context_tree_query is declared to the model only once the
// session has archived something: a session that never prunes sends no declaration of it on any request.
import { afterAll, describe, expect, test } from "bun:test";
import { disposeSandbox, makeSandbox, mainRequests, runPrint, type Sandbox } from "./harness.js";
import { APIS, bash, problems, say } from "./scenario-kit.js";

const toolNames = (body: any): string[] => (Array.isArray(body?.tools) ? body.tools.map((t: any) => t?.name ?? t?.function?.name) : []);
const mentions = (body: any) => JSON.stringify(body).includes("context_tree_query");

const sandboxes: Sandbox[] = [];
afterAll(async () => {
  await Promise.all(sandboxes.map(disposeSandbox));
});

async function play(api: (typeof APIS)[number], pruneOn: string): Promise<Sandbox> {
  const sb = await makeSandbox({
    api,
    contextPrune: { enabled: true, minBatchChars: 0, flushPolicy: "classic", pruneOn },
    script: { main: [bash("seq 1 300"), say("Counted."), bash("seq 5 400"), say("Counted again."), say("Done.")] },
  });
  sandboxes.push(sb);
  const run = await runPrint(sb, ["Count.", "Count more.", "Anything else?"], [], { timeoutMs: 110_000 });
  expect(run.code).toBe(0);
  expect(problems(sb)).toEqual([]);
  return sb;
}

describe.each(APIS)("the recovery tool's declaration on %s", (api) => {
  test("a session that never prunes never declares context_tree_query", async () => {
    const sb = await play(api, "on-demand");
    const requests = mainRequests(sb);
    expect(requests.length).toBeGreaterThanOrEqual(5);
    expect(requests.every((r) => toolNames(r.body).includes("bash"))).toBe(true);
    expect(requests.filter((r) => mentions(r.body))).toEqual([]);
  });

  test("a session that prunes declares it from the request that first carries a stub on", async () => {
    const sb = await play(api, "agent-message");
    const requests = mainRequests(sb);
    const firstStub = requests.findIndex((r) => JSON.stringify(r.body).includes("Summarized in pruner summary"));
    expect(firstStub).toBeGreaterThan(0);
    expect(requests.slice(0, firstStub).some((r) => mentions(r.body))).toBe(false);
    expect(requests.slice(firstStub).every((r) => toolNames(r.body).includes("context_tree_query"))).toBe(true);
  });
});
