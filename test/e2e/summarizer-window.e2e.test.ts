// Real pi 1.6.0 + pi-condense: the summarizer sees the head and the tail of a long result (spec 70 §15,
// issue 14 e2e scenario 3): the only error of a 20,000-char output sits on its last line.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { disposeSandbox, mainRequests, makeSandbox, runPrint, summarizerRequests, type Sandbox } from "./harness.js";
import { bash, problems, query, say } from "./scenario-kit.js";
import { stubRefs, toolMessages } from "./wire-view.js";

const ERROR_LINE = "error TS2322: Type 'string' is not assignable to type 'number' (the only failure)";
// 19,900 filler chars, a newline, then the error line: about 20,000 chars in all.
const LONG_RUN = `head -c 19900 /dev/zero | tr '\\0' 'x'; echo; echo "${ERROR_LINE}"`;

describe("a 20,000-char result whose last line holds the only error (issue 14, spec 70 §15)", () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await makeSandbox({ script: { main: [bash(LONG_RUN), say("Build checked."), query("t1"), say("Recovered.")] } });
  });
  afterAll(() => disposeSandbox(sb));

  test("the summarizer request carries the error line and names the elided middle", async () => {
    const run = await runPrint(sb, ["build it", "show the build output again"]);
    expect(run.code).toBe(0);
    const [request] = summarizerRequests(sb);
    const sent = JSON.stringify(request!.body);
    expect(sent).toContain(ERROR_LINE);
    expect(sent).toMatch(/ \.\.\.\[\d+ chars elided\]\.\.\. /);
    expect(sent.length).toBeLessThan(16_000);
  });

  test("the later request stubs the result and the query returns it whole", () => {
    const requests = mainRequests(sb);
    expect(stubRefs(requests[2]!)).toEqual(["t1"]);
    const recovered = toolMessages(requests.at(-1)!).at(-1)!.text;
    expect(recovered).toContain("x".repeat(19900));
    expect(recovered).toContain(ERROR_LINE);
    expect(problems(sb)).toEqual([]);
  });
});
