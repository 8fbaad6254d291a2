/**
 * Message sizes, in two views.
 *
 * - The JSON view (`charsOf`, `elementChars`): the message object as JSON, the
 *   2.9.1 figure the render contract reports. Text-only messages measure
 *   exactly as their JSON.
 * - The request view (`requestChars`): only what the provider receives (role,
 *   content with tool-call arguments, the result's id, name and status), not
 *   `details`, timestamps, usage or other fields pi keeps for itself. A
 *   recovered output's `details` alone was 31.7k characters the provider never
 *   saw, and the footer counted it. This is the figure users are shown.
 *
 * Both price an image the way providers bill it, not by its base64 length: a
 * 137k-char screenshot costs about 1.6k tokens.
 */
import { jsonLength, jsonSplitElementLengths, jsonSplitLength, type SplitLengths } from "./json-size.js";

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

/** Top-level message fields that reach the provider (across pi's roles); everything else stays in pi. */
const REQUEST_FIELDS = new Set(["role", "content", "toolCallId", "toolName", "isError", "command", "output", "summary"]);

/** A message's size as the provider receives it: request fields only, images at 6,400 chars each. */
export function requestChars(msg: unknown): number {
  const images = imageCount(msg);
  const value = images === 0 ? msg : withoutImageData(msg);
  return jsonSplitLength(value, REQUEST_FIELDS).counted + IMAGE_CHARS * images;
}

/** Both views of one message as an array element: `full` is `elementChars`, `counted` is `requestChars`. */
export function elementSizes(msg: unknown): { full: number; counted: number } {
  const images = imageCount(msg);
  const value = images === 0 ? msg : withoutImageData(msg);
  const split = jsonSplitLength(value, REQUEST_FIELDS);
  return { full: split.full + IMAGE_CHARS * images, counted: split.counted + IMAGE_CHARS * images };
}

/** `elementSizes` of each message in one walk, with json-size's positional memo for long strings. */
export function elementSizesOfEach(messages: readonly unknown[]): SplitLengths {
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
  const sizes = jsonSplitElementLengths(values, REQUEST_FIELDS);
  if (images !== null) {
    for (let i = 0; i < images.length; i++) {
      sizes.full[i]! += IMAGE_CHARS * images[i]!;
      sizes.counted[i]! += IMAGE_CHARS * images[i]!;
    }
  }
  return sizes;
}
