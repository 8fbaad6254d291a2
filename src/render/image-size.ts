/**
 * Message sizes that price an image the way providers bill it, not by its
 * base64 length: a 137k-char screenshot costs about 1.6k tokens, and counting
 * it as text made the footer, the reclaim figure and the flush triggers see
 * pressure that is not there. Text-only messages measure exactly as their JSON.
 */
import { jsonElementLengths, jsonLength } from "./json-size.js";

export const IMAGE_TOKEN_ESTIMATE = 1600;
/** The chars/4 estimate everywhere else turns 6,400 proxy chars back into 1,600 tokens. */
const IMAGE_CHARS = IMAGE_TOKEN_ESTIMATE * 4;
const IMAGE_STANDIN = Object.freeze({ type: "image" });

/** How many top-level content blocks of the message are images. */
function imageCount(msg: unknown): number {
  const content = (msg as { content?: unknown } | null | undefined)?.content;
  if (!Array.isArray(content)) return 0;
  let images = 0;
  for (const block of content) if (isImage(block)) images++;
  return images;
}

/** The message with each top-level content image reduced to `{ type: "image" }` (call only when it has one). */
function withoutImageData(msg: any): unknown {
  const content: unknown[] = msg.content;
  return { ...msg, content: content.map((block) => (isImage(block) ? IMAGE_STANDIN : block)) };
}

function isImage(block: unknown): boolean {
  return (block as { type?: unknown } | null)?.type === "image";
}

/** A message's size in chars: its JSON with image data left out, plus 6,400 per image. */
export function charsOf(msg: unknown): number {
  const images = imageCount(msg);
  const value = images === 0 ? msg : withoutImageData(msg);
  return (jsonLength(value) ?? 0) + IMAGE_CHARS * images;
}

/** `charsOf` as an array element: what JSON.stringify cannot serialize is written `null`. */
export function elementChars(msg: unknown): number {
  const images = imageCount(msg);
  const value = images === 0 ? msg : withoutImageData(msg);
  return (jsonLength(value) ?? 4) + IMAGE_CHARS * images;
}

/** `elementChars` of each message, with json-size's positional memo for long strings. */
export function elementCharsOfEach(messages: readonly unknown[]): Float64Array {
  // Copied only when a message holds an image; slice keeps a sparse array's holes (each written `null`).
  let values = messages;
  let images: Float64Array | null = null;
  for (let i = 0; i < messages.length; i++) {
    const count = imageCount(messages[i]);
    if (count === 0) continue;
    if (images === null) {
      images = new Float64Array(messages.length);
      values = messages.slice();
    }
    images[i] = count;
    (values as unknown[])[i] = withoutImageData(messages[i]);
  }
  const sizes = jsonElementLengths(values);
  if (images !== null) for (let i = 0; i < sizes.length; i++) sizes[i]! += IMAGE_CHARS * images[i]!;
  return sizes;
}
