/**
 * Content hash used by cross-flush dedup: SHA-1 over the tool name, a NUL and
 * the lightly normalized result text (line endings and trailing blanks only).
 */
import { createHash } from "node:crypto";

// Only texts containing a CR or a blank before a newline need the full pass.
const NEEDS_LINE_PASS = /\r|[ \t]\n/;
const TRAILING_BLANKS = /[ \t]+(?=\n|$)/g;

function normalize(text: string): string {
  if (!NEEDS_LINE_PASS.test(text)) return text.trim();
  return text.replace(/\r\n/g, "\n").replace(TRAILING_BLANKS, "").trim();
}

export function hashToolResult(toolName: string, resultText: string): string {
  return createHash("sha1").update(`${toolName}\0${normalize(resultText)}`, "utf8").digest("hex");
}
