/**
 * One key per file, whatever the spelling: `./a.ts`, `a.ts`, `src/../src/a.ts` stay lexical (`..` kept, as
 * stale-outputs.ts keeps it), and a relative path and an absolute one that ends with it are one file when no
 * other spelling seen before could be meant (the tools resolve a relative path against the session's cwd,
 * which the messages do not carry). Every path is read in Unicode's composed form, so a name typed decomposed
 * is the same file. Paths are keyed in the order they come and a spelling never changes its key, so what an
 * earlier request decided stays decided. Pure.
 */
import { normalizeFilePath } from "../capture/stale-outputs.js";

/** The lexical form: composed Unicode, no `.` segments, no doubled or trailing slashes. */
export function lexicalPath(raw: string): string {
  return normalizeFilePath(raw.normalize("NFC"));
}

/** Tails of a path by whole segments, longest first: `/a/b/c.ts` gives `a/b/c.ts`, `b/c.ts`, `c.ts`. */
function tails(path: string): string[] {
  const segments = path.replace(/^\/+/, "").split("/");
  const out: string[] = [];
  for (let i = path.startsWith("/") ? 0 : 1; i < segments.length; i++) out.push(segments.slice(i).join("/"));
  return out;
}

export class FileKeys {
  private readonly keys = new Map<string, string>();
  /** The key an absolute path's tail stands for, or null when two files share the tail. */
  private readonly byTail = new Map<string, string | null>();
  /** The key of each relative spelling keyed on its own, by itself. */
  private readonly relative = new Map<string, string>();

  /** The file's key; the first spelling of a file is its key. */
  keyOf(raw: string): string {
    const path = lexicalPath(raw);
    const known = this.keys.get(path);
    if (known !== undefined) return known;
    const key = path.startsWith("/") ? this.absoluteKey(path) : this.relativeKey(path);
    this.keys.set(path, key);
    return key;
  }

  private absoluteKey(path: string): string {
    let key = path;
    for (const tail of tails(path)) {
      const rel = this.relative.get(tail);
      if (rel !== undefined) {
        key = rel;
        break;
      }
    }
    for (const tail of tails(path)) {
      const seen = this.byTail.get(tail);
      this.byTail.set(tail, seen === undefined || seen === key ? key : null);
    }
    return key;
  }

  private relativeKey(path: string): string {
    if (path.startsWith("../")) return path;
    const match = this.byTail.get(path);
    if (match) return match;
    this.relative.set(path, path);
    return path;
  }
}
