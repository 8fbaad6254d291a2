#!/usr/bin/env node
/** `pi-condense-report <session.jsonl> [--json]`: `/pruner report` outside pi (src/cli/report-main.ts). */
import { reportMain } from "../src/cli/report-main.js";

const code = await reportMain(process.argv.slice(2), {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
  cwd: process.cwd(),
});
process.exitCode = code;
