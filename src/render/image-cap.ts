/**
 * Per-request image cap: pi replays every image of the branch on every
 * request, and providers reject a request over their image limit (Anthropic
 * Messages: 100). The oldest images are swapped for a short note, in steps
 * of half the limit so the omitted set, and with it the cached prefix,
 * changes only once every step. Pure: the session keeps every image.
 */

export const IMAGE_OMITTED_NOTE =
  "[earlier image omitted from this request: over maxImagesPerRequest; re-read the file or re-attach it to view it]";

/** Keyed by wire API, not provider: the protocol endpoint enforces the limit whoever fronts it. */
const BUILT_IN_LIMITS = new Map<string, number>([["anthropic-messages", 100]]);

export function imageLimitFor(configured: number | null, api: string | undefined): number | null {
  if (typeof configured === "number") return configured;
  return (typeof api === "string" ? BUILT_IN_LIMITS.get(api) : undefined) ?? null;
}

function contentOf(message: unknown): unknown[] | undefined {
  if (typeof message !== "object" || message === null) return undefined;
  const content = (message as { content?: unknown }).content;
  return Array.isArray(content) ? content : undefined;
}

/** Any block typed `image` counts, whatever its data or mime type: the provider counts it too. */
function isImage(block: unknown): boolean {
  return typeof block === "object" && block !== null && (block as { type?: unknown }).type === "image";
}

function countImages(messages: readonly unknown[]): number {
  let total = 0;
  for (const message of messages) {
    const content = contentOf(message);
    if (content) for (const block of content) if (isImage(block)) total++;
  }
  return total;
}

/**
 * The messages with the oldest images replaced so at most `max` remain, or
 * undefined when there are not more than `max`. Only the messages and
 * content arrays that change are copied.
 */
export function capImages<M>(messages: M[], max: number): M[] | undefined {
  if (!Array.isArray(messages) || !(max >= 0)) return undefined;
  const total = countImages(messages);
  if (total <= max) return undefined;
  const step = Math.max(1, Math.ceil(max / 2));
  let left = Math.min(total, Math.ceil((total - max) / step) * step);
  const out = messages.slice();
  for (let i = 0; i < out.length && left > 0; i++) {
    const content = contentOf(out[i]);
    if (!content) continue;
    let copy: unknown[] | undefined;
    for (let k = 0; k < content.length && left > 0; k++) {
      if (!isImage(content[k])) continue;
      copy ??= content.slice();
      copy[k] = { type: "text", text: IMAGE_OMITTED_NOTE };
      left--;
    }
    if (copy) out[i] = { ...(out[i] as object), content: copy } as M;
  }
  return out;
}
