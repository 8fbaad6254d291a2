import { describe, expect, test } from "bun:test";
import {
  imageDigest,
  imageMarker,
  imageMarkerDigests,
  imageMarkerLines,
  imagesForMarkers,
  toolResultImagesByDigest,
} from "./image-markers.js";

const image = (data: string, mimeType = "image/png") => ({ type: "image" as const, data, mimeType });
const resultEntry = (content: unknown[], role = "toolResult") => ({ type: "message", message: { role, content } });

describe("imageDigest", () => {
  test("is the first 8 hex characters of SHA-256 over the base64 text", () => {
    expect(imageDigest("AAAA")).toBe("63c1dd95");
    expect(imageDigest("BBBB")).toBe("4a8d8134");
  });
});

describe("markers", () => {
  test("a marker names the mime type and the digest", () => {
    expect(imageMarker(image("AAAA"))).toBe("[image returned: image/png sha256:63c1dd95]");
  });

  test("a mime type that would end the marker early is neutralized", () => {
    const marker = imageMarker(image("AAAA", "image/png]\nx"));
    expect(marker).toBe("[image returned: image/png__x sha256:63c1dd95]");
    expect(imageMarkerDigests(marker)).toEqual(["63c1dd95"]);
  });

  test("a missing mime type still yields a readable marker", () => {
    expect(imageMarker({ type: "image", data: "AAAA" } as any)).toBe("[image returned: unknown sha256:63c1dd95]");
  });

  test("marker lines follow block order and skip images without base64 data", () => {
    const content = [image("AAAA"), { type: "text", text: "t" }, { type: "image", data: 42 }, image("BBBB", "image/jpeg")];
    expect(imageMarkerLines(content)).toEqual(["[image returned: image/png sha256:63c1dd95]", "[image returned: image/jpeg sha256:4a8d8134]"]);
    expect(imageMarkerLines("not an array")).toEqual([]);
  });

  test("digests come back in text order with repeats, and look-alikes are ignored", () => {
    const text = [
      "[image returned: image/png sha256:63c1dd95]",
      "[image returned: image/png sha256:63C1DD95]",
      "[image returned: image/png sha256:63c1dd9]",
      "prose [image returned: image/gif sha256:4a8d8134] inline",
      "[image returned: image/png sha256:63c1dd95]",
    ].join("\n");
    expect(imageMarkerDigests(text)).toEqual(["63c1dd95", "4a8d8134", "63c1dd95"]);
  });
});

describe("branch images", () => {
  test("only tool-result messages contribute images", () => {
    const branch = [
      resultEntry([image("AAAA")], "user"),
      { type: "custom", data: { content: [image("AAAA")] } },
      resultEntry([{ type: "text", text: "x" }, image("BBBB")]),
      null,
      resultEntry("plain" as any),
    ];
    expect([...toolResultImagesByDigest(branch).keys()]).toEqual(["4a8d8134"]);
    expect(toolResultImagesByDigest(undefined).size).toBe(0);
  });

  test("one fresh block per marker whose image is on the branch", () => {
    const original = image("AAAA");
    const images = toolResultImagesByDigest([resultEntry([original])]);
    const text = "[image returned: image/png sha256:63c1dd95]\n[image returned: image/png sha256:4a8d8134]\n[image returned: image/png sha256:63c1dd95]";
    const found = imagesForMarkers(text, images);
    expect(found).toEqual([original, original]);
    expect(found[0]).not.toBe(original);
    expect(found[0]).not.toBe(found[1]);
  });
});
