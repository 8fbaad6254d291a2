// Request-level measures over a recorded request log: input chars per request and in total, and
// cache-prefix breaks (a main request whose message list does not extend the previous main one).
import { stripCacheControl } from "./cache-sim.js";
import type { RecordedRequest } from "./fake-llm.js";

export interface RequestMeasure {
  seq: number;
  kind: RecordedRequest["kind"];
  inputChars: number;
  messages: number;
  prefixBreak: boolean;
}

export interface RequestMetrics {
  requests: RequestMeasure[];
  mainRequests: number;
  summarizerRequests: number;
  mainInputChars: number;
  summarizerInputChars: number;
  prefixBreaks: number;
}

export function promptItems(req: RecordedRequest): string[] {
  const items: string[] = [];
  if (req.body?.system !== undefined) items.push(JSON.stringify(stripCacheControl(req.body.system)));
  for (const m of req.body?.messages ?? []) items.push(JSON.stringify(stripCacheControl(m)));
  return items;
}

export function inputChars(req: RecordedRequest): number {
  return promptItems(req).reduce((sum, s) => sum + s.length, 0);
}

function extendsPrefix(previous: string[], current: string[]): boolean {
  if (current.length < previous.length) return false;
  return previous.every((item, i) => item === current[i]);
}

export function measureRequests(requests: RecordedRequest[]): RequestMetrics {
  let previousMain: string[] | undefined;
  const measures = requests.map((req): RequestMeasure => {
    const items = promptItems(req);
    let prefixBreak = false;
    if (req.kind === "main") {
      prefixBreak = previousMain !== undefined && !extendsPrefix(previousMain, items);
      previousMain = items;
    }
    return { seq: req.seq, kind: req.kind, inputChars: items.reduce((s, x) => s + x.length, 0), messages: items.length, prefixBreak };
  });
  const sum = (kind: RecordedRequest["kind"]) => measures.filter((m) => m.kind === kind).reduce((s, m) => s + m.inputChars, 0);
  return {
    requests: measures,
    mainRequests: measures.filter((m) => m.kind === "main").length,
    summarizerRequests: measures.filter((m) => m.kind === "summarizer").length,
    mainInputChars: sum("main"),
    summarizerInputChars: sum("summarizer"),
    prefixBreaks: measures.filter((m) => m.prefixBreak).length,
  };
}

export function formatMetrics(label: string, m: RequestMetrics): string {
  const perRequest = m.requests.map((r) => `${r.seq}${r.kind === "main" ? "" : "s"}:${r.inputChars}${r.prefixBreak ? "!" : ""}`).join(" ");
  return (
    `[e2e metrics] ${label}: main ${m.mainRequests} req / ${m.mainInputChars} input chars, ` +
    `summarizer ${m.summarizerRequests} req / ${m.summarizerInputChars} chars, cache-prefix breaks ${m.prefixBreaks}\n` +
    `  per request (seq:chars, s = summarizer, ! = prefix break): ${perRequest}`
  );
}
