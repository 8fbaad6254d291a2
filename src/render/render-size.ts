/**
 * The render's size accounting: `beforeChars` and `afterChars` with the same
 * values as `sizeMessages(input)` and `sizeMessages(output)`, and the same two
 * in the request view, in one walk and without building JSON text.
 *
 * Input messages are measured once. The index-preserving phases (stub-replace,
 * supersede, error-purge) produce `positional`, whose new messages are found by
 * position (phase 1 stubs arrive already measured; any other new message at a
 * position, such as a superseded read or a purged call, is measured here). Chain compression and the orphan sweep only
 * drop messages, keep the order of the rest, and add the messages they list as
 * created, so the output is matched against `positional` in one forward pass.
 */
import { elementSizes, elementSizesOfEach } from "./message-size.js";
import { jsonArrayLength, type SplitLengths } from "./json-size.js";
import { stubRequestSize, type StubbedMessages } from "./stub-replace.js";

export interface LiveReclaim {
  beforeChars: number;
  afterChars: number;
  /**
   * Tokens a request carries beyond its messages at characters ÷ 4: the system prompt and tool declarations,
   * and the tokenizer's own difference once a response to a rewritten request reported its real size.
   */
  overheadTokens?: number;
}

export interface RenderSizes {
  beforeChars: number;
  afterChars: number;
  /** The same two sizes in the request view (what the provider receives; see message-size.ts). */
  requestBeforeChars: number;
  requestAfterChars: number;
}

export function measureRender(
  input: readonly unknown[],
  stubbed: StubbedMessages,
  positional: readonly unknown[],
  output: readonly unknown[],
  created: ReadonlySet<unknown>,
): RenderSizes {
  const inputSizes = elementSizesOfEach(input);
  const sizes = positional === input ? inputSizes : positionalSizes(input, inputSizes, stubbed, positional);
  const after = output === positional ? { full: sum(sizes.full), counted: sum(sizes.counted) } : carriedSizes(positional, sizes, output, created);
  return {
    beforeChars: jsonArrayLength(sum(inputSizes.full), input.length),
    afterChars: jsonArrayLength(after.full, output.length),
    requestBeforeChars: jsonArrayLength(sum(inputSizes.counted), input.length),
    requestAfterChars: jsonArrayLength(after.counted, output.length),
  };
}

function positionalSizes(input: readonly unknown[], inputSizes: SplitLengths, stubbed: StubbedMessages, positional: readonly unknown[]): SplitLengths {
  const { messages: stubs, stubSizes } = stubbed;
  const full = new Float64Array(positional.length);
  const counted = new Float64Array(positional.length);
  for (let i = 0; i < positional.length; i++) {
    const msg = positional[i];
    if (msg === input[i]) {
      full[i] = inputSizes.full[i]!;
      counted[i] = inputSizes.counted[i]!;
    } else if (stubSizes !== null && msg === stubs[i] && stubSizes[i]! >= 0) {
      full[i] = stubSizes[i]!;
      counted[i] = stubRequestSize(stubSizes[i]!, msg as { timestamp?: unknown });
    } else {
      const size = elementSizes(msg);
      full[i] = size.full;
      counted[i] = size.counted;
    }
  }
  return { full, counted };
}

function carriedSizes(base: readonly unknown[], baseSizes: SplitLengths, output: readonly unknown[], created: ReadonlySet<unknown>): { full: number; counted: number } {
  let full = 0;
  let counted = 0;
  const measure = (msg: unknown) => {
    const size = elementSizes(msg);
    full += size.full;
    counted += size.counted;
  };
  let j = 0;
  for (const msg of output) {
    let k = j;
    if (base[j] !== msg) {
      if (created.has(msg)) {
        measure(msg);
        continue;
      }
      while (k < base.length && base[k] !== msg) k++;
      // Not found means an unexpected new message: measure it and keep the cursor.
      if (k === base.length) {
        measure(msg);
        continue;
      }
    }
    full += baseSizes.full[k]!;
    counted += baseSizes.counted[k]!;
    j = k + 1;
  }
  return { full, counted };
}

function sum(values: Float64Array): number {
  let total = 0;
  for (let i = 0; i < values.length; i++) total += values[i]!;
  return total;
}
