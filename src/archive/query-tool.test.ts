import { afterAll, describe, expect, spyOn, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, rm, symlink, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { imageDigest } from "../capture/image-markers.js";
import { ToolCallIndexer } from "./indexer.js";
import { registerQueryTool } from "./query-tool.js";
import { writeSidecar } from "../capture/spill.js";
import { CUSTOM_TYPE_INDEX, QUERY_TOOL_NAME } from "../names.js";
import type { CapturedBatch, ToolCallRecord } from "../capture/records.js";

const noop = () => {};
const batchOf = (id: string, resultTimestamp: number | undefined, text: string, extra: Partial<CapturedBatch> = {}): CapturedBatch => ({
  turnIndex: 2,
  timestamp: 1000,
  assistantText: "",
  toolCalls: [{ toolCallId: id, toolName: "bash", args: { cmd: "ls" }, resultText: text, isError: false, ...(resultTimestamp === undefined ? {} : { resultTimestamp }) }],
  ...extra,
});
const toolFor = (indexer: ToolCallIndexer) => {
  const registered: any[] = [];
  const pi = { registerTool: (def: any) => registered.push(def) } as any;
  registerQueryTool(pi, indexer);
  return registered;
};
const query = async (indexer: ToolCallIndexer, ids: unknown) => {
  const [tool] = toolFor(indexer);
  return tool.execute("call-1", { toolCallIds: ids }, undefined, undefined, undefined);
};
const textOf = (result: any): string => result.content[0].text;
const blockCount = (text: string) => text.split("## toolRef:").length - 1;
const withSpilled = (spill: Partial<ToolCallRecord>) => {
  const indexer = new ToolCallIndexer();
  const record: ToolCallRecord = { toolCallId: "big", toolName: "bash", args: {}, resultText: "", isError: false, turnIndex: 1, timestamp: 5, resultTimestamp: 5, ...spill };
  indexer.reconstructFromSession({ sessionManager: { getBranch: () => [{ type: "custom", customType: CUSTOM_TYPE_INDEX, data: { toolCalls: [record] } }] } } as any);
  return indexer;
};
const tempDirs: string[] = [];
const tempDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), "query-tool-"));
  tempDirs.push(dir);
  return dir;
};
afterAll(async () => {
  await Promise.all(tempDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});
const silenced = async <T>(fn: (errors: ReturnType<typeof spyOn>) => Promise<T>): Promise<T> => {
  const errors = spyOn(console, "error").mockImplementation(() => {});
  try {
    return await fn(errors);
  } finally {
    errors.mockRestore();
  }
};

describe("registration", () => {
  test("registers exactly one tool with the contract surface (Q1)", () => {
    const registered = toolFor(new ToolCallIndexer());
    expect(registered).toHaveLength(1);
    const [tool] = registered;
    expect(tool.name).toBe(QUERY_TOOL_NAME);
    expect(tool.label).toBe("Query Original Tool History");
    expect(tool.promptSnippet).toBe("Retrieve original pruned tool outputs by short ref");
    expect(tool.promptGuidelines).toHaveLength(1);
    expect(tool.promptGuidelines[0]).toContain("context_tree_query");
    expect(tool.description).toContain('context_tree_query({ toolCallIds: ["t12", "t3"] })');
    expect(tool.description).toContain("id@timestamp");
  });

  test("the parameter schema is the exact JSON shape: toolCallIds, lines and pattern, all optional (issue 18)", () => {
    const [tool] = toolFor(new ToolCallIndexer());
    const schema = JSON.parse(JSON.stringify(tool.parameters));
    const description = schema.properties.toolCallIds.description;
    expect(description).toContain("Required unless pattern is given");
    expect(description).toContain("id@timestamp");
    expect(JSON.stringify(tool.parameters)).toBe(
      JSON.stringify({
        type: "object",
        properties: {
          toolCallIds: { type: "array", items: { type: "string" }, description },
          lines: { type: "string" },
          pattern: { type: "string" },
        },
      }),
    );
  });

  test("the declaration's prose is no longer than 2.9.1's 730 characters and still names refs, line ranges and pattern search (issue 26)", () => {
    const [tool] = toolFor(new ToolCallIndexer());
    const prose = [tool.description, tool.parameters.properties.toolCallIds.description, tool.promptSnippet, ...tool.promptGuidelines];
    expect(prose.join("").length).toBeLessThanOrEqual(730);
    expect(tool.description).toContain('"tail:N"');
    expect(tool.description).toContain("/regex/i");
    expect(tool.description).toContain("pruner-summary message");
  });

  test("the description mentions images and paging", () => {
    const [tool] = toolFor(new ToolCallIndexer());
    expect(tool.description).toContain("image");
    expect(tool.description).toContain('lines: "2001-4000"');
  });
});

describe("execute", () => {
  test("a reused bare id returns every occurrence oldest first (36)", async () => {
    const indexer = new ToolCallIndexer();
    indexer.addBatch(batchOf("bash_23", 2150, "SECOND"), noop);
    indexer.addBatch(batchOf("bash_23", 1150, "FIRST"), noop);
    const text = textOf(await query(indexer, ["bash_23"]));
    expect(blockCount(text)).toBe(2);
    expect(text.indexOf("FIRST")).toBeLessThan(text.indexOf("SECOND"));
    expect(text).toContain("## toolRef: bash_23@1150\n");
  });

  test("an occurrence key returns exactly that occurrence (37)", async () => {
    const indexer = new ToolCallIndexer();
    indexer.addBatch(batchOf("bash_23", 1150, "FIRST"), noop);
    indexer.addBatch(batchOf("bash_23", 2150, "SECOND"), noop);
    const text = textOf(await query(indexer, ["bash_23@2150"]));
    expect(blockCount(text)).toBe(1);
    expect(text).toContain("SECOND");
    expect(text).not.toContain("FIRST");
  });

  test("an unknown id answers the not-found text (38)", async () => {
    const result = await query(new ToolCallIndexer(), ["nope"]);
    expect(textOf(result)).toBe("## toolRef: nope\n(not found in index — may not have been summarized yet)");
    expect(result.isError).toBeUndefined();
    expect(result.details).toEqual({ results: {} });
  });

  test("a single occurrence is labelled with the input verbatim (39)", async () => {
    const indexer = new ToolCallIndexer();
    indexer.addBatch(batchOf("bash_23", 1150, "ONLY"), noop);
    const text = textOf(await query(indexer, ["bash_23"]));
    expect(blockCount(text)).toBe(1);
    expect(text).toContain("## toolRef: bash_23\n");
    expect(text).not.toContain("bash_23@");
  });

  test("a dedup alias of the same id is listed as a second occurrence (40)", async () => {
    const indexer = new ToolCallIndexer();
    indexer.addBatch(batchOf("bash_23", 1150, "SAME"), noop);
    indexer.registerDuplicate("bash_23@9150", "bash_23@1150", noop);
    expect(indexer.getRecordsForId("bash_23")).toHaveLength(2);
    const text = textOf(await query(indexer, ["bash_23"]));
    expect(blockCount(text)).toBe(2);
    expect(text).toContain("bash_23@1150");
    expect(text).toContain("bash_23@9150");
  });

  test("short refs recover exactly their own occurrence (41)", async () => {
    const indexer = new ToolCallIndexer();
    indexer.addBatch(batchOf("bash_23", 1150, "FIRST"), noop);
    indexer.addBatch(batchOf("bash_23", 2150, "SECOND"), noop);
    indexer.registerSummaryRefs([
      { shortId: "t1", toolCallId: "bash_23", resultTimestamp: 1150 },
      { shortId: "t2", toolCallId: "bash_23", resultTimestamp: 2150 },
    ]);
    const first = textOf(await query(indexer, ["t1"]));
    const second = textOf(await query(indexer, ["t2"]));
    expect([blockCount(first), first.includes("FIRST"), first.includes("SECOND")]).toEqual([1, true, false]);
    expect([blockCount(second), second.includes("SECOND"), second.includes("FIRST")]).toEqual([1, true, false]);
    expect(first).toContain("## toolRef: t1\n");
  });

  test("a legacy record beside an occurrence is labelled honestly (42)", async () => {
    const indexer = new ToolCallIndexer();
    indexer.addBatch(batchOf("bash_23", undefined, "OLD"), noop);
    indexer.addBatch(batchOf("bash_23", 2150, "NEW"), noop);
    const text = textOf(await query(indexer, ["bash_23"]));
    expect(blockCount(text)).toBe(2);
    expect(text).toContain("## toolRef: bash_23\n");
    expect(text).toContain("Occurrence: legacy (no resultTimestamp)");
    expect(text).toContain("bash_23@2150");
    expect(text).not.toContain("undefined");
    expect(text).not.toContain("@legacy");
  });

  test("a backfilled record shows Turn: -1 (43)", async () => {
    const indexer = new ToolCallIndexer();
    await indexer.backfillChainRecords(
      [{ toolCallId: "bash_bf", toolName: "bash", args: {}, resultText: "bf", isError: false, turnIndex: -1, timestamp: 1, resultTimestamp: 1 }],
      { spillThreshold: 1000, spillPreviewBytes: 10, sessionDir: "/unused", sessionId: "s", appendEntry: noop },
    );
    expect(textOf(await query(indexer, ["bash_bf@1"]))).toContain("Turn: -1");
  });

  test("lays out header lines, a blank line and the body (Q5)", async () => {
    const indexer = new ToolCallIndexer();
    indexer.addBatch({ ...batchOf("e1", 5, "boom"), toolCalls: [{ ...batchOf("e1", 5, "boom").toolCalls[0]!, isError: true }] }, noop);
    expect(textOf(await query(indexer, ["e1"]))).toBe('## toolRef: e1\nTool: bash\nArgs: {\n  "cmd": "ls"\n}\nStatus: ERROR\nTurn: 2\n\nboom');
  });

  test("blocks are joined in request order, duplicates repeated, details keyed by label (Q2, Q8)", async () => {
    const indexer = new ToolCallIndexer();
    indexer.addBatch(batchOf("a", 1, "AAA"), noop);
    const result = await query(indexer, ["a", "missing", "a"]);
    expect(textOf(result).split("\n\n---\n\n")).toHaveLength(3);
    expect(Object.keys(result.details.results)).toEqual(["a"]);
    expect(result.details.results.a.toolCallId).toBe("a");
  });

  const NOTHING_ASKED = "[Pass toolCallIds (short refs such as t12), or a pattern to search every archived output of this session.]";

  test("an empty list without a pattern answers how to ask (issue 18)", async () => {
    const result = await query(new ToolCallIndexer(), []);
    expect(result).toEqual({ content: [{ type: "text", text: NOTHING_ASKED }], details: { results: {} } });
  });

  test("missing or malformed params never throw", async () => {
    const [tool] = toolFor(new ToolCallIndexer());
    expect(textOf(await tool.execute("c", undefined))).toBe(NOTHING_ASKED);
    expect(textOf(await tool.execute("c", { toolCallIds: "t9" }))).toContain("## toolRef: t9");
  });

  test("long bodies are truncated from the head with a note (Q7)", async () => {
    const indexer = new ToolCallIndexer();
    const body = Array.from({ length: 2500 }, (_, i) => `row ${i}`).join("\n");
    indexer.addBatch(batchOf("long", 1, body), noop);
    const text = textOf(await query(indexer, ["long"]));
    expect(text).toContain("row 1999\n[Output truncated: 2000/2500 lines shown]");
    expect(text).not.toContain("row 2000");
  });

  test("the tool never mutates the index (Q9)", async () => {
    const indexer = new ToolCallIndexer();
    indexer.addBatch(batchOf("a", 1, "AAA"), noop);
    await query(indexer, ["a", "t1", "zzz"]);
    expect([...indexer.getIndex().keys()]).toEqual(["a@1"]);
  });
});

/** A live session whose blob directory is `<dir>/sid-blobs`; `branch` feeds image recovery. */
const sessionCtx = (dir: string, branch: any[] = [], id = "sid") => ({
  sessionManager: { getSessionDir: () => dir, getSessionId: () => id, getBranch: () => branch },
});
const queryIn = async (indexer: ToolCallIndexer, ids: unknown, ctx: unknown, params: Record<string, unknown> = {}) => {
  const [tool] = toolFor(indexer);
  return tool.execute("call-1", { toolCallIds: ids, ...params }, undefined, undefined, ctx);
};

describe("spilled bodies", () => {
  test("reads the persisted sidecar from this session's blob directory (Q6)", async () => {
    const dir = await tempDir();
    const path = await writeSidecar(dir, "sid", "big@5", "FULL BODY");
    const text = textOf(await queryIn(withSpilled({ spillPath: path, resultPreview: "FULL" }), ["big"], sessionCtx(dir)));
    expect(text).toContain("\n\nFULL BODY");
  });

  test("a session directory that moved still finds its own sidecar by name (S8)", async () => {
    const dir = await tempDir();
    await writeSidecar(dir, "sid", "big@5", "MOVED BODY");
    const stale = join("/old/home/sessions", "sid-blobs", "big_5.txt");
    expect(textOf(await queryIn(withSpilled({ spillPath: stale }), ["big"], sessionCtx(dir)))).toContain("MOVED BODY");
  });

  test("a session started with a relative --session-dir recovers its spilled output", async () => {
    const dir = relative(process.cwd(), await tempDir());
    const path = await writeSidecar(dir, "sid", "big@5", "RELATIVE DIR BODY");
    expect(textOf(await queryIn(withSpilled({ spillPath: path }), ["big"], sessionCtx(dir)))).toContain("RELATIVE DIR BODY");
  });

  test("an upstream capped sidecar name is read (spec 70 §6)", async () => {
    const dir = await tempDir();
    await mkdir(join(dir, "sid-blobs"), { recursive: true });
    const name = `${"a".repeat(234)}.0123456789abcdef.txt`;
    await writeFile(join(dir, "sid-blobs", name), "CAPPED BODY");
    const text = textOf(await queryIn(withSpilled({ spillPath: join(dir, "sid-blobs", name) }), ["big"], sessionCtx(dir)));
    expect(text).toContain("CAPPED BODY");
  });

  test("a missing sidecar falls back to the preview and logs (Q6)", async () => {
    const dir = await tempDir();
    const missing = join(dir, "sid-blobs", "gone.txt");
    await silenced(async (errors) => {
      const text = textOf(await queryIn(withSpilled({ spillPath: missing, resultPreview: "HEAD ONLY" }), ["big"], sessionCtx(dir)));
      expect(text.endsWith("\n\nHEAD ONLY")).toBe(true);
      expect(errors.mock.calls[0]![0]).toBe(`context_tree_query: failed to read spilled output at ${missing}:`);
    });
  });

  test("a missing sidecar without preview says so (Q6)", async () => {
    const dir = await tempDir();
    await silenced(async () => {
      const text = textOf(await queryIn(withSpilled({ spillPath: join(dir, "sid-blobs", "gone.txt") }), ["big"], sessionCtx(dir)));
      expect(text.endsWith("\n\n(spilled output unavailable — sidecar file missing)")).toBe(true);
    });
  });

  test("a non-string spillPath falls back without throwing", async () => {
    // The rebuild rejects such a record; a live one is added directly to reach the tool.
    const indexer = new ToolCallIndexer();
    const call = { toolCallId: "big", toolName: "bash", args: {}, resultText: "", isError: false, resultTimestamp: 5 };
    indexer.addBatch({ turnIndex: 1, timestamp: 5, assistantText: "", toolCalls: [{ ...call, spillPath: 42 as any, resultPreview: "P" }] }, () => {});
    await silenced(async () => {
      const text = textOf(await query(indexer, ["big"]));
      expect(text.endsWith("\n\nP")).toBe(true);
    });
  });

  test("a record with a non-string spillPath is rejected at load and never reaches the tool", async () => {
    await silenced(async (errors) => {
      const text = textOf(await query(withSpilled({ spillPath: 42 as any, resultPreview: "P" }), ["big"]));
      expect(text).toContain("not found");
      expect(String(errors.mock.calls[0]![0])).toContain("spillPath is not a string");
    });
  });
});

describe("an archived copy that no longer matches what was archived (issue 27, finding 5)", () => {
  const ORIGINAL = "ORIGINAL BODY TEXT";
  /** A spilled record of this version: it kept its sidecar's size and SHA-256. */
  async function archivedBody(): Promise<{ dir: string; path: string; indexer: ToolCallIndexer }> {
    const dir = await tempDir();
    const path = await writeSidecar(dir, "sid", "big@5", ORIGINAL);
    const spillSha256 = createHash("sha256").update(ORIGINAL).digest("hex");
    return { dir, path, indexer: withSpilled({ spillPath: path, spillBytes: ORIGINAL.length, spillSha256, resultPreview: "PREVIEW-HEAD" }) };
  }
  const answer = async (indexer: ToolCallIndexer, dir: string, params: Record<string, unknown> = {}) =>
    silenced(async () => textOf(await queryIn(indexer, params.pattern === undefined ? ["big"] : undefined, sessionCtx(dir), params)));

  test("an intact copy comes back whole", async () => {
    const { dir, indexer } = await archivedBody();
    expect((await answer(indexer, dir)).endsWith(`\n\n${ORIGINAL}`)).toBe(true);
  });

  test("a truncated copy answers that it was changed or truncated, with both sizes, and never its text", async () => {
    const { dir, path, indexer } = await archivedBody();
    await truncate(path, 4);
    const text = await answer(indexer, dir);
    expect(text).toEndWith(
      "\n\n(spilled output not available — the archived copy was changed or truncated after it was archived (it is 4 bytes, 18 were archived); none of it is shown)\nPreview (head):\nPREVIEW-HEAD",
    );
    expect(text).not.toContain("\n\nORIG\n");
  });

  test("a copy edited to the same size answers that it was changed, and never the edited text", async () => {
    const { dir, path, indexer } = await archivedBody();
    await writeFile(path, "FORGED BODY TEXT!!");
    const text = await answer(indexer, dir);
    expect(text).toContain("the archived copy was changed or truncated after it was archived (its content no longer matches the SHA-256 recorded when it was archived)");
    expect(text).not.toContain("FORGED");
  });

  test("a deleted copy answers that it was deleted; the preview is labelled as a preview", async () => {
    const { dir, path, indexer } = await archivedBody();
    await rm(path);
    expect(await answer(indexer, dir)).toEndWith("\n\n(spilled output not available — the archived copy was deleted; nothing was read)\nPreview (head):\nPREVIEW-HEAD");
  });

  test("a search never matches the edited text: only the preview is searched, and the answer says why", async () => {
    const { dir, path, indexer } = await archivedBody();
    await writeFile(path, "FORGED BODY TEXT!!");
    const text = await answer(indexer, dir, { pattern: "FORGED" });
    expect(text).not.toContain("FORGED BODY");
    const preview = await answer(indexer, dir, { pattern: "PREVIEW" });
    expect(preview).toContain("the archived copy was changed or truncated after it was archived");
    expect(preview).toContain("only its preview was searched");
  });
});

describe("spilled bodies are read only from this session's own archive (issue 12, finding 4)", () => {
  const refusedQuery = async (spillPath: string, ctx: unknown) =>
    silenced(async (errors) => {
      const text = textOf(await queryIn(withSpilled({ spillPath, resultPreview: "safe preview" }), ["big"], ctx));
      return { text, logged: errors.mock.calls.map((call: unknown[]) => call[0]) };
    });

  test("another session's sidecar is never read: the preview comes back with the log line", async () => {
    const dir = await tempDir();
    const foreign = await writeSidecar(dir, "other-session", "big@5", "OTHER SESSION SECRET");
    const { text, logged } = await refusedQuery(foreign, sessionCtx(dir));
    expect(text).not.toContain("OTHER SESSION SECRET");
    expect(text.endsWith("safe preview")).toBe(true);
    expect(logged).toEqual([`context_tree_query: failed to read spilled output at ${foreign}:`]);
  });

  test("a record pointing at another session gets this session's sidecar of that name, never the other's", async () => {
    const dir = await tempDir();
    await writeSidecar(dir, "sid", "big@5", "OWN BODY");
    const foreign = await writeSidecar(dir, "other-session", "big@5", "OTHER SESSION SECRET");
    const { text } = await refusedQuery(foreign, sessionCtx(dir));
    expect(text).not.toContain("OTHER SESSION SECRET");
    expect(text).toContain("OWN BODY");
  });

  test("a relative path is refused and nothing relative to the working directory is read", async () => {
    const dir = await tempDir();
    const { text } = await refusedQuery("sid-blobs/big_5.txt", sessionCtx(dir));
    expect(text).toContain("the recorded path is relative");
  });

  test("a file outside any blob directory is never read", async () => {
    const dir = await tempDir();
    const secret = join(dir, "id_rsa.txt");
    await writeFile(secret, "PRIVATE KEY");
    const { text } = await refusedQuery(secret, sessionCtx(dir));
    expect(text).not.toContain("PRIVATE KEY");
    expect(text.endsWith("safe preview")).toBe(true);
  });

  test("a symlink inside the own blob directory is refused", async () => {
    if (process.platform === "win32") return;
    const dir = await tempDir();
    await writeFile(join(dir, "target"), "LINK TARGET SECRET");
    await mkdir(join(dir, "sid-blobs"));
    await symlink(join(dir, "target"), join(dir, "sid-blobs", "evil.txt"));
    const { text } = await refusedQuery(join(dir, "sid-blobs", "evil.txt"), sessionCtx(dir));
    expect(text).not.toContain("LINK TARGET SECRET");
    expect(text).toContain("the sidecar is a symbolic link");
  });

  test("a FIFO named pipe.txt is refused without hanging", async () => {
    if (process.platform === "win32") return;
    const dir = await tempDir();
    await mkdir(join(dir, "sid-blobs"));
    const fifo = join(dir, "sid-blobs", "pipe.txt");
    expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
    const { text } = await refusedQuery(fifo, sessionCtx(dir));
    expect(text).toContain("the sidecar is not a regular file");
  });

  test("without a context no sidecar is read", async () => {
    const dir = await tempDir();
    const path = await writeSidecar(dir, "sid", "big@5", "FULL BODY");
    const { text } = await refusedQuery(path, undefined);
    expect(text).not.toContain("FULL BODY");
    expect(text).toContain("this session has no session directory");
    expect(text).toContain("safe preview");
  });

  test("a session without a directory (--no-session) reads no sidecar", async () => {
    const dir = await tempDir();
    const path = await writeSidecar(dir, "sid", "big@5", "FULL BODY");
    const { text } = await refusedQuery(path, sessionCtx(""));
    expect(text).not.toContain("FULL BODY");
    expect(text).toContain("safe preview");
  });

  test("a session manager that throws reads no sidecar and the tool still answers", async () => {
    const dir = await tempDir();
    const path = await writeSidecar(dir, "sid", "big@5", "FULL BODY");
    const broken = { sessionManager: { getSessionDir: () => { throw new Error("boom"); }, getSessionId: () => "sid", getBranch: () => [] } };
    const { text } = await refusedQuery(path, broken);
    expect(text).not.toContain("FULL BODY");
    expect(text).toContain("## toolRef: big");
  });

  test("a crafted session id cannot widen the archive to a parent directory", async () => {
    const dir = await tempDir();
    const session = join(dir, "sessions");
    await mkdir(session);
    const outside = await writeSidecar(dir, "escape", "big@5", "OUTSIDE SECRET");
    const { text } = await refusedQuery(outside, sessionCtx(session, [], "../escape"));
    expect(text).not.toContain("OUTSIDE SECRET");
  });
});

describe("paging with lines", () => {
  const longBody = (n: number) => Array.from({ length: n }, (_, i) => `row ${i + 1}`).join("\n");

  test("a truncated answer names the call for the next page", async () => {
    const indexer = new ToolCallIndexer();
    indexer.addBatch(batchOf("long", 1, longBody(5000)), noop);
    indexer.registerSummaryRefs([{ shortId: "t3", toolCallId: "long", resultTimestamp: 1 }]);
    const text = textOf(await query(indexer, ["t3"]));
    expect(text.endsWith('row 2000\n[Output truncated: 2000/5000 lines shown]\nNext: context_tree_query({ toolCallIds: ["t3"], lines: "2001-5000" })')).toBe(true);
  });

  test("lines reaches the tail of a big output, with a Lines header", async () => {
    const indexer = new ToolCallIndexer();
    indexer.addBatch(batchOf("long", 1, longBody(5000)), noop);
    const [tool] = toolFor(indexer);
    const text = textOf(await tool.execute("c", { toolCallIds: ["long"], lines: "4999-" }));
    expect(text).toBe('## toolRef: long\nTool: bash\nArgs: {\n  "cmd": "ls"\n}\nStatus: OK\nTurn: 2\nLines: 4999-5000 of 5000\n\nrow 4999\nrow 5000');
  });

  test("lines applies to every occurrence, and each next call names its own occurrence", async () => {
    const indexer = new ToolCallIndexer();
    indexer.addBatch(batchOf("bash_23", 1150, longBody(4500)), noop);
    indexer.addBatch(batchOf("bash_23", 2150, longBody(30)), noop);
    const [tool] = toolFor(indexer);
    const [first, second] = textOf(await tool.execute("c", { toolCallIds: ["bash_23"], lines: "21-" })).split("\n\n---\n\n");
    expect(first).toContain("Lines: 21-4500 of 4500");
    expect(first).toContain('Next: context_tree_query({ toolCallIds: ["bash_23@1150"], lines: "2021-4500" })');
    expect(second!.endsWith("Lines: 21-30 of 30\n\nrow 21\nrow 22\nrow 23\nrow 24\nrow 25\nrow 26\nrow 27\nrow 28\nrow 29\nrow 30")).toBe(true);
  });

  test("a spilled body pages like an inline one", async () => {
    const dir = await tempDir();
    const path = await writeSidecar(dir, "sid", "big@5", longBody(3000));
    const text = textOf(await queryIn(withSpilled({ spillPath: path }), ["big"], sessionCtx(dir), { lines: "2999-3000" }));
    expect(text.endsWith("Lines: 2999-3000 of 3000\n\nrow 2999\nrow 3000")).toBe(true);
  });

  test("a bad range answers a note in place of each body and never throws", async () => {
    const indexer = new ToolCallIndexer();
    indexer.addBatch(batchOf("a", 1, "AAA"), noop);
    const [tool] = toolFor(indexer);
    const result = await tool.execute("c", { toolCallIds: ["a", "missing"], lines: "ten-twenty" });
    const [found, missing] = textOf(result).split("\n\n---\n\n");
    expect(found!.endsWith('\n\n[lines "ten-twenty" is not a line range: use "A-B" or "A-" with 1-based line numbers, e.g. "2001-4000", or "head:N" / "tail:N" for the first or last N lines]')).toBe(true);
    expect(found).toContain("## toolRef: a\nTool: bash");
    expect(missing).toBe("## toolRef: missing\n(not found in index — may not have been summarized yet)");
    expect(Object.keys(result.details.results)).toEqual(["a"]);
  });

  test("a range past the end says how long the output is", async () => {
    const indexer = new ToolCallIndexer();
    indexer.addBatch(batchOf("a", 1, "one\ntwo"), noop);
    const [tool] = toolFor(indexer);
    expect(textOf(await tool.execute("c", { toolCallIds: ["a"], lines: "3-" }))).toContain('[lines "3-" starts past the end: this output has 2 lines]');
  });
});

describe("images (spec 70 §13, issue 12 finding 9)", () => {
  const image = (data: string, mimeType = "image/png") => ({ type: "image", data, mimeType });
  const marker = (data: string, mimeType = "image/png") => `[image returned: ${mimeType} sha256:${imageDigest(data)}]`;
  const resultEntry = (id: string, ts: number, content: any[]) => ({ type: "message", message: { role: "toolResult", toolCallId: id, toolName: "read", content, timestamp: ts } });
  const branch = [
    resultEntry("r1", 101, [{ type: "text", text: "Read image file [image/png]" }, image("AAAA")]),
    resultEntry("r2", 102, [{ type: "text", text: "Read image file [image/png]" }, image("BBBB", "image/jpeg")]),
  ];
  const indexed = () => {
    const indexer = new ToolCallIndexer();
    indexer.addBatch(batchOf("r1", 101, `${marker("AAAA")}\nRead image file [image/png]`), noop);
    indexer.addBatch(batchOf("r2", 102, `${marker("BBBB", "image/jpeg")}\nRead image file [image/png]`), noop);
    indexer.registerSummaryRefs([{ shortId: "t1", toolCallId: "r1", resultTimestamp: 101 }]);
    return indexer;
  };
  const ctxWith = (entries: any[]) => ({ sessionManager: { getSessionDir: () => "", getSessionId: () => "sid", getBranch: () => entries } });

  test("a short ref recovers the text and, after it, the original image block", async () => {
    const result = await queryIn(indexed(), ["t1"], ctxWith(branch));
    expect(result.content).toHaveLength(2);
    expect(result.content[0].text).toContain("Read image file [image/png]");
    expect(result.content[1]).toEqual(image("AAAA"));
  });

  test("an occurrence key picks the right image by its digest", async () => {
    const result = await queryIn(indexed(), ["r2@102"], ctxWith(branch));
    expect(result.content.slice(1)).toEqual([image("BBBB", "image/jpeg")]);
  });

  test("a bare alias id recovers its original's image", async () => {
    const indexer = indexed();
    indexer.registerDuplicate("r3@103", "r1@101", noop);
    const result = await queryIn(indexer, ["r3"], ctxWith(branch));
    expect(result.content.slice(1)).toEqual([image("AAAA")]);
  });

  test("images follow the text in output order, one per marker", async () => {
    const result = await queryIn(indexed(), ["r2", "t1", "t1"], ctxWith(branch));
    expect(result.content.slice(1).map((b: any) => b.data)).toEqual(["BBBB", "AAAA", "AAAA"]);
  });

  test("a spilled body's markers recover its images too", async () => {
    const dir = await tempDir();
    const path = await writeSidecar(dir, "sid", "big@5", `${marker("AAAA")}\n${"x".repeat(100)}`);
    const ctx = { sessionManager: { getSessionDir: () => dir, getSessionId: () => "sid", getBranch: () => branch } };
    const result = await queryIn(withSpilled({ spillPath: path }), ["big"], ctx);
    expect(result.content.slice(1)).toEqual([image("AAAA")]);
  });

  test("a page that does not hold the marker lines carries no image", async () => {
    const [tool] = toolFor(indexed());
    const result = await tool.execute("c", { toolCallIds: ["t1"], lines: "2-" }, undefined, undefined, ctxWith(branch));
    expect(result.content).toHaveLength(1);
  });

  test("without a context, or with a branch that throws, the answer is text only", async () => {
    const throwing = { sessionManager: { getSessionDir: () => "", getSessionId: () => "sid", getBranch: () => { throw new Error("gone"); } } };
    const plain = await query(indexed(), ["t1"]);
    expect(plain.content).toHaveLength(1);
    await silenced(async () => {
      expect(await queryIn(indexed(), ["t1"], throwing)).toEqual(plain);
    });
  });

  test("a legacy record without markers, or an image off the branch, adds nothing", async () => {
    const indexer = new ToolCallIndexer();
    indexer.addBatch(batchOf("old", 1, "Read image file [image/png]"), noop);
    indexer.addBatch(batchOf("gone", 2, `${marker("ZZZZ")}\nRead image file [image/png]`), noop);
    const result = await queryIn(indexer, ["old", "gone"], ctxWith(branch));
    expect(result.content).toHaveLength(1);
    expect(result).toEqual(await query(indexer, ["old", "gone"]));
  });

  test("the branch is read once per call", async () => {
    let reads = 0;
    const counting = { sessionManager: { getSessionDir: () => "", getSessionId: () => "sid", getBranch: () => (reads++, branch) } };
    await queryIn(indexed(), ["t1", "r2", "t1"], counting);
    expect(reads).toBe(1);
  });
});

describe("details: facts about each answer, never its text (issue 16)", () => {
  const longBody = (n: number) => Array.from({ length: n }, (_, i) => `row ${i + 1} ${"x".repeat(20)}`).join("\n");

  test("a found record's details name it, its sizes and its paging, and hold no copy of the output", async () => {
    const indexer = new ToolCallIndexer();
    indexer.addBatch(batchOf("a", 7, "SECRET-BODY-TEXT"), noop);
    indexer.registerSummaryRefs([{ shortId: "t4", toolCallId: "a", resultTimestamp: 7 }]);
    const result = await query(indexer, ["t4"]);
    expect(result.details).toEqual({
      results: {
        t4: {
          toolCallId: "a",
          resultTimestamp: 7,
          shortRef: "t4",
          toolName: "bash",
          isError: false,
          turnIndex: 2,
          originalChars: 16,
          shownChars: 16,
          truncated: false,
          spilled: false,
          images: 0,
        },
      },
    });
    expect(JSON.stringify(result.details)).not.toContain("SECRET-BODY-TEXT");
  });

  test("a cut answer says so and how much of the original it shows", async () => {
    const indexer = new ToolCallIndexer();
    const body = longBody(5000);
    indexer.addBatch(batchOf("long", 1, body), noop);
    const facts = (await query(indexer, ["long"])).details.results.long;
    expect(facts.truncated).toBe(true);
    expect(facts.originalChars).toBe(body.length);
    expect(facts.shownChars).toBeLessThan(body.length);
  });

  test("a line range is named in the details", async () => {
    const indexer = new ToolCallIndexer();
    indexer.addBatch(batchOf("long", 1, longBody(50)), noop);
    const [tool] = toolFor(indexer);
    const result = await tool.execute("c", { toolCallIds: ["long"], lines: "10-12" });
    expect(result.details.results.long).toMatchObject({ lines: "10-12 of 50", truncated: false });
  });

  test("a spilled body's details say it was spilled and still copy none of it", async () => {
    const dir = await tempDir();
    const path = await writeSidecar(dir, "sid", "big@5", "SPILLED-BODY");
    const ctx = { sessionManager: { getSessionDir: () => dir, getSessionId: () => "sid", getBranch: () => [] } };
    const [tool] = toolFor(withSpilled({ spillPath: path }));
    const result = await tool.execute("c", { toolCallIds: ["big"] }, undefined, undefined, ctx);
    expect(result.details.results.big).toMatchObject({ spilled: true, originalChars: 12 });
    expect(JSON.stringify(result.details)).not.toContain("SPILLED-BODY");
  });

  test("re-attached images are counted, their data is not copied", async () => {
    const data = "QUFBQUFBQUE=";
    const indexer = new ToolCallIndexer();
    indexer.addBatch(batchOf("r1", 101, `[image returned: image/png sha256:${imageDigest(data)}]\nRead image file`), noop);
    const branch = [{ type: "message", message: { role: "toolResult", toolCallId: "r1", toolName: "read", content: [{ type: "image", data, mimeType: "image/png" }], timestamp: 101 } }];
    const [tool] = toolFor(indexer);
    const ctx = { sessionManager: { getSessionDir: () => "", getSessionId: () => "sid", getBranch: () => branch } };
    const result = await tool.execute("c", { toolCallIds: ["r1"] }, undefined, undefined, ctx);
    expect(result.details.results.r1.images).toBe(1);
    expect(JSON.stringify(result.details)).not.toContain(data);
  });
});
