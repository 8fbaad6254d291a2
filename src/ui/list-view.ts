/**
 * A read-only list shown whole, one entry a row, with a line saying how to change it: what
 * Enter opens on a settings row whose value is too long for its row.
 */
import { getKeybindings, wrapTextWithAnsi } from "@earendil-works/pi-tui";
import type { Component } from "@earendil-works/pi-tui";

export class ListView implements Component {
  constructor(
    private readonly heading: string,
    private readonly entries: readonly string[],
    private readonly hint: string,
    private readonly close: () => void,
  ) {}

  render(width: number): string[] {
    const room = Math.max(1, width - 4);
    const rows = this.entries.length > 0 ? this.entries : ["(none)"];
    const listed = rows.flatMap((entry) => wrapTextWithAnsi(entry, room).map((line, i) => `${i === 0 ? "  • " : "    "}${line}`));
    return [this.heading, "", ...listed, "", ...wrapTextWithAnsi(this.hint, width)];
  }

  handleInput(data: string): void {
    const keys = getKeybindings();
    if (keys.matches(data, "tui.select.confirm") || keys.matches(data, "tui.select.cancel") || data === "q") this.close();
  }

  invalidate(): void {}
}
