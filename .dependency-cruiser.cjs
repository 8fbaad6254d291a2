/**
 * The layering of src/ (see AGENTS.md, "Entry point and modules"), checked by `npm run check:deps`.
 * Folders, bottom to top; a module may import its own folder, src/*.ts, and the folders below it.
 */
const LAYERS = ["settings", "economics", "digest", "capture", "arguments", "render", "archive", "chains", "summarize", "policy", "forgetting", "bill", "report", "ui", "commands", "host", "cli"];

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
      comment: "No import circle between files (type-only imports included), except through src/types.ts's type-only re-exports of the contract's type names",
      severity: "error",
      from: {},
      to: { circular: true, viaOnly: { pathNot: "^src/types\\.ts$" } },
    },
    {
      name: "shared-imports-no-folder",
      comment: "src/*.ts is shared by every layer: it imports none of them (src/types.ts re-exports the contract's type names, type-only)",
      severity: "error",
      from: { path: "^src/[^/]+\\.ts$" },
      to: { path: "^src/[^/]+/", dependencyTypesNot: ["type-only"] },
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
