import { afterAll, describe, expect, spyOn, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative, resolve } from "node:path";
import { ToolCallIndexer } from "../archive/indexer.js";
import { occKey } from "./occurrence-key.js";
import { registerQueryTool } from "../archive/query-tool.js";
import {
  applySpill,
  blobDirFor,
  blobPathFor,
  headPreview,
  MAX_SIDECAR_STEM,
  sanitizeId,
  spillOversizedBatch,
  writeSidecar,
} from "./spill.js";
import { CUSTOM_TYPE_DEDUP_ALIAS, CUSTOM_TYPE_INDEX } from "../names.js";
import type { CapturedBatch } from "./records.js";
import { faultyFiles, type DiskRefusal } from "../../test/faulty-files.js";

const tempDirs: string[] = [];
const tempDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), "spill-test-"));
  tempDirs.push(dir);
  return dir;
};
afterAll(async () => {
  await Promise.all(tempDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

const noop = () => {};
const batchOf = (calls: { id: string; text: string; ts?: number; name?: string }[]): CapturedBatch => ({
  turnIndex: 3,
  timestamp: 900,
  assistantText: "text",
  toolCalls: calls.map(({ id, text, ts, name }) => ({
    toolCallId: id,
    toolName: name ?? "bash",
    args: { cmd: id },
    resultText: text,
    isError: false,
    ...(ts === undefined ? {} : { resultTimestamp: ts }),
  })),
});
const config = (spillThreshold: number, dedupByContentHash = true) => ({ spillThreshold, spillPreviewBytes: 16, dedupByContentHash });

describe("sidecar naming", () => {
  test("sanitizeId keeps safe ids and replaces everything else (49)", () => {
    expect(sanitizeId("toolu_abc-123")).toBe("toolu_abc-123");
    expect(sanitizeId("../../etc/passwd")).toBe("______etc_passwd");
    expect(sanitizeId("a/b\\c")).toBe("a_b_c");
    expect(sanitizeId("bash_23@1150")).toBe("bash_23_1150");
  });

  test("an empty id still yields a visible file name", () => {
    expect(sanitizeId("")).toBe("_");
  });

  test("very long ids are capped with a hash suffix that keeps them distinct", () => {
    const a = sanitizeId("x".repeat(10_240));
    const b = sanitizeId(`${"x".repeat(10_239)}y`);
    expect(a.length).toBe(MAX_SIDECAR_STEM);
    expect(b.length).toBe(MAX_SIDECAR_STEM);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  test("blob dir and path follow the session layout (50)", () => {
    expect(blobDirFor("/s", "sid")).toBe(join("/s", "sid-blobs"));
    expect(blobPathFor("/s", "sid", "tc1")).toBe(join("/s", "sid-blobs", "tc1.txt"));
  });

  test("real pi session ids keep today's directory name", () => {
    for (const id of ["019a7c2e-4b1f-7d3a-9c10-2f6e8a4b5c6d", "sid", "my_session-2", "v1.2.release"]) {
      expect(blobDirFor("/s", id)).toBe(join("/s", `${id}-blobs`));
    }
  });

  test("crafted session ids name a directory directly inside the session dir (issue 12, finding 5)", () => {
    const cases: [string, string][] = [
      ["../../escape", "______escape-blobs"],
      ["a/../../b", "a_______b-blobs"],
      ["..", "__-blobs"],
      [".", "_-blobs"],
      ["", "_-blobs"],
      ["/etc/x", "_etc_x-blobs"],
      ["C:\\win", "C__win-blobs"],
      [".hidden", "_hidden-blobs"],
    ];
    for (const [id, name] of cases) expect(blobDirFor("/s", id)).toBe(join("/s", name));
  });

  test("a session id that is not a string from a crafted header still names one directory", () => {
    expect(blobDirFor("/s", 42 as any)).toBe(join("/s", "42-blobs"));
    expect(blobDirFor("/s", undefined as any)).toBe(join("/s", "undefined-blobs"));
  });

  test("an overlong session id is bounded like sidecar names", () => {
    const dir = blobDirFor("/s", "a".repeat(10_000));
    expect(dirname(dir)).toBe("/s");
    expect(relative("/s", dir).length).toBe(MAX_SIDECAR_STEM + "-blobs".length);
    expect(blobDirFor("/s", "a".repeat(10_000))).not.toBe(blobDirFor("/s", `${"a".repeat(9_999)}b`));
  });

  test("two occurrences of a reused id get distinct sidecars (54)", () => {
    const first = blobPathFor("/s", "sid", occKey("bash_23", 1150));
    const second = blobPathFor("/s", "sid", occKey("bash_23", 2150));
    expect(first).not.toBe(second);
    expect(first.endsWith("bash_23_1150.txt")).toBe(true);
  });

  test("a bare id keeps the legacy file name (55)", () => {
    expect(blobPathFor("/s", "sid", "bash_23").endsWith(join("sid-blobs", "bash_23.txt"))).toBe(true);
  });

  test("hostile ids never leave the blob directory", () => {
    const dir = blobDirFor("/s", "sid");
    for (const id of ["../../x", "a/b", "", "..", "/etc/passwd", "C:\\win", "x".repeat(10_240), "\u0000nul"]) {
      const path = blobPathFor("/s", "sid", id);
      expect(dirname(path)).toBe(dir);
      expect(relative(dir, path).startsWith("..")).toBe(false);
    }
  });
});

describe("headPreview", () => {
  test("short text is returned unchanged (51)", () => {
    expect(headPreview("hello", 1024)).toBe("hello");
  });

  test("a cut text ends at its last newline (52)", () => {
    expect(headPreview("aaaa\nbbbb\ncccc", 7)).toBe("aaaa");
  });

  test("multi-byte text is never split inside a code point (53)", () => {
    const preview = headPreview("é".repeat(100), 11);
    expect(Buffer.byteLength(preview, "utf8")).toBeLessThanOrEqual(11);
    expect(preview).toBe("é".repeat(5));
    expect(preview).not.toContain("\uFFFD");
  });

  test("a newline only at index 0 does not trigger the newline cut (S7)", () => {
    expect(headPreview("\nabcdefgh", 5)).toBe("\nabcd");
  });

  test("surrogate pairs are kept whole", () => {
    const preview = headPreview("😀".repeat(10), 6);
    expect(preview).toBe("😀");
  });
});

describe("applySpill", () => {
  test("computes spill fields from the full text, then empties it", () => {
    const record = { toolName: "bash", resultText: "héllo\nworld" } as any;
    applySpill(record, "/p/x.txt", 7);
    expect(record).toMatchObject({ resultText: "", spillPath: "/p/x.txt", spillBytes: 12, resultPreview: "héllo" });
    expect(record.contentHash).toMatch(/^[0-9a-f]{40}$/);
  });

  test("records the SHA-256 of the sidecar's bytes, which a read checks them against", () => {
    const record = { toolName: "bash", resultText: "héllo\nworld" } as any;
    applySpill(record, "/p/x.txt", 7);
    expect(record.spillSha256).toBe(createHash("sha256").update(Buffer.from("héllo\nworld", "utf8")).digest("hex"));
  });
});

describe("writeSidecar", () => {
  test("writes owner-only files in an owner-only directory", async () => {
    if (process.platform === "win32") return;
    const dir = await tempDir();
    const path = await writeSidecar(dir, "sid", "k@1", "body");
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(blobDirFor(dir, "sid"))).mode & 0o777).toBe(0o700);
  });

  test("never writes through a symlink planted at the sidecar path: the body gets a name of its own", async () => {
    if (process.platform === "win32") return;
    const dir = await tempDir();
    const target = join(dir, "victim.txt");
    await writeFile(target, "original");
    await mkdir(blobDirFor(dir, "sid"), { recursive: true });
    await symlink(target, blobPathFor(dir, "sid", "evil"));
    const path = await writeSidecar(dir, "sid", "evil", "overwritten");
    expect(await readFile(target, "utf8")).toBe("original");
    expect(path).not.toBe(blobPathFor(dir, "sid", "evil"));
    expect(await readFile(path, "utf8")).toBe("overwritten");
  });

  test("a sidecar name already holding the same bytes is reused", async () => {
    const dir = await tempDir();
    const first = await writeSidecar(dir, "sid", "k@1", "same body");
    expect(await writeSidecar(dir, "sid", "k@1", "same body")).toBe(first);
    expect(await readdir(blobDirFor(dir, "sid"))).toEqual(["k_1.txt"]);
  });

  test("a sidecar name holding another body is never replaced: the new body goes to its content-addressed name", async () => {
    const dir = await tempDir();
    const first = await writeSidecar(dir, "sid", "k@1", "body of process A");
    const second = await writeSidecar(dir, "sid", "k@1", "body of process B");
    const sha = createHash("sha256").update("body of process B").digest("hex");
    expect(await readFile(first, "utf8")).toBe("body of process A");
    expect(second).toBe(join(blobDirFor(dir, "sid"), `k_1.${sha.slice(0, 16)}.txt`));
    expect(await readFile(second, "utf8")).toBe("body of process B");
  });

  test("a crafted session id writes nothing outside the session dir (issue 12, finding 5)", async () => {
    const root = await tempDir();
    const sessionDir = join(root, "sessions", "project");
    await mkdir(sessionDir, { recursive: true });
    for (const id of ["../../escape", "a/../../b", "../x"]) await writeSidecar(sessionDir, id, "k@1", "body");
    expect(await readdir(root)).toEqual(["sessions"]);
    expect(await readdir(join(root, "sessions"))).toEqual(["project"]);
    expect((await readdir(sessionDir)).sort()).toEqual(["______escape-blobs", "___x-blobs", "a_______b-blobs"]);
  });

  test("returns an absolute path even for a relative session dir", async () => {
    const dir = await tempDir();
    const relativeDir = relative(process.cwd(), dir);
    const path = await writeSidecar(relativeDir, "sid", "k@1", "body");
    expect(path).toBe(join(dir, "sid-blobs", "k_1.txt"));
  });

  test("refuses to write through a blob directory that is a symlink", async () => {
    if (process.platform === "win32") return;
    const dir = await tempDir();
    const elsewhere = join(dir, "elsewhere");
    await mkdir(elsewhere);
    await symlink(elsewhere, blobDirFor(dir, "sid"));
    await expect(writeSidecar(dir, "sid", "k@1", "body")).rejects.toThrow("is a symbolic link");
    expect(await readdir(elsewhere)).toEqual([]);
  });

  test("refuses to write when the blob directory path is a file", async () => {
    const dir = await tempDir();
    await writeFile(blobDirFor(dir, "sid"), "not a dir");
    await expect(writeSidecar(dir, "sid", "k@1", "body")).rejects.toThrow();
    expect(await readFile(blobDirFor(dir, "sid"), "utf8")).toBe("not a dir");
  });

  test("hostile keys are written inside the blob directory", async () => {
    const dir = await tempDir();
    for (const key of ["../../x", "a/b", "", "y".repeat(10_240)]) await writeSidecar(dir, "sid", key, key);
    expect((await readdir(dir)).sort()).toEqual(["sid-blobs"]);
    expect(await readdir(blobDirFor(dir, "sid"))).toHaveLength(4);
    expect(existsSync(resolve(dir, "..", "x.txt"))).toBe(false);
  });
});

describe("spillOversizedBatch", () => {
  test("without a session dir nothing is written and the oversized call stays inline", async () => {
    const cwdBefore = await readdir(process.cwd());
    const indexer = new ToolCallIndexer();
    const handled = await spillOversizedBatch({
      batch: batchOf([{ id: "nosession", text: "q".repeat(50) }]),
      indexer,
      config: config(10),
      sessionDir: "",
      sessionId: "sid",
      appendEntry: noop,
    });
    expect(handled.size).toBe(0);
    expect(indexer.isSummarized("nosession")).toBe(false);
    expect(await readdir(process.cwd())).toEqual(cwdBefore);
  });

  test("dedup runs before spill and registers the alias (56)", async () => {
    const calls: [string, string][] = [];
    const fake = {
      lookupByContent: () => "bash_1@1000",
      registerDuplicate: (newKey: string, originalKey: string) => calls.push([newKey, originalKey]),
      addBatch: () => {
        throw new Error("must not index");
      },
    } as any;
    const dir = await tempDir();
    const handled = await spillOversizedBatch({
      batch: batchOf([{ id: "bash_2", text: "x".repeat(50), ts: 2150 }]),
      indexer: fake,
      config: config(10),
      sessionDir: dir,
      sessionId: "sid",
      appendEntry: noop,
    });
    expect(calls).toEqual([["bash_2@2150", "bash_1@1000"]]);
    expect([...handled]).toEqual(["bash_2"]);
    expect(existsSync(blobDirFor(dir, "sid"))).toBe(false);
  });

  test("an oversized call is spilled, indexed and summarized (58)", async () => {
    const dir = await tempDir();
    const indexer = new ToolCallIndexer();
    const body = "z".repeat(50);
    const batch = batchOf([{ id: "tc1", text: body }]);
    const appended: [string, any][] = [];
    const handled = await spillOversizedBatch({
      batch,
      indexer,
      config: config(10),
      sessionDir: dir,
      sessionId: "sid",
      appendEntry: (t, d) => appended.push([t, d]),
    });
    const expectedPath = blobPathFor(dir, "sid", "tc1");
    expect(handled.has("tc1")).toBe(true);
    const record = indexer.getRecord("tc1")!;
    expect(record.spillPath).toBe(expectedPath);
    expect(record.spillBytes).toBe(50);
    expect(record.resultText).toBe("");
    expect(record.resultPreview).toBeTruthy();
    expect(await readFile(expectedPath, "utf8")).toBe(body);
    expect(indexer.isSummarized("tc1")).toBe(true);
    expect(batch.toolCalls[0]!.resultText).toBe("");
    expect(appended).toHaveLength(1);
    expect(appended[0]![0]).toBe(CUSTOM_TYPE_INDEX);
    expect(appended[0]![1].toolCalls[0]).toMatchObject({ turnIndex: 3, timestamp: 900, spillPath: expectedPath });
  });

  test("a small result is left alone (59)", async () => {
    const dir = await tempDir();
    const indexer = new ToolCallIndexer();
    const appended: unknown[] = [];
    const handled = await spillOversizedBatch({
      batch: batchOf([{ id: "tc1", text: "tiny" }]),
      indexer,
      config: config(10),
      sessionDir: dir,
      sessionId: "sid",
      appendEntry: (t) => appended.push(t),
    });
    expect(handled.size).toBe(0);
    expect(indexer.isSummarized("tc1")).toBe(false);
    expect(appended).toEqual([]);
  });

  test("a failed write leaves the call inline and unhandled (60)", async () => {
    const dir = await tempDir();
    const fileAsDir = join(dir, "not-a-dir");
    await writeFile(fileAsDir, "x");
    const indexer = new ToolCallIndexer();
    const batch = batchOf([{ id: "tc1", text: "q".repeat(50) }]);
    const errors = spyOn(console, "error").mockImplementation(() => {});
    try {
      const handled = await spillOversizedBatch({ batch, indexer, config: config(10), sessionDir: fileAsDir, sessionId: "sid", appendEntry: noop });
      expect(handled.size).toBe(0);
      expect(indexer.isSummarized("tc1")).toBe(false);
      expect(batch.toolCalls[0]!.resultText).toBe("q".repeat(50));
      expect(String(errors.mock.calls[0]![0])).toBe(`spill: failed to write sidecar for tc1 at ${blobPathFor(fileAsDir, "sid", "tc1")}:`);
      expect(errors.mock.calls[0]![1]).toBeInstanceOf(Error);
    } finally {
      errors.mockRestore();
    }
  });

  test("a 500-char provider id spills into a sidecar whose name fits the 255-byte limit (spec 70 §6)", async () => {
    const dir = await tempDir();
    const indexer = new ToolCallIndexer();
    const id = `call_${"k".repeat(495)}`;
    await spillOversizedBatch({ batch: batchOf([{ id, text: "L".repeat(40), ts: 7 }]), indexer, config: config(10, false), sessionDir: dir, sessionId: "sid", appendEntry: noop });
    const record = indexer.getRecord(`${id}@7`)!;
    expect(record.resultText).toBe("");
    expect(record.resultPreview).toBeTruthy();
    expect(Buffer.byteLength(basename(record.spillPath!))).toBeLessThanOrEqual(255);
    expect(await readFile(record.spillPath!, "utf8")).toBe("L".repeat(40));
  });

  test("long ids sharing their first 300 chars, or sanitizing alike, get distinct sidecar names (spec 70 §6)", () => {
    const prefix = "p".repeat(300);
    expect(blobPathFor("/s", "sid", `${prefix}-a`)).not.toBe(blobPathFor("/s", "sid", `${prefix}-b`));
    expect(blobPathFor("/s", "sid", `${prefix}:x`)).not.toBe(blobPathFor("/s", "sid", `${prefix}/x`));
    expect(blobPathFor("/s", "sid", `${prefix}:x`)).toBe(blobPathFor("/s", "sid", `${prefix}:x`));
  });

  test("two occurrences of a reused id keep separate sidecars (61)", async () => {
    const dir = await tempDir();
    const indexer = new ToolCallIndexer();
    await spillOversizedBatch({
      batch: batchOf([
        { id: "bash_23", text: "A".repeat(40), ts: 1150 },
        { id: "bash_23", text: "B".repeat(40), ts: 3150 },
      ]),
      indexer,
      config: config(10, false),
      sessionDir: dir,
      sessionId: "sid",
      appendEntry: noop,
    });
    const first = indexer.getRecord("bash_23@1150")!;
    const second = indexer.getRecord("bash_23@3150")!;
    expect(first.spillPath).not.toBe(second.spillPath);
    expect(await readFile(first.spillPath!, "utf8")).toBe("A".repeat(40));
    expect(await readFile(second.spillPath!, "utf8")).toBe("B".repeat(40));
  });

  test("a later identical body dedups to the spilled record without a new sidecar (62)", async () => {
    const dir = await tempDir();
    const indexer = new ToolCallIndexer();
    const body = "same body ".repeat(10);
    const args = { indexer, config: config(10), sessionDir: dir, sessionId: "sid", appendEntry: noop };
    await spillOversizedBatch({ ...args, batch: batchOf([{ id: "tc1", text: body }]) });
    const handled = await spillOversizedBatch({ ...args, batch: batchOf([{ id: "tc2", text: body }]) });
    expect(handled.has("tc2")).toBe(true);
    expect(indexer.isSummarized("tc2")).toBe(true);
    expect(indexer.getRecord("tc2")).toBe(indexer.getRecord("tc1"));
    expect(existsSync(blobPathFor(dir, "sid", "tc2"))).toBe(false);
  });
});

describe("archive writes the disk refuses", () => {
  const CODES: DiskRefusal[] = ["ENOSPC", "EACCES", "EROFS"];

  test.each(CODES)("a sidecar refused with %s rejects with that error and writes nothing", async (code) => {
    const dir = await tempDir();
    await expect(writeSidecar(dir, "sid", "k@1", "body", faultyFiles({ create: code }))).rejects.toMatchObject({ code });
    expect(await readdir(blobDirFor(dir, "sid"))).toEqual([]);
  });

  test.each(CODES)("a blob directory refused with %s rejects with that error", async (code) => {
    const dir = await tempDir();
    await expect(writeSidecar(dir, "sid", "k@1", "body", faultyFiles({ mkdir: code }))).rejects.toMatchObject({ code, syscall: "mkdir" });
    expect(existsSync(blobDirFor(dir, "sid"))).toBe(false);
  });

  test("a refused sidecar leaves its call inline, unindexed, and tells onWriteFailed the error", async () => {
    const dir = await tempDir();
    const indexer = new ToolCallIndexer();
    const batch = batchOf([{ id: "tc1", text: "q".repeat(50) }]);
    const told: unknown[] = [];
    const errors = spyOn(console, "error").mockImplementation(() => {});
    try {
      const handled = await spillOversizedBatch({
        batch,
        indexer,
        config: config(10),
        sessionDir: dir,
        sessionId: "sid",
        appendEntry: noop,
        files: faultyFiles({ create: "ENOSPC" }),
        onWriteFailed: (error) => told.push(error),
      });
      expect(handled.size).toBe(0);
      expect(indexer.isSummarized("tc1")).toBe(false);
      expect(batch.toolCalls[0]!.resultText).toBe("q".repeat(50));
      expect(told).toEqual([expect.objectContaining({ code: "ENOSPC" })]);
    } finally {
      errors.mockRestore();
    }
  });

  test("an index entry the session refuses leaves every spilled call inline, unindexed and without a ref", async () => {
    const dir = await tempDir();
    const indexer = new ToolCallIndexer();
    const batch = batchOf([{ id: "tc1", text: "q".repeat(50), ts: 1 }, { id: "tc2", text: "r".repeat(50), ts: 2 }]);
    const told: unknown[] = [];
    const refused = () => {
      throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
    };
    const errors = spyOn(console, "error").mockImplementation(() => {});
    try {
      const handled = await spillOversizedBatch({
        batch,
        indexer,
        config: config(10),
        sessionDir: dir,
        sessionId: "sid",
        appendEntry: refused,
        onWriteFailed: (error) => told.push(error),
      });
      expect(handled.size).toBe(0);
      expect(indexer.getIndex().size).toBe(0);
      expect(indexer.getRecord("t1")).toBeUndefined();
      expect(batch.toolCalls.map((call) => call.resultText)).toEqual(["q".repeat(50), "r".repeat(50)]);
      expect(batch.toolCalls.some((call) => "spillPath" in call || "spillSha256" in call)).toBe(false);
      expect(told).toHaveLength(1);
    } finally {
      errors.mockRestore();
    }
  });

  test("a dedup alias the session refuses is not linked: the duplicate is spilled on its own", async () => {
    const dir = await tempDir();
    const indexer = new ToolCallIndexer();
    const body = "same body ".repeat(10);
    const appended: string[] = [];
    const appendEntry = (customType: string) => {
      if (customType === CUSTOM_TYPE_DEDUP_ALIAS) throw Object.assign(new Error("EACCES: permission denied"), { code: "EACCES" });
      appended.push(customType);
    };
    const errors = spyOn(console, "error").mockImplementation(() => {});
    try {
      const args = { indexer, config: config(10), sessionDir: dir, sessionId: "sid", appendEntry };
      await spillOversizedBatch({ ...args, batch: batchOf([{ id: "tc1", text: body, ts: 1 }]) });
      await spillOversizedBatch({ ...args, batch: batchOf([{ id: "tc2", text: body, ts: 2 }]) });
      expect(indexer.getRecord("tc2@2")).not.toBe(indexer.getRecord("tc1@1"));
      expect(await readFile(indexer.getRecord("tc2@2")!.spillPath!, "utf8")).toBe(body);
      expect(appended).toEqual([CUSTOM_TYPE_INDEX, CUSTOM_TYPE_INDEX]);
    } finally {
      errors.mockRestore();
    }
  });
});

describe("legacy spilled records", () => {
  test("a rebuilt legacy record is served from its bare-id sidecar (57)", async () => {
    const dir = await tempDir();
    const path = await writeSidecar(dir, "old-session", "bash_7", "LEGACY SIDECAR BODY");
    const indexer = new ToolCallIndexer();
    const branch = [
      {
        type: "custom",
        customType: CUSTOM_TYPE_INDEX,
        data: { toolCalls: [{ toolCallId: "bash_7", toolName: "bash", args: {}, resultText: "", isError: false, turnIndex: 1, timestamp: 10, spillPath: path, spillBytes: 19, resultPreview: "LEGACY" }] },
      },
    ];
    indexer.reconstructFromSession({ sessionManager: { getBranch: () => branch } } as any);
    expect(indexer.hasLegacyBareRecord("bash_7")).toBe(true);
    let tool: any;
    registerQueryTool({ registerTool: (def: any) => (tool = def) } as any, indexer);
    const ctx = { sessionManager: { getSessionDir: () => dir, getSessionId: () => "old-session", getBranch: () => branch } };
    const result = await tool.execute("q1", { toolCallIds: ["bash_7"] }, undefined, undefined, ctx);
    expect(result.content[0].text).toContain("LEGACY SIDECAR BODY");
  });
});
