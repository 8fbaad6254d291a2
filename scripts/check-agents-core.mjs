#!/usr/bin/env node
// Keeps the shared "agents core" region of AGENTS.md identical to AGENTS.core.md.
//
//   node scripts/check-agents-core.mjs         exit 0 when in sync, 1 on drift or missing markers
//   node scripts/check-agents-core.mjs --fix   rewrite the AGENTS.md region from AGENTS.core.md
//
// The comparison ignores CRLF vs LF and leading/trailing blank space around the region.
// Zero dependencies: only node:fs, node:path and node:url.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const AGENTS = join(ROOT, "AGENTS.md");
const CORE = join(ROOT, "AGENTS.core.md");
const BEGIN = /<!-- agents-core:begin v2(?:\s[^>]*)?-->/;
const END = /<!-- agents-core:end v2(?:\s[^>]*)?-->/;

function normalize(text) {
  return text.replace(/\r\n/g, "\n").trim();
}

function fail(message) {
  console.error(`check-agents-core: ${message}`);
  process.exit(1);
}

function read(path) {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    return fail(`cannot read ${path}: ${err.message}`);
  }
}

function locateRegion(text) {
  const begin = BEGIN.exec(text);
  const end = END.exec(text);
  if (!begin || !end || end.index < begin.index + begin[0].length) return null;
  return { start: begin.index + begin[0].length, end: end.index };
}

function firstDifference(a, b) {
  const left = a.split("\n");
  const right = b.split("\n");
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    if (left[i] !== right[i]) {
      return `line ${i + 1} of the region:\n  AGENTS.md:      ${JSON.stringify(left[i] ?? "<missing>")}\n  AGENTS.core.md: ${JSON.stringify(right[i] ?? "<missing>")}`;
    }
  }
  return "whitespace only";
}

const fix = process.argv.includes("--fix");
const agents = read(AGENTS);
const core = read(CORE);
const region = locateRegion(agents);
if (!region) {
  fail("AGENTS.md has no well-formed <!-- agents-core:begin v2 --> ... <!-- agents-core:end v2 --> region");
}

const current = normalize(agents.slice(region.start, region.end));
const wanted = normalize(core);
if (current === wanted) {
  console.log("check-agents-core: AGENTS.md core region matches AGENTS.core.md");
  process.exit(0);
}

if (!fix) {
  fail(
    `AGENTS.md core region drifted from AGENTS.core.md (${firstDifference(current, wanted)})\n` +
      "Edit AGENTS.core.md and run: node scripts/check-agents-core.mjs --fix",
  );
}

const eol = agents.includes("\r\n") ? "\r\n" : "\n";
const body = wanted.split("\n").join(eol);
writeFileSync(AGENTS, `${agents.slice(0, region.start)}${eol}${body}${eol}${agents.slice(region.end)}`);
console.log("check-agents-core: rewrote the AGENTS.md core region from AGENTS.core.md");
