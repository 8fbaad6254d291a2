import { getModel } from "@earendil-works/pi-ai/compat";
import { costModelFor } from "../src/economics/cost-model.js";
import { runReport } from "../src/report/run-report.js";
import { DEFAULT_CONFIG } from "../src/types.js";

for (const path of process.argv.slice(2)) {
  for (const variant of ["anthropic+bp", "anthropic-nobp", "prefix"]) {
    const config = { ...DEFAULT_CONFIG, enabled: true, cacheBreakpoint: variant !== "anthropic-nobp" };
    let modelId = "";
    const result = await runReport({
      path, config, overrides: [], htmlPath: `/tmp/rr/${Date.now()}.html`,
      ...(variant === "prefix" ? { priceAs: { provider: "anthropic", id: path.includes("large") ? "claude-sonnet-4-5" : "claude-opus-4-5" } } : {}),
      costModelOf: (provider, id) => {
        const model = getModel((provider ?? "anthropic") as never, (id ?? "") as never) as any;
        modelId = id ?? "";
        return { cost: costModelFor(model), contextWindow: model?.contextWindow, api: variant === "prefix" ? "openai-responses" : model?.api };
      },
    });
    const r = result.report!;
    const line = r.scenarios.map((s) => `${s.name}=$${s.totals.dollars?.toFixed(2)} breaks=${s.totals.prefixBreaks}`).join("  ");
    console.log(path.split("/").at(-1), variant, r.model, r.cache.rule, line, variant === "anthropic+bp" ? JSON.stringify({ other: r.cache.whatIfOther?.totals.dollars }) : "");
  }
}
