/**
 * The `pruner loaded — pruning ON | model: …` line shown below the editor for
 * ten seconds after a session starts. `/pruner on` and `/pruner off` take it
 * away at once, so it never contradicts the footer.
 */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { ContextPruneConfig } from "../settings/config-shape.js";

const BOOT_WIDGET_ID = "pruner-boot";
const BOOT_WIDGET_MS = 10_000;

export function showBootWidget(ctx: Pick<ExtensionContext, "ui">, config: Pick<ContextPruneConfig, "enabled" | "summarizerModel">): void {
  const line = `pruner loaded \u2014 pruning ${config.enabled ? "ON" : "OFF"} | model: ${config.summarizerModel}`;
  ctx.ui.setWidget(BOOT_WIDGET_ID, [line], { placement: "belowEditor" });
  const timer = setTimeout(() => clearBootWidget(ctx), BOOT_WIDGET_MS);
  timer.unref?.();
}

export function clearBootWidget(ctx: Pick<ExtensionContext, "ui">): void {
  try {
    ctx.ui.setWidget(BOOT_WIDGET_ID, undefined);
  } catch {
    // The UI may be gone (session replaced or process exiting).
  }
}
