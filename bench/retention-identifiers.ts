/**
 * The identifiers an agent learned from one tool output and used in a later command (issue 26 item 5),
 * for the retention benchmark. An identifier is one of:
 * - a path: a token with a `/` between two names (`src/a.ts`, `/repo/src/a.ts`), or a dotted file name
 *   right before `:<line>` (`a.py:12`);
 * - a called symbol: a name of two or more characters right before `(` (`collect(`, `self.collect(`);
 * - an exception name: a capitalized name ending in `Error` or `Exception`;
 * - a line number: the N of `line N` and of `file:N`.
 * It counts for an output when its text appears in that output, not in the task nor in any command up to
 * and including the output's own, and in some later command. Texts are matched as whole tokens: a name
 * or number not inside a longer one, a path not inside a longer name (`models/a.py` is found inside
 * `/repo/models/a.py`: the same file named from another folder). A path also stands for its shorter
 * tails (`repo/models/a.py`, `models/a.py`, `a.py`), and the longest tail used later is the one counted.
 * Identifiers and whole-token matching are `src/digest/identifiers.ts`'s. Pure; nothing here knows the corpus.
 */
import { containsToken, firstTokenAt, type Identifier, identifierCandidates, type IdentifierKind, lastTokenAt } from "../src/forgetting/identifiers.js";

export type { Identifier, IdentifierKind } from "../src/forgetting/identifiers.js";

/** One agent run: what the agent was told, then each command with its output. */
export interface Trajectory {
  task: string;
  steps: Array<{ command: string; output: string }>;
}

/** The commands of a trajectory in one string, with where each starts, so one search answers "which command first/last". */
class CommandIndex {
  readonly all: string;
  private readonly starts: number[] = [];

  constructor(commands: string[]) {
    let at = 0;
    for (const command of commands) {
      this.starts.push(at);
      at += command.length + 1;
    }
    this.all = commands.join("\n");
  }

  /** The index of the command holding position `at`. */
  commandAt(at: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= at) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}

/** For each step, the identifiers its output taught the agent and a later command used. */
export function learnedIdentifiers(trajectory: Trajectory): Identifier[][] {
  const commands = new CommandIndex(trajectory.steps.map((step) => step.command));
  return trajectory.steps.map((step, i) => {
    const learned: Identifier[] = [];
    const seen = new Set<string>();
    for (const { kind, texts } of identifierCandidates(step.output)) {
      const used = texts.find((text) => {
        const last = lastTokenAt(commands.all, text, kind);
        return last >= 0 && commands.commandAt(last) > i;
      });
      if (used === undefined || seen.has(`${kind}\u0000${used}`)) continue;
      const first = firstTokenAt(commands.all, used, kind);
      if (commands.commandAt(first) <= i || containsToken(trajectory.task, used, kind)) continue;
      seen.add(`${kind}\u0000${used}`);
      learned.push({ kind, text: used });
    }
    return learned;
  });
}

/** How many of the identifiers a stub keeps: each one whose text the stub holds as a token. */
export function keptBy(stub: string, identifiers: Identifier[]): number {
  return identifiers.filter((id) => containsToken(stub, id.text, id.kind)).length;
}
