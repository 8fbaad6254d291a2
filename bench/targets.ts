/**
 * The verdict every benchmark ends with: one PASS/FAIL line per target, then
 * the benchmark's headline when it has one, then `targets met: X/Y` as the
 * last line. Timings on a shared machine vary, so a
 * failed target fails the process only when asked (`--check`).
 */
export interface Target {
  name: string;
  met: boolean;
}

export function reportTargets(targets: Target[], argv: string[] = process.argv, headline?: string): void {
  for (const target of targets) console.log(`  ${target.met ? "PASS" : "FAIL"} ${target.name}`);
  if (headline !== undefined) console.log(headline);
  const met = targets.filter((t) => t.met).length;
  console.log(`targets met: ${met}/${targets.length}`);
  if (argv.includes("--check") && met < targets.length) process.exitCode = 1;
}
