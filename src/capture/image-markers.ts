/**
 * Image blocks in captured text. A tool result's images cannot be summarized
 * or stored as text, so capture writes one marker line per image naming its
 * digest; recovery finds the original block on the session branch by that
 * digest. Pure: no I/O.
 */
import { createHash } from "node:crypto";
import { entryMessage, isToolResult } from "./message-shape.js";

export interface ImageBlock {
  type: "image";
  data: string;
  mimeType: string;
}

const MARKER_DIGEST = /\[image returned: [^\]\n]* sha256:([0-9a-f]{8})\]/g;
// A mime type holding `]` or a line break would end the marker early and hide its digest.
const MARKER_BREAKING = /[\]\r\n]/g;

/** First 8 hex characters of SHA-256 over the base64 `data` string. */
export function imageDigest(data: string): string {
  return createHash("sha256").update(data, "utf8").digest("hex").slice(0, 8);
}

export function isImageBlock(block: unknown): block is ImageBlock {
  const b = block as { type?: unknown; data?: unknown } | null;
  return b?.type === "image" && typeof b.data === "string";
}

/** `[image returned: <mimeType> sha256:<8hex>]` */
export function imageMarker(block: ImageBlock): string {
  const mimeType = typeof block.mimeType === "string" ? block.mimeType.replace(MARKER_BREAKING, "_") : "unknown";
  return `[image returned: ${mimeType} sha256:${imageDigest(block.data)}]`;
}

/** One marker per image block of a message content array, in block order. */
export function imageMarkerLines(content: unknown): string[] {
  if (!Array.isArray(content)) return [];
  const markers: string[] = [];
  for (const block of content) if (isImageBlock(block)) markers.push(imageMarker(block));
  return markers;
}

const MARKER_LINE = /^\[image returned: [^\]\n]* sha256:[0-9a-f]{8}\]$/;

/** `text` without the marker lines it starts with: what a captured output says besides its images. */
export function withoutLeadingMarkers(text: string): string {
  const lines = text.split("\n");
  let first = 0;
  while (first < lines.length && MARKER_LINE.test(lines[first]!)) first++;
  return first === 0 ? text : lines.slice(first).join("\n");
}

/** The digests of every marker in `text`, in text order (repeats kept). */
export function imageMarkerDigests(text: string): string[] {
  if (typeof text !== "string") return [];
  return Array.from(text.matchAll(MARKER_DIGEST), (match) => match[1]!);
}

/** The image blocks of a content array, copied (the copies share nothing with the message). */
export function imageBlocksOf(content: unknown): ImageBlock[] {
  if (!Array.isArray(content)) return [];
  return content.filter(isImageBlock).map(copyImage);
}

/** Digest → image block for every image of every tool result on a session branch (the first one wins). */
export function toolResultImagesByDigest(branch: unknown): Map<string, ImageBlock> {
  const images = new Map<string, ImageBlock>();
  if (!Array.isArray(branch)) return images;
  for (const entry of branch) {
    const message = entryMessage(entry);
    if (!isToolResult(message) || !Array.isArray(message.content)) continue;
    for (const block of message.content) {
      if (!isImageBlock(block)) continue;
      const digest = imageDigest(block.data);
      if (!images.has(digest)) images.set(digest, block);
    }
  }
  return images;
}

/** One fresh image block per marker in `text` whose image is in `images`, in marker order. */
export function imagesForMarkers(text: string, images: ReadonlyMap<string, ImageBlock>): ImageBlock[] {
  const found: ImageBlock[] = [];
  for (const digest of imageMarkerDigests(text)) {
    const block = images.get(digest);
    if (block) found.push(copyImage(block));
  }
  return found;
}

function copyImage(block: ImageBlock): ImageBlock {
  return { type: "image", data: block.data, mimeType: block.mimeType };
}
