// `/pruner` confirmations in the TUI stay in the chat instead of replacing each other (issue 28 item 7).
import { afterAll, describe, expect, test } from "bun:test";
import piCondense from "../../index.js";
import { makeAgentDir, makeFakeCtx, makeFakePi } from "../../test/fake-host.js";
import { CUSTOM_TYPE_REPORT } from "../names.js";

const cleanups: Array<() => void> = [];
afterAll(() => cleanups.forEach((fn) => fn()));

async function boot(mode: string | undefined) {
  const agent = makeAgentDir({ enabled: true });
  cleanups.push(agent.cleanup);
  process.env.PI_CODING_AGENT_DIR = agent.dir;
  const host = makeFakePi();
  piCondense(host.pi as any);
  const fake = makeFakeCtx(host);
  if (mode) (fake.ctx as any).mode = mode;
  await host.handlers.get("session_start")!({}, fake.ctx);
  const run = (args: string) => host.commands.get("pruner").handler(args, fake.ctx) as Promise<void>;
  const reports = () => host.entries.filter((e) => e.customType === CUSTOM_TYPE_REPORT).map((e) => (e.data as any).text);
  return { host, fake, run, reports };
}

describe("confirmations of a changed setting", () => {
  test("in the TUI two confirmations both stay in the chat, drawn by the report renderer, and no info notice replaces them", async () => {
    const { host, fake, run, reports } = await boot("tui");
    fake.notices.length = 0;
    await run("thinking low");
    await run("dedup off");
    expect(reports()).toEqual(["Summarizer thinking set to: low", "Content-hash dedup turned OFF."]);
    expect(fake.notices.filter((n) => n.type === "info")).toEqual([]);
    const renderer = host.entryRenderers.get(CUSTOM_TYPE_REPORT);
    const theme = { fg: (_c: string, text: string) => text };
    const drawn = renderer({ data: { text: reports()[0], level: "info" } }, {}, theme);
    expect(drawn.render(80).join("\n")).toContain("Summarizer thinking set to: low");
  });

  test("outside the TUI they stay notices", async () => {
    const { fake, run, reports } = await boot(undefined);
    fake.notices.length = 0;
    await run("off");
    expect(reports()).toEqual([]);
    expect(fake.notices).toEqual([{ message: "Context pruning disabled.", type: "info" }]);
  });

  test("asking for a value without changing it answers a notice, not a chat entry", async () => {
    const { fake, run, reports } = await boot("tui");
    fake.notices.length = 0;
    await run("thinking");
    expect(reports()).toEqual([]);
    expect(fake.notices.map((n) => n.message)).toEqual([expect.stringMatching(/^Current summarizer thinking: /)]);
  });
});
