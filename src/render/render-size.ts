/**
 * The render's size accounting: `beforeChars` and `afterChars` with the same
 * values as `sizeMessages(input)` and `sizeMessages(output)`, without building
 * JSON text.
 *
 * Input messages are measured once. The index-preserving phases (stub-replace,
 * supersede, error-purge) produce `positional`, whose new messages are found by
 * position (phase 1 stubs arrive already measured; any other new message at a
 * position, such as a superseded read or a purged call, is measured here). Chain compression and the orphan sweep only
 * drop messages, keep the order of the rest, and add the messages they list as
 * created, so the output is matched against `positional` in one forward pass.
 */
import { elementChars, elementCharsOfEach } from "./image-size.js";
import { jsonArrayLength } from "./json-size.js";
import type { StubbedMessages } from "./stub-replace.js";

export interface RenderSizes {
  beforeChars: number;
  afterChars: number;
}

export function measureRender(
  input: any[],
  stubbed: StubbedMessages,
  positional: any[],
  output: any[],
  created: ReadonlySet<unknown>,
): RenderSizes {
  const inputSizes = elementCharsOfEach(input);
  const sizes = positional === input ? inputSizes : positionalSizes(input, inputSizes, stubbed, positional);
  const afterElements = output === positional ? sum(sizes) : carriedSizes(positional, sizes, output, created);
  return {
    beforeChars: jsonArrayLength(sum(inputSizes), input.length),
    afterChars: jsonArrayLength(afterElements, output.length),
  };
}

function positionalSizes(input: any[], inputSizes: Float64Array, stubbed: StubbedMessages, positional: any[]): Float64Array {
  const { messages: stubs, stubSizes } = stubbed;
  const sizes = new Float64Array(positional.length);
  for (let i = 0; i < positional.length; i++) {
    if (positional[i] === input[i]) sizes[i] = inputSizes[i]!;
    else if (stubSizes !== null && positional[i] === stubs[i] && stubSizes[i]! >= 0) sizes[i] = stubSizes[i]!;
    else sizes[i] = elementChars(positional[i]);
  }
  return sizes;
}

function carriedSizes(base: any[], baseSizes: Float64Array, output: any[], created: ReadonlySet<unknown>): number {
  let total = 0;
  let j = 0;
  for (const msg of output) {
    if (base[j] === msg) {
      total += baseSizes[j++]!;
      continue;
    }
    if (created.has(msg)) {
      total += elementChars(msg);
      continue;
    }
    let k = j;
    while (k < base.length && base[k] !== msg) k++;
    // Not found means an unexpected new message: measure it and keep the cursor.
    if (k === base.length) total += elementChars(msg);
    else {
      total += baseSizes[k]!;
      j = k + 1;
    }
  }
  return total;
}

function sum(values: Float64Array): number {
  let total = 0;
  for (let i = 0; i < values.length; i++) total += values[i]!;
  return total;
}
