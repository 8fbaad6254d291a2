/**
 * How long a summary would be, without calling a summarizer: a share of the
 * raw tool output it replaces. The share is calibrated against the real
 * summaries a session holds (`context-prune-summary` entries against the
 * outputs their refs name), capped at 1, and its error is measured
 * leave-one-out: each summary predicted from the ratio of all the others. Pure.
 */
import { entryMessage, isToolResult } from "../capture/message-shape.js";
import type { SessionEntry } from "@earendil-works/pi-coding-agent";
import { extractToolResultText } from "../capture/batch-capture.js";
import { occKey, resultTimestampOf } from "../capture/occurrence-key.js";
import { parseSummaryEntry } from "../capture/persisted-entries.js";
import { refOccurrenceKeys } from "../archive/summary-refs.js";
import { CUSTOM_TYPE_SUMMARY } from "../names.js";

/** Used when the session holds no summary to calibrate against (a summary of about a tenth of its input). */
export const DEFAULT_SUMMARY_RATIO = 0.1;
/** A flush rejects a summary longer than what it replaces (oversized-summary skip): the ratio never passes 1. */
const MAX_RATIO = 1;

export interface SummaryEstimate {
  /** Summary chars per raw output char. */
  ratio: number;
  /** Real summaries measured (0: the default ratio is used). */
  samples: number;
  /** Mean absolute error of the leave-one-out prediction, as a share of the real length; undefined under 2 samples. */
  meanAbsError: number | undefined;
  /** Real and estimated summary chars summed over the samples (estimate at the overall ratio). */
  realChars: number;
  rawChars: number;
}

interface Sample {
  summaryChars: number;
  rawChars: number;
}

function resultSizes(branch: SessionEntry[]): Map<string, number> {
  const sizes = new Map<string, number>();
  for (const entry of branch) {
    const message = entryMessage(entry);
    if (!isToolResult(message) || typeof message.toolCallId !== "string") continue;
    sizes.set(occKey(message.toolCallId, resultTimestampOf(message.timestamp)), extractToolResultText(message).length);
  }
  return sizes;
}

function samplesOf(branch: SessionEntry[]): Sample[] {
  const sizes = resultSizes(branch);
  const samples: Sample[] = [];
  for (const entry of branch) {
    if (entry.type !== "custom_message" || (entry as { customType?: unknown }).customType !== CUSTOM_TYPE_SUMMARY) continue;
    const parsed = parseSummaryEntry(entry as { content?: unknown; details?: unknown });
    if (!parsed.ok || parsed.value.text === "") continue;
    let rawChars = 0;
    for (const key of refOccurrenceKeys(parsed.value.refs)) rawChars += sizes.get(key) ?? 0;
    if (rawChars > 0) samples.push({ summaryChars: parsed.value.text.length, rawChars });
  }
  return samples;
}

export function calibrateSummaryEstimate(branch: SessionEntry[]): SummaryEstimate {
  const samples = samplesOf(branch);
  let realChars = 0;
  let rawChars = 0;
  for (const sample of samples) {
    realChars += sample.summaryChars;
    rawChars += sample.rawChars;
  }
  if (samples.length === 0) return { ratio: DEFAULT_SUMMARY_RATIO, samples: 0, meanAbsError: undefined, realChars: 0, rawChars: 0 };
  let meanAbsError: number | undefined;
  if (samples.length >= 2) {
    let errors = 0;
    for (const sample of samples) {
      const ratio = (realChars - sample.summaryChars) / Math.max(1, rawChars - sample.rawChars);
      errors += Math.abs(ratio * sample.rawChars - sample.summaryChars) / sample.summaryChars;
    }
    meanAbsError = errors / samples.length;
  }
  return { ratio: Math.min(MAX_RATIO, realChars / rawChars), samples: samples.length, meanAbsError, realChars, rawChars };
}

export function estimateSummaryChars(estimate: Pick<SummaryEstimate, "ratio">, rawChars: number): number {
  return Math.max(1, Math.round(Math.min(MAX_RATIO, estimate.ratio) * rawChars));
}
