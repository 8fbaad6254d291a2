import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, rm, symlink, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAX_SIDECAR_READ_BYTES, readOwnSidecar } from "./sidecar-read.js";
import { blobDirFor, writeSidecar } from "./spill.js";

const tempDirs: string[] = [];
afterAll(async () => {
  await Promise.all(tempDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});
const posixOnly = process.platform === "win32" ? test.skip : test;

/** A session dir holding this session's archive `sid-blobs` with one sidecar, and another session's `other-blobs`. */
async function archive() {
  const dir = await mkdtemp(join(tmpdir(), "sidecar-read-"));
  tempDirs.push(dir);
  const own = blobDirFor(dir, "sid");
  const ownFile = await writeSidecar(dir, "sid", "big@5", "OWN BODY");
  const otherFile = await writeSidecar(dir, "other", "secret@1", "OTHER SECRET");
  return { dir, own, ownFile, otherFile };
}

describe("what is read", () => {
  test("a sidecar of this session's blob directory is read whole", async () => {
    const { own, ownFile } = await archive();
    expect(await readOwnSidecar(own, ownFile)).toEqual({ kind: "ok", text: "OWN BODY" });
  });

  test("only the recorded file name is used: a moved session reads its own directory", async () => {
    const { own } = await archive();
    expect(await readOwnSidecar(own, "/moved/away/sid-blobs/big_5.txt")).toEqual({ kind: "ok", text: "OWN BODY" });
  });

  test("a missing sidecar, or a missing blob directory, is reported as missing", async () => {
    const { dir, own } = await archive();
    expect((await readOwnSidecar(own, join(own, "gone.txt"))).kind).toBe("missing");
    expect((await readOwnSidecar(blobDirFor(dir, "fresh"), join(dir, "fresh-blobs", "x.txt"))).kind).toBe("missing");
  });

  test("a UTF-8 body comes back verbatim", async () => {
    const { dir, own } = await archive();
    const body = "é😀\r\n  trailing  \n";
    const path = await writeSidecar(dir, "sid", "utf", body);
    expect(await readOwnSidecar(own, path)).toEqual({ kind: "ok", text: body });
  });
});

/** The size and SHA-256 a record keeps of a sidecar holding `text`. */
const copyOf = (text: string) => ({ bytes: Buffer.byteLength(text), sha256: createHash("sha256").update(text).digest("hex") });

describe("an archived copy checked against the size and hash its record kept", () => {
  test("an intact copy is read whole", async () => {
    const { own, ownFile } = await archive();
    expect(await readOwnSidecar(own, ownFile, copyOf("OWN BODY"))).toEqual({ kind: "ok", text: "OWN BODY" });
  });

  test("a truncated copy is reported as changed with both sizes, never returned", async () => {
    const { own, ownFile } = await archive();
    await truncate(ownFile, 3);
    expect(await readOwnSidecar(own, ownFile, copyOf("OWN BODY"))).toEqual({ kind: "changed", reason: "it is 3 bytes, 8 were archived" });
  });

  test("a copy edited to the same size is reported as changed by its hash, never returned", async () => {
    const { own, ownFile } = await archive();
    await writeFile(ownFile, "OWN BOGY");
    expect(await readOwnSidecar(own, ownFile, copyOf("OWN BODY"))).toEqual({
      kind: "changed",
      reason: "its content no longer matches the SHA-256 recorded when it was archived",
    });
  });

  test("a deleted copy is reported as missing", async () => {
    const { own, ownFile } = await archive();
    await rm(ownFile);
    expect((await readOwnSidecar(own, ownFile, copyOf("OWN BODY"))).kind).toBe("missing");
  });

  test("a record of an older version, which kept neither, gets the file as it is", async () => {
    const { own, ownFile } = await archive();
    await truncate(ownFile, 3);
    expect(await readOwnSidecar(own, ownFile)).toEqual({ kind: "ok", text: "OWN" });
  });
});

describe("what is never read", () => {
  test("another session's sidecar: its name is looked up in this session's directory only", async () => {
    const { own, otherFile } = await archive();
    const result = await readOwnSidecar(own, otherFile);
    expect(result.kind).toBe("missing");
    expect(JSON.stringify(result)).not.toContain("OTHER SECRET");
  });

  test("dot-dot segments in the recorded path reach nothing outside the own directory", async () => {
    const { dir, own } = await archive();
    await writeFile(join(dir, "config.txt"), "SECRET CONFIG");
    const result = await readOwnSidecar(own, `${own}/../config.txt`);
    expect(result.kind).toBe("missing");
    expect(JSON.stringify(result)).not.toContain("SECRET CONFIG");
  });
});

describe("what is refused without reading", () => {
  const reasonOf = async (own: string | undefined, spillPath: unknown) => {
    const result = await readOwnSidecar(own, spillPath);
    expect(result.kind).toBe("refused");
    return result.kind === "refused" ? result.reason : "";
  };

  test("no blob directory (no session directory or no context)", async () => {
    const { ownFile } = await archive();
    expect(await reasonOf(undefined, ownFile)).toContain("no session directory");
  });

  test("a relative path", async () => {
    const { own } = await archive();
    expect(await reasonOf(own, "sid-blobs/big_5.txt")).toBe("the recorded path is relative");
  });

  test("a name that is not a sidecar name", async () => {
    const { own } = await archive();
    await writeFile(join(own, "notes.json"), "JSON SECRET");
    expect(await reasonOf(own, join(own, "notes.json"))).toBe("the recorded file name is not a sidecar name");
    expect(await reasonOf(own, join(own, ".hidden.txt"))).toBe("the recorded file name is not a sidecar name");
    expect(await reasonOf(own, join(own, "a.0123456789ABCDEF.txt"))).toBe("the recorded file name is not a sidecar name");
  });

  posixOnly("a symlink inside the own blob directory", async () => {
    const { own, otherFile } = await archive();
    await symlink(otherFile, join(own, "link.txt"));
    expect(await reasonOf(own, join(own, "link.txt"))).toBe("the sidecar is a symbolic link");
  });

  posixOnly("a dangling symlink inside the own blob directory", async () => {
    const { own } = await archive();
    await symlink("/nonexistent/target", join(own, "dangling.txt"));
    expect(await reasonOf(own, join(own, "dangling.txt"))).toBe("the sidecar is a symbolic link");
  });

  posixOnly("an own blob directory that is itself a symlink", async () => {
    const root = await mkdtemp(join(tmpdir(), "sidecar-read-link-"));
    tempDirs.push(root);
    const elsewhere = join(root, "elsewhere");
    await mkdir(elsewhere);
    await writeFile(join(elsewhere, "big_5.txt"), "REDIRECTED SECRET");
    await symlink(elsewhere, join(root, "sid-blobs"));
    expect(await reasonOf(join(root, "sid-blobs"), join(root, "sid-blobs", "big_5.txt"))).toBe("this session's blob directory is not a real directory");
  });

  test("an own blob directory that is a file", async () => {
    const root = await mkdtemp(join(tmpdir(), "sidecar-read-file-"));
    tempDirs.push(root);
    await writeFile(join(root, "sid-blobs"), "not a dir");
    expect(await reasonOf(join(root, "sid-blobs"), join(root, "sid-blobs", "big_5.txt"))).toBe("this session's blob directory is not a real directory");
  });

  test("a directory with a sidecar name", async () => {
    const { own } = await archive();
    await mkdir(join(own, "dir.txt"));
    expect(await reasonOf(own, join(own, "dir.txt"))).toBe("the sidecar is not a regular file");
  });

  posixOnly("a FIFO with a sidecar name, without blocking on it", async () => {
    const { own } = await archive();
    expect(spawnSync("mkfifo", [join(own, "pipe.txt")]).status).toBe(0);
    expect(await reasonOf(own, join(own, "pipe.txt"))).toBe("the sidecar is not a regular file");
  });

  test("a sidecar over the read limit", async () => {
    const { own } = await archive();
    const huge = join(own, "huge.txt");
    await writeFile(huge, "");
    await truncate(huge, MAX_SIDECAR_READ_BYTES + 1);
    expect(await reasonOf(own, huge)).toBe(`the sidecar is ${MAX_SIDECAR_READ_BYTES + 1} bytes, over the 64 MiB read limit`);
  });
});

describe("bad records", () => {
  test("a non-string path is reported as missing, never thrown", async () => {
    const { own } = await archive();
    for (const value of [42, null, undefined, {}, ["a"]]) expect((await readOwnSidecar(own, value)).kind).toBe("missing");
  });
});
