import { describe, expect, test } from "bun:test";
import { IMAGE_OMITTED_NOTE, capImages, imageLimitFor } from "./image-cap.js";

const NOTE = { type: "text", text: IMAGE_OMITTED_NOTE };
const image = (name: string) => ({ type: "image", data: name, mimeType: "image/png" });
const readResult = (n: number) => ({
  role: "toolResult",
  toolCallId: `call${n}`,
  toolName: "read",
  content: [{ type: "text", text: "read" }, image(`img${n}`)],
  isError: false,
  timestamp: n,
});
/** Named from img0, like the upstream acceptance rows. */
const readResults = (count: number) => Array.from({ length: count }, (_, i) => readResult(i));

const surviving = (messages: any[]): string[] =>
  messages.flatMap((m) => (Array.isArray(m?.content) ? m.content : [])).filter((b: any) => b?.type === "image").map((b: any) => b.data);
const omitted = (messages: any[]): number =>
  messages.flatMap((m) => (Array.isArray(m?.content) ? m.content : [])).filter((b: any) => b?.text === IMAGE_OMITTED_NOTE).length;

describe("capImages", () => {
  test("31 read results under a cap of 30 lose their 15 oldest images and keep img15 to img30", () => {
    const out = capImages(readResults(31), 30)!;
    expect(omitted(out)).toBe(15);
    expect(surviving(out)).toEqual(Array.from({ length: 16 }, (_, i) => `img${i + 15}`));
    expect(out[0]!.content[0]).toEqual({ type: "text", text: "read" });
    expect(out[0]!.content[1]).toEqual(NOTE);
  });

  test("a cap of 20 omits images in steps of 10", () => {
    const counts = [20, 21, 25, 30, 31, 40, 41];
    const omittedCounts = counts.map((count) => {
      const out = capImages(readResults(count), 20);
      return out ? omitted(out) : 0;
    });
    expect(omittedCounts).toEqual([0, 10, 10, 10, 20, 20, 30]);
  });

  test("images of a user message are replaced oldest first, in block order", () => {
    const message: any = { role: "user", content: [image("img1"), image("img2"), image("img3")], timestamp: 1 };
    expect(capImages([message], 2)![0]!.content).toEqual([NOTE, image("img2"), image("img3")]);
  });

  test("the input still holds every image after an over-cap call", () => {
    const input = readResults(31);
    const before = structuredClone(input);
    capImages(input, 30);
    expect(input).toEqual(before);
  });

  test("only the changed messages are copied; the others keep their identity", () => {
    const input = readResults(31);
    const out = capImages(input, 30)!;
    expect(out).not.toBe(input);
    expect(out[0]).not.toBe(input[0]);
    expect(out[14]).not.toBe(input[14]);
    expect(out[15]).toBe(input[15]);
    expect(out[30]).toBe(input[30]);
  });

  test("the replaced message keeps every other field", () => {
    const out = capImages(readResults(31), 30)!;
    const { content: _a, ...rest } = out[0] as any;
    const { content: _b, ...original } = readResult(0) as any;
    expect(rest).toEqual(original);
  });

  test("one image under a cap of 5 needs no change", () => {
    expect(capImages(readResults(1), 5)).toBeUndefined();
  });

  test("images are counted in any role", () => {
    const assistant = { role: "assistant", content: [image("a")] };
    const custom = { role: "custom", customType: "x", content: [image("c")] };
    const out = capImages([assistant, custom, readResult(3)], 2)!;
    expect(out[0]!.content).toEqual([NOTE]);
    expect(surviving(out)).toEqual(["c", "img3"]);
  });

  test("adding an image below the next step keeps the omitted set", () => {
    const before = capImages(readResults(120), 100)!;
    const after = capImages(readResults(121), 100)!;
    expect(omitted(before)).toBe(50);
    expect(omitted(after)).toBe(50);
    expect(after.slice(0, 120)).toEqual(before);
  });
});

describe("capImages on hostile input", () => {
  test("an image block without data or with an unknown mime type still counts as an image", () => {
    const odd = { role: "user", content: [{ type: "image" }, { type: "image", data: "x", mimeType: "image/x-unknown" }, image("ok")] };
    expect(capImages([odd], 1)![0]!.content).toEqual([NOTE, NOTE, image("ok")]);
  });

  test("string, missing and object contents, null blocks and null messages are skipped without a throw", () => {
    const messages: any[] = [
      null,
      "text",
      { role: "user", content: "plain text" },
      { role: "user" },
      { role: "user", content: { type: "image" } },
      { role: "user", content: [null, undefined, 7, "image", { type: "image" }] },
      { role: "user", content: [image("kept")] },
    ];
    const out = capImages(messages, 1)!;
    expect(out.slice(0, 5)).toEqual(messages.slice(0, 5));
    expect(out[5].content).toEqual([null, undefined, 7, "image", NOTE]);
    expect(out[6]).toBe(messages[6]);
  });

  test("a limit that is not a number changes nothing, and a non-array input is refused", () => {
    expect(capImages(readResults(3), Number.NaN)).toBeUndefined();
    expect(capImages("messages" as any, 1)).toBeUndefined();
  });
});

describe("imageLimitFor", () => {
  test("a configured number wins for every API", () => {
    expect(imageLimitFor(30, "anthropic-messages")).toBe(30);
    expect(imageLimitFor(30, "openai-completions")).toBe(30);
  });

  test("without a configured number, anthropic-messages gets 100 and other APIs no cap", () => {
    expect(imageLimitFor(null, "anthropic-messages")).toBe(100);
    expect(imageLimitFor(null, "openai-completions")).toBeNull();
    expect(imageLimitFor(null, undefined)).toBeNull();
  });

  test("an API named like an object property has no built-in limit", () => {
    expect(imageLimitFor(null, "constructor")).toBeNull();
    expect(imageLimitFor(null, "__proto__")).toBeNull();
  });
});
