/**
 * The layering of src/ (see AGENTS.md, "Entry point and modules"), checked by `npm run check:deps`.
 * Folders, bottom to top; a module may import its own folder, the ground floor (src/names.ts) and the folders
 * below it. src/types.ts is the contract's face for consumers outside src/: nothing inside src/ imports it.
 */
const LAYERS = ["format", "settings", "economics", "digest", "capture", "sight", "arguments", "render", "archive", "chains", "summarize", "policy", "forgetting", "bill", "report", "ui", "commands", "host", "cli"];

const above = (i) => LAYERS.slice(i + 1).join("|");
const layerRules = LAYERS.slice(0, -1).map((layer, i) => ({
  name: `layer-${layer}`,
  comment: `src/${layer}/ is below ${LAYERS.slice(i + 1).join(", ")}: it must not import them`,
  severity: "error",
  from: { path: `^src/${layer}/`, pathNot: "\\.test\\.ts$" },
  to: { path: `^src/(${above(i)})/` },
}));

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "No import circle between files, type-only imports included",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "ground-floor-imports-nothing",
      comment: "src/*.ts other than the face (src/names.ts, the names every layer shares) imports nothing of ours",
      severity: "error",
      from: { path: "^src/[^/]+\\.ts$", pathNot: "^src/types\\.ts$|\\.test\\.ts$" },
      to: { path: "^(src|test)/" },
    },
    {
      name: "face-not-imported-inside",
      comment: "src/types.ts re-exports the contract for outside consumers; modules and tests inside src/ import each name from its owner",
      severity: "error",
      from: { path: "^src/" },
      to: { path: "^src/types\\.ts$" },
    },
    ...layerRules,
    {
      name: "render-stays-pure",
      comment: "The render path runs before every request: nothing from commands, ui, host or summarize",
      severity: "error",
      from: { path: "^src/render/", pathNot: "\\.test\\.ts$" },
      to: { path: "^src/(commands|ui|host|summarize)/" },
    },
    {
      name: "tui-only-in-ui",
      comment: "Only src/ui/, src/commands/ and index.ts import pi-tui",
      severity: "error",
      from: { path: "^(src|test|bench|demo)/", pathNot: "^src/(ui|commands)/" },
      to: { path: "@earendil-works/pi-tui" },
    },
    {
      name: "no-module-imports-a-test",
      severity: "error",
      from: { pathNot: "\\.test\\.ts$|^test/" },
      to: { path: "\\.test\\.ts$" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    exclude: { path: "^test/e2e/|^demo/|^bench/" },
  },
};
