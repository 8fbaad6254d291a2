/**
 * The names a source text declares, by a language-agnostic heuristic over its
 * lines: a declaration keyword most languages share (`def`, `class`,
 * `function`, `fn`, `func`, `interface`, `type`, `struct`, `enum`, `trait`,
 * ...) before a name, C-like definitions (`int main(void) {`), and names bound
 * at the left margin (`NAME = ...`, `const x = ...` with no indentation).
 * Line-number prefixes that `cat -n`, `nl` and grep print are read past, so a
 * numbered listing declares what its file does. Pure.
 */

const MAX_LINE = 400;
// `   12\t`, `12:`, `12-` (grep context), `12 | ` (compiler excerpts).
const NUMBERED = /^\s*\d{1,7}(?:\t| ?[:|-] ?)/;
const MODIFIERS = /^(?:(?:export|default|pub(?:\([^)]{0,40}\))?|public|private|protected|internal|static|final|abstract|async|unsafe|extern|inline|override|virtual|sealed|declare|local|open|data|case)\s+)*/;
const KEYWORD =
  /^(?:def|class|function\*?|fn|func|interface|type|struct|enum|trait|impl|module|namespace|object|record|protocol|extension|macro|sub|proc|procedure|defn|defun|const|let|var|val)\s+(?:\([^)]{0,80}\)\s*)?\*?([A-Za-z_$][\w$]*)/;
// Bindings count only at the left margin: inside a body they are locals.
const BINDING_KEYWORDS = new Set(["const", "let", "var", "val"]);
const MARGIN_ASSIGN = /^([A-Za-z_$][\w$]*)\s*(?::[^=]{0,60})?=(?!=)/;
const C_DEFINITION = /^[A-Za-z_][\w:<>,*& \t[\]]{0,80}?[\s*&]([A-Za-z_]\w*)\s*\([^;]{0,200}\)\s*(?:const\s*)?\{?\s*$/;
const NOT_A_DEFINITION = /^(?:if|for|while|switch|return|else|do|catch|new|throw|raise|case|sizeof|await|yield|print|echo|assert|elif|except|with|not|and|or|in|is|del|import|from|go|defer|delete|typeof)\b/;

const FIRST_WORD = /^[A-Za-z_$][\w$]*/;
const MODIFIER_WORDS: ReadonlySet<string> = new Set(
  "export default pub public private protected internal static final abstract async unsafe extern inline override virtual sealed declare local open data case".split(" "),
);
const KEYWORD_WORDS: ReadonlySet<string> = new Set(
  "def class function fn func interface type struct enum trait impl module namespace object record protocol extension macro sub proc procedure defn defun const let var val".split(" "),
);

function startsWithDigit(line: string): boolean {
  let at = 0;
  while (line.charCodeAt(at) === 32) at++;
  const code = line.charCodeAt(at);
  return code >= 48 && code <= 57;
}

function declarationOf(rawLine: string): string | undefined {
  if (rawLine.length > MAX_LINE || rawLine.length < 4) return undefined;
  const line = startsWithDigit(rawLine) ? rawLine.replace(NUMBERED, "") : rawLine;
  const body = line.trimStart();
  const atMargin = body.length === line.length;
  const first = FIRST_WORD.exec(body)?.[0] ?? "";
  // Each form opens with a modifier or keyword, binds at the margin, or is a call-shaped line that ends a signature.
  if (MODIFIER_WORDS.has(first) || KEYWORD_WORDS.has(first)) {
    const rest = body.replace(MODIFIERS, "");
    const keyword = KEYWORD.exec(rest);
    if (keyword) {
      const word = rest.slice(0, rest.indexOf(" "));
      return BINDING_KEYWORDS.has(word) && !atMargin && rest === body ? undefined : keyword[1];
    }
  }
  if (atMargin && body.includes("=")) {
    const assign = MARGIN_ASSIGN.exec(body);
    if (assign) return assign[1];
  }
  if (!body.includes("(") || NOT_A_DEFINITION.test(body)) return undefined;
  return C_DEFINITION.exec(body.replace(MODIFIERS, ""))?.[1];
}

/** The declared names in order of first declaration, each once, at most `limit` of them. */
export function declaredNames(lines: readonly string[], limit: number): string[] {
  const names: string[] = [];
  const seen = new Set<string>();
  for (const line of lines) {
    const name = declarationOf(line);
    if (name === undefined || name.length < 2 || seen.has(name)) continue;
    seen.add(name);
    names.push(name);
    if (names.length >= limit) break;
  }
  return names;
}
