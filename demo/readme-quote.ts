// The README's fenced copy of the demo's output, for the tests that hold it to the demo.
import { readFileSync } from "node:fs";
import { join } from "node:path";

export function readmeDemoOutput(root: string): string {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## See it work offline"));
  const match = /```\n(pi-condense demo:[\s\S]*?)```/.exec(section);
  if (!match) throw new Error("README.md quotes no demo output");
  return match[1]!;
}
