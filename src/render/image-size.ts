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

interface SizedView {
  value: unknown;
  images: number;
}

/** The message with each top-level content image reduced to `{ type: "image" }`, and how many there were. */
function withoutImageData(msg: unknown): SizedView {
  const content = (msg as { content?: unknown } | null | undefined)?.content;
  if (!Array.isArray(content)) return { value: msg, images: 0 };
  let images = 0;
  for (const block of content) if (isImage(block)) images++;
  if (images === 0) return { value: msg, images: 0 };
  const slim = content.map((block) => (isImage(block) ? IMAGE_STANDIN : block));
  return { value: { ...(msg as object), content: slim }, images };
}

function isImage(block: unknown): boolean {
  return (block as { type?: unknown } | null)?.type === "image";
}

/** A message's size in chars: its JSON with image data left out, plus 6,400 per image. */
export function charsOf(msg: unknown): number {
  const { value, images } = withoutImageData(msg);
  return (jsonLength(value) ?? 0) + IMAGE_CHARS * images;
}

/** `charsOf` as an array element: what JSON.stringify cannot serialize is written `null`. */
export function elementChars(msg: unknown): number {
  const { value, images } = withoutImageData(msg);
  return (jsonLength(value) ?? 4) + IMAGE_CHARS * images;
}

/** `elementChars` of each message, with json-size's positional memo for long strings. */
export function elementCharsOfEach(messages: readonly unknown[]): Float64Array {
  // Indexed loops, not map: a sparse array's holes are elements too (written `null`).
  const values = new Array<unknown>(messages.length);
  const images = new Float64Array(messages.length);
  for (let i = 0; i < messages.length; i++) {
    const view = withoutImageData(messages[i]);
    values[i] = view.value;
    images[i] = view.images;
  }
  const sizes = jsonElementLengths(values);
  for (let i = 0; i < sizes.length; i++) sizes[i]! += IMAGE_CHARS * images[i]!;
  return sizes;
}
