/**
 * One key per file, whatever the spelling: `./a.ts`, `a.ts`, `src/../src/a.ts` stay lexical (`..` kept, as
 * stale-outputs.ts keeps it), a relative path becomes the one absolute path of the session that ends with it
 * (the tools resolve it against the session's cwd, which the messages do not carry), and every path is read
 * in Unicode's composed form, so a name typed decomposed is the same file. Pure.
 */
import { normalizeFilePath } from "../capture/stale-outputs.js";

/** The lexical form: composed Unicode, no `.` segments, no doubled or trailing slashes. */
export function lexicalPath(raw: string): string {
  return normalizeFilePath(raw.normalize("NFC"));
}

/**
 * The key of each path seen in a session: a relative path that exactly one absolute path ends with takes that
 * path's key; any other keeps its lexical form.
 */
export function fileKeys(paths: Iterable<string>): (raw: string) => string {
  const lexical = new Set<string>();
  for (const raw of paths) lexical.add(lexicalPath(raw));
  // Each absolute path under every tail of its segments; a tail two paths share names neither.
  const byTail = new Map<string, string | null>();
  for (const path of lexical) {
    if (!path.startsWith("/")) continue;
    const segments = path.slice(1).split("/");
    for (let i = 1; i < segments.length; i++) {
      const tail = segments.slice(i).join("/");
      const known = byTail.get(tail);
      byTail.set(tail, known === undefined || known === path ? path : null);
    }
  }
  const alias = new Map<string, string>();
  for (const path of lexical) {
    if (path.startsWith("/") || path.startsWith("../")) continue;
    const match = byTail.get(path);
    if (match) alias.set(path, match);
  }
  return (raw) => {
    const path = lexicalPath(raw);
    return alias.get(path) ?? path;
  };
}
