import { afterAll, describe, expect, test } from "bun:test";
import { makeAgentDir, makeFakeCtx, makeFakePi } from "../../test/fake-host.js";
import piCondense from "../../index.js";

const originalAgentDir = process.env.PI_CODING_AGENT_DIR;
const cleanups: Array<() => void> = [];
afterAll(() => {
  cleanups.forEach((fn) => fn());
  if (originalAgentDir === undefined) delete process.env.PI_CODING_AGENT_DIR;
  else process.env.PI_CODING_AGENT_DIR = originalAgentDir;
});

async function sessionStartNotices(contextPrune: Record<string, unknown>) {
  const agent = makeAgentDir(contextPrune);
  cleanups.push(agent.cleanup);
  process.env.PI_CODING_AGENT_DIR = agent.dir;
  const host = makeFakePi();
  piCondense(host.pi as any);
  const fake = makeFakeCtx(host);
  await host.handlers.get("session_start")!({ type: "session_start" }, fake.ctx);
  return fake.notices.filter((notice) => notice.type === "warning").map((notice) => notice.message);
}

describe("settings warnings at session_start", () => {
  test("each wrong-typed setting is shown as one warning naming its key", async () => {
    const warnings = await sessionStartNotices({ enabled: "true", minBatchChars: "500", chainCompression: {} });
    expect(warnings).toHaveLength(3);
    expect(warnings[0]).toContain("contextPrune.enabled");
    expect(warnings[1]).toContain("contextPrune.minBatchChars");
    expect(warnings[2]).toContain("contextPrune.chainCompression");
  });

  test("valid settings show no warning", async () => {
    expect(await sessionStartNotices({ enabled: true, minBatchChars: 500, someFutureKey: { x: 1 } })).toEqual([]);
  });
});
