// The converted SWE-agent fixtures are exactly what scripts/convert-swe-agent.ts makes of the shared corpus
// (`../shared/corpus/swe-agent/` beside the checkout), with its license; skipped, saying so, without the corpus.
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { convertTrajectory } from "../../scripts/convert-swe-agent.js";

const REPO = join(import.meta.dir, "../..");
const CORPUS = join(REPO, "../shared/corpus/swe-agent");
const FIXTURES = join(REPO, "test/fixtures/swe-agent");
const present = existsSync(CORPUS);
if (!present) console.warn(`swe-agent fixtures: skipping the corpus comparison: ${CORPUS} is not there`);

describe.skipIf(!present)("the SWE-agent fixtures", () => {
  const trajectories = present ? readdirSync(CORPUS).filter((f) => f.endsWith(".traj")).sort() : [];

  test("one fixture per trajectory of the corpus", () => {
    const fixtures = readdirSync(FIXTURES).filter((f) => f.endsWith(".jsonl")).sort();
    expect(fixtures).toEqual(trajectories.map((f) => `${basename(f, ".traj")}.jsonl`));
  });

  for (const file of trajectories) {
    test(`${file} converts to its fixture byte for byte`, () => {
      const name = basename(file, ".traj");
      expect(convertTrajectory(readFileSync(join(CORPUS, file), "utf8"), name)).toBe(readFileSync(join(FIXTURES, `${name}.jsonl`), "utf8"));
    });
  }

  test("the fixtures carry the corpus's license", () => {
    expect(readFileSync(join(FIXTURES, "LICENSE"), "utf8")).toBe(readFileSync(join(CORPUS, "LICENSE"), "utf8"));
  });
});
