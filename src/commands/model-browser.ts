/**
 * The settings overlay's summarizer-model submenu: pi's searchable SettingsList over the models pi can use,
 * opened on the current model, which it names once, and saying what it lists when a search finds nothing.
 */
import type { ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import { getSettingsListTheme } from "@earendil-works/pi-coding-agent";
import { SettingsList, wrapTextWithAnsi } from "@earendil-works/pi-tui";
import type { Component, SettingItem } from "@earendil-works/pi-tui";
import { searchSettingsBy } from "./settings-search.js";

/** The value column of the model in use: its id is the row's label already. */
export const CURRENT_MODEL = "current";

/** pi's list says "settings" when a search matches nothing; this list holds models, and only some of them. */
const NO_MATCH_FROM_PI = "No matching settings";
export const NO_MATCHING_MODEL =
  "No matching models: only providers pi has credentials for are listed (/login adds one). /pruner model <provider>/<id> sets any model pi knows.";

function availableModels(ctx: ExtensionCommandContext): Array<{ provider: string; id: string; name?: string }> {
  try {
    return ctx.modelRegistry?.getAvailable() ?? [];
  } catch (err) {
    console.error("pi-condense: listing available models failed", err);
    return [];
  }
}

export function modelBrowserItems(ctx: ExtensionCommandContext, current: string): SettingItem[] {
  const items: SettingItem[] = [
    {
      id: "default",
      label: "default (active model)",
      values: ["default"],
      currentValue: current === "default" ? CURRENT_MODEL : "",
      description: "Use the currently active model for summarization",
    },
  ];
  for (const model of availableModels(ctx)) {
    const key = `${model.provider}/${model.id}`;
    items.push({ id: key, label: key, values: [key], currentValue: key === current ? CURRENT_MODEL : "", description: model.name || key });
  }
  return items;
}

/** The list, with pi's no-match line replaced by one that speaks of models. */
export class ModelBrowser implements Component {
  readonly capturesViewportInput = true;

  constructor(
    private readonly list: SettingsList,
    private readonly hint: (text: string) => string,
  ) {}

  render(width: number): string[] {
    return this.list.render(width).flatMap((line) => {
      if (!line.includes(NO_MATCH_FROM_PI)) return [line];
      return wrapTextWithAnsi(NO_MATCHING_MODEL, Math.max(1, width - 2)).map((row) => this.hint(`  ${row}`));
    });
  }

  handleInput(data: string): void {
    this.list.handleInput(data);
  }

  invalidate(): void {
    this.list.invalidate();
  }
}

/** Opens on `current`; a search also finds a model by its name (`haiku` finds `Claude Haiku 4.5`). */
export function openModelBrowser(ctx: ExtensionCommandContext, current: string, rows: number, done: (value?: string) => void): ModelBrowser {
  const items = modelBrowserItems(ctx, current);
  const theme = getSettingsListTheme();
  const list = new SettingsList(items, rows, theme, (_id, value) => done(value), () => done(undefined), { enableSearch: true });
  const names = new Map(items.map((item) => [item.id, item.description ?? ""]));
  searchSettingsBy(list, (id) => names.get(id) ?? "");
  list.selectItem(current);
  return new ModelBrowser(list, theme.hint);
}
