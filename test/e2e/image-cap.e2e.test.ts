// Real pi 1.6.0 + pi-condense: a session that has read 120 images keeps working on the Anthropic wire,
// which accepts at most 100 images per request (spec 70 §12, decisions C6/C7). pi's own `read` tool
// turns real PNG files of the sandbox into image blocks; the fake provider rejects an over-limit
// request the way Anthropic does.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import { describe, expect, test } from "bun:test";
import type { ScriptedReply } from "./fake-llm.js";
import { disposeSandbox, mainRequests, makeSandbox, runPrint, sessionEntries, type Sandbox, type SandboxOptions } from "./harness.js";
import { measureRequests } from "./metrics.js";
import { problems, say } from "./scenario-kit.js";
import { countImageBlocks } from "./wire-validate.js";
import { stubRefs } from "./wire-view.js";

const IMAGES = 120;
const NOTE = "[earlier image omitted from this request: over maxImagesPerRequest; re-read the file or re-attach it to view it]";

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A valid 2x2 RGB PNG whose colour encodes `n`, so every file is distinct. */
function png(n: number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(2, 0);
  header.writeUInt32BE(2, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.from([0, n & 0xff, (n >> 8) & 0xff, 0x80, 0x10, 0x20, 0x30]);
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk("IHDR", header), chunk("IDAT", deflateSync(Buffer.concat([row, row]))), chunk("IEND", Buffer.alloc(0))]);
}

const imagePath = (n: number) => `img/${String(n).padStart(3, "0")}.png`;

function writeImages(sb: Sandbox): void {
  mkdirSync(join(sb.projectDir, "img"));
  for (let n = 0; n < IMAGES; n++) writeFileSync(join(sb.projectDir, imagePath(n)), png(n));
}

/** One assistant turn reading every image at once. */
const readAll: ScriptedReply = { toolCalls: Array.from({ length: IMAGES }, (_, n) => ({ name: "read", args: { path: imagePath(n) } })) };

async function imageSandbox(contextPrune: SandboxOptions["contextPrune"]): Promise<Sandbox> {
  const sb = await makeSandbox({
    api: "anthropic-messages",
    modelInput: ["text", "image"],
    contextPrune,
    // pi's read still returns an image block per file; without this it starts one resize worker per
    // image, which takes about 15 s a run here and tests nothing of ours.
    settings: { images: { autoResize: false } },
    script: { main: [readAll, say("Saw the images."), say("Still here.")] },
  });
  writeImages(sb);
  return sb;
}

const notesIn = (body: any) => (JSON.stringify(body?.messages).match(/earlier image omitted from this request/g) ?? []).length;

/** Per tool_result of a request, in order: does it still carry its image, or the omission note? */
function resultShapes(body: any): string[] {
  const results = (body?.messages ?? []).flatMap((m: any) => (Array.isArray(m.content) ? m.content : [])).filter((b: any) => b?.type === "tool_result");
  return results.map((r: any) => (countImageBlocks(r.content) === 1 ? "image" : JSON.stringify(r.content).includes(NOTE) ? "note" : "other"));
}

function sessionImages(sb: Sandbox): number {
  return sessionEntries(sb)
    .filter((e) => e.type === "message" && e.message.role === "toolResult")
    .reduce((sum, e) => sum + countImageBlocks(e.message.content), 0);
}

describe(`${IMAGES} images read through pi's read tool on the Anthropic wire`, () => {
  test("control: without pi-condense the provider rejects the request that carries them", async () => {
    const sb = await imageSandbox(null);
    try {
      const run = await runPrint(sb, ["look at every image"], [], { withExtension: false });
      expect(run.code).toBe(1);
      const requests = mainRequests(sb);
      expect(requests).toHaveLength(2);
      expect(requests[1]!.status).toBe(400);
      expect(requests[1]!.rejected).toBe(`Too many images in request: ${IMAGES} > 100`);
    } finally {
      await disposeSandbox(sb);
    }
  });

  test("with pruning off, pi-condense sends the 70 newest images, and the run and a follow-up prompt succeed", async () => {
    const sb = await imageSandbox({ enabled: false });
    try {
      const run = await runPrint(sb, ["look at every image", "anything else?"], []);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain("Still here.");
      expect(problems(sb)).toEqual([]);
      const [first, second, third] = mainRequests(sb);
      expect(countImageBlocks(first!.body.messages)).toBe(0);
      for (const request of [second!, third!]) {
        expect(countImageBlocks(request.body.messages)).toBe(70);
        expect(notesIn(request.body)).toBe(50);
      }
      // The omitted set did not move between the two requests, so the cached prefix holds.
      expect(measureRequests(sb.fake.requests).prefixBreaks).toBe(0);
      expect(resultShapes(second!.body)).toEqual([...Array(50).fill("note"), ...Array(70).fill("image")]);
      expect(sessionImages(sb)).toBe(IMAGES);
    } finally {
      await disposeSandbox(sb);
    }
  });

  test("with pruning on, the capped request is accepted and the summarized images leave the next one", async () => {
    const sb = await imageSandbox({ enabled: true, minBatchChars: 0 });
    try {
      const run = await runPrint(sb, ["look at every image", "anything else?"], []);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain("Still here.");
      expect(problems(sb)).toEqual([]);
      const requests = mainRequests(sb);
      expect(countImageBlocks(requests[1]!.body.messages)).toBe(70);
      for (const request of requests) expect(countImageBlocks(request.body.messages)).toBeLessThanOrEqual(100);
      const last = requests.at(-1)!;
      expect(stubRefs(last).length).toBe(IMAGES);
      expect(countImageBlocks(last.body.messages)).toBe(0);
      expect(sessionImages(sb)).toBe(IMAGES);
    } finally {
      await disposeSandbox(sb);
    }
  });
});
