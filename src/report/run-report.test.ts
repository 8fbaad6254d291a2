import { afterAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { costModelFor } from "../economics/cost-model.js";
import { DEFAULT_CONFIG } from "../settings/config-shape.js";
import { runReport, type RunReportResult } from "./run-report.js";
import { readSessionText, reportPathFor, shownPath } from "./session-file.js";

const FIXTURE = join(import.meta.dir, "../../test/fixtures/swe-agent/web--i_got_id_demo.jsonl");
const dir = mkdtempSync(join(tmpdir(), "pruner-report-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
function sessionWith(text: string): string {
  const path = join(dir, `s${++n}.jsonl`);
  writeFileSync(path, text);
  return path;
}

const fixtureLines = () => readFileSync(FIXTURE, "utf8").trimEnd().split("\n");

/** Runs the report and checks the session file was left byte for byte and untouched in time. */
async function reportOn(path: string): Promise<RunReportResult> {
  const before = readFileSync(path);
  const mtime = statSync(path).mtimeMs;
  const result = await runReport({
    path,
    config: { ...DEFAULT_CONFIG, enabled: true },
    overrides: [],
    costModelOf: () => ({ cost: costModelFor(undefined), contextWindow: undefined }),
  });
  expect(readFileSync(path).equals(before)).toBe(true);
  expect(statSync(path).mtimeMs).toBe(mtime);
  return result;
}

describe("runReport", () => {
  test("a good session gives the chart, the totals and the HTML page beside the session", async () => {
    const path = sessionWith(readFileSync(FIXTURE, "utf8"));
    const result = await reportOn(path);
    expect(result.text).toStartWith("pruner report: ");
    expect(result.text).toContain("context tokens per request");
    expect(result.text).toContain("peak context");
    expect(result.htmlPath).toBe(path.replace(/\.jsonl$/, ".report.html"));
    expect(readFileSync(result.htmlPath!, "utf8")).toContain('<table id="totals">');
  });

  test("a corrupt line is named, and the report of the rest is still produced", async () => {
    const lines = fixtureLines();
    lines.splice(10, 0, "{not json");
    const result = await reportOn(sessionWith(lines.join("\n")));
    expect(result.level).toBe("warning");
    expect(result.text).toContain("line 11: corrupt JSON, skipped");
    expect(result.text).toContain("dollars");
  });

  test("a truncated last line is named as such, and the report of the rest is still produced", async () => {
    const text = readFileSync(FIXTURE, "utf8").trimEnd();
    const result = await reportOn(sessionWith(text.slice(0, text.length - 40)));
    expect(result.text).toMatch(/line \d+: truncated or corrupt JSON \(the last line/);
    expect(result.report!.requests).toBeGreaterThan(0);
  });

  test("a session of another pi version is replayed with a note on line 1", async () => {
    const lines = fixtureLines();
    lines[0] = lines[0]!.replace('"version":3', '"version":7');
    const result = await reportOn(sessionWith(lines.join("\n")));
    expect(result.text).toContain("line 1: session version 7 is newer than this pi's 3");
    expect(result.report!.requests).toBeGreaterThan(0);
  });

  test("a file that is not a session says so and writes no HTML", async () => {
    const path = sessionWith('{"name":"pkg","dependencies":{}}\n');
    const result = await reportOn(path);
    expect(result.text).toContain("this file is not a pi session");
    expect(result.htmlPath).toBeUndefined();
    expect(existsSync(path.replace(/\.jsonl$/, ".report.html"))).toBe(false);
  });

  test("a missing file is a message naming the path once, not a throw", async () => {
    const result = await runReport({ path: join(dir, "none.jsonl"), config: DEFAULT_CONFIG, overrides: [], costModelOf: () => ({ cost: costModelFor(undefined), contextWindow: undefined }) });
    expect(result.text).toBe(`pruner report: there is no file at ${join(dir, "none.jsonl")}`);
  });

  test("a path under the home directory is printed as ~/...", async () => {
    const result = await runReport({ path: join(dir, "none.jsonl"), home: dir, config: DEFAULT_CONFIG, overrides: [], costModelOf: () => ({ cost: costModelFor(undefined), contextWindow: undefined }) });
    expect(result.text).toBe("pruner report: there is no file at ~/none.jsonl");
  });

  test("an empty file is not a session either, and says it is empty", async () => {
    const result = await reportOn(sessionWith(""));
    expect(result.text).toContain("this file is not a pi session (no session header and no message entries; it is empty)");
  });

  test("an HTML page that cannot be written is reported and the text report still shown", async () => {
    const path = sessionWith(readFileSync(FIXTURE, "utf8"));
    const result = await runReport({
      path,
      htmlPath: join(dir, "no-such-dir", "r.html"),
      config: DEFAULT_CONFIG,
      overrides: [],
      costModelOf: () => ({ cost: costModelFor(undefined), contextWindow: undefined }),
    });
    expect(result.text).toContain("peak context");
    expect(result.text).toContain("the HTML report could not be written");
  });
});

describe("readSessionText on a huge file", () => {
  test("reads up to the limit, drops the cut line and names where it stopped", () => {
    const path = join(dir, "huge.jsonl");
    copyFileSync(FIXTURE, path);
    const size = statSync(path).size;
    const read = readSessionText(path, Math.floor(size / 2));
    expect(read.text.length).toBeLessThan(size);
    expect(read.text.endsWith("\n")).toBe(true);
    expect(read.problems).toHaveLength(1);
    expect(read.problems[0]!.message).toMatch(/^line \d+: the file is \d+ KB; only its first \d+ KB \(lines 1-\d+\) were replayed$/);
  });

  test("a file under the limit is read whole with no problem", () => {
    const read = readSessionText(FIXTURE);
    expect(read.problems).toEqual([]);
    expect(read.text).toBe(readFileSync(FIXTURE, "utf8"));
  });
});

describe("where the HTML report goes and how its path is printed (issue 36, point 12)", () => {
  test("a session pi named gets a short report name beside it, printed under the home directory as ~/", async () => {
    const home = mkdtempSync(join(tmpdir(), "pruner-home-"));
    const sessions = join(home, ".pi", "agent", "sessions", "--home-alice-src-my-project--");
    mkdirSync(sessions, { recursive: true });
    const path = join(sessions, "2026-12-06T16-56-15-594Z_01a24c48-e5ea-705b-b769-dff8770a3ff9.jsonl");
    copyFileSync(FIXTURE, path);
    try {
      const result = await runReport({ path, config: { ...DEFAULT_CONFIG, enabled: true }, overrides: [], costModelOf: () => ({ cost: costModelFor(undefined), contextWindow: undefined }), home });
      expect(result.htmlPath).toBe(join(sessions, "report-dff8770a3ff9.html"));
      const shown = result.text.split("\n").at(-1)!;
      expect(shown).toBe("~/.pi/agent/sessions/--home-alice-src-my-project--/report-dff8770a3ff9.html");
      // The report's chat entry indents it by one column: it fits an 80-column row whole.
      expect(shown.length).toBeLessThanOrEqual(78);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  test("a file of another name keeps <name>.report.html", () => {
    expect(reportPathFor("/tmp/notes/my-run.jsonl")).toBe("/tmp/notes/my-run.report.html");
  });

  test("a path outside the home directory is printed as it is", () => {
    expect(shownPath("/tmp/x/report-1.html", "/home/alice")).toBe("/tmp/x/report-1.html");
    expect(shownPath("/home/alicex/report-1.html", "/home/alice")).toBe("/home/alicex/report-1.html");
    expect(shownPath("/home/alice/s/report-1.html", "/home/alice")).toBe("~/s/report-1.html");
  });
});
