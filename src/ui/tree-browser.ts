/**
 * `/pruner tree`: a foldable tree of per-batch summaries (roots) and the tool calls they
 * pruned (leaves). Ctrl-O shows the selected summary in the same box, so it can never sit
 * off its frame or show the tree through it.
 */
import type { ExtensionCommandContext, Theme } from "@earendil-works/pi-coding-agent";
import { getMarkdownTheme } from "@earendil-works/pi-coding-agent";
import {
  getKeybindings,
  Markdown,
  matchesKey,
  replaceControlCharacters,
  stripTerminalSequences,
  truncateToWidth,
  visibleWidth,
  wrapTextWithAnsi,
} from "@earendil-works/pi-tui";
import { centered, frame } from "./frame.js";
import type { Component, Keybinding } from "@earendil-works/pi-tui";
import type { TreeNode } from "./prune-tree.js";

export { buildPruneTree } from "./prune-tree.js";
export type { TreeNode } from "./prune-tree.js";

const TREE_TITLE = "Pruned Tool Calls";
const OVERLAY_TITLE = "Pruned Summary";
const OUTPUT_TITLE = "Original Output";
const OUTPUT_SECTION = "output";
const HINT = "Enter/Space expand • Ctrl-O open summary • Esc/q close";
/** The list's other keys, on the hint's line when the box is wide enough, else on a line of their own. */
const MOVE_HINT = "PgUp/PgDn Home/End";
const HINT_SEPARATOR = " • ";
const EMPTY = "(no pruned tool calls in this session)";
const OVERLAY_FOOTER = "↑/↓ PgUp/PgDn/Space Home/End scroll • Ctrl-O/Esc/q close";
/** pi's own lists mark the selected row with this arrow, so it shows without colours too. */
const MARKER = "→ ";
const NO_MARKER = "  ";
/** The overlay's share of the terminal height; `showTreeBrowser` sizes the box to it. */
const HEIGHT_SHARE = 0.8;
/** Rows the tree keeps for rows of nodes, and the summary view for its text, however short the terminal. */
const MIN_BODY_ROWS = 3;
const META_GAP = 2;
const MIN_LABEL_WIDTH = 12;
const FACT_SEPARATOR = " · ";
const RULE = /^─+$/;
const TAB = "    ";

/**
 * Facts (`read ×2 · outputs … · 12/3/2026, 3:44:10 PM`) wrapped between facts, so the box's
 * side never falls inside one; a fact wider than the box wraps by words.
 */
export function wrapFacts(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const fact of text.split(FACT_SEPARATOR)) {
    const joined = line ? `${line}${FACT_SEPARATOR}${fact}` : fact;
    if (visibleWidth(joined) <= width) {
      line = joined;
      continue;
    }
    if (line) lines.push(`${line}${FACT_SEPARATOR.trimEnd()}`);
    const pieces = wrapTextWithAnsi(fact, width);
    lines.push(...pieces.slice(0, -1));
    line = pieces.at(-1) ?? "";
  }
  if (line) lines.push(line);
  return lines;
}

/** A tool output as plain rows: no escapes or control characters reach the box. */
function outputLines(text: string, width: number): string[] {
  return stripTerminalSequences(text)
    .split("\n")
    .flatMap((line) => wrapTextWithAnsi(replaceControlCharacters(line.replaceAll("\t", TAB)), width));
}

/** A leaf's long arguments, each under its title, then its output under its own when there are any. */
function leafLines(node: TreeNode, width: number, title: (text: string) => string): string[] {
  const body = outputLines(node.detail ?? "", width);
  const sections = node.sections ?? [];
  if (sections.length === 0) return body;
  const titled = (heading: string, lines: string[]) => [title(truncateToWidth(plainText(`${heading}:`), width, "…")), ...lines];
  return [
    ...sections.flatMap((section) => [...titled(section.title, outputLines(section.text, width)), ""]),
    ...titled(OUTPUT_SECTION, body),
  ];
}

/** Argument values as one row of text: no escapes, control characters or tabs reach the header. */
function plainText(text: string): string {
  return replaceControlCharacters(stripTerminalSequences(text).replaceAll("\t", " "));
}

/** The first row of a `count`-row window over `total` rows that keeps row `focus` in view. */
function windowStart(focus: number, count: number, total: number): number {
  return Math.max(0, Math.min(focus - Math.floor(count / 2), total - count));
}

function isCtrlO(data: string): boolean {
  return data === "\x0f" || matchesKey(data, "ctrl+o");
}

interface KeyMatcher {
  matches(data: string, keybinding: Keybinding): boolean;
}

interface SummaryView {
  node: TreeNode;
  offset: number;
  /** Rows of text the last render showed: a page for PageUp, PageDown and Space. */
  page: number;
}

export class TreeBrowser implements Component {
  private rows: TreeNode[] = [];
  private selected = 0;
  /** Rows of nodes the last render showed: a page for PageUp and PageDown. */
  private page = MIN_BODY_ROWS;
  private overlay: SummaryView | undefined;
  private bodyCache: { node: TreeNode; width: number; lines: readonly string[] } | undefined;
  private readonly keys: KeyMatcher;

  /**
   * `keybindings` defaults to the global pi-tui manager; `/pruner tree` passes the host's.
   * `maxRows` is the most rows the box may take (unbounded when absent).
   */
  constructor(
    private readonly roots: TreeNode[],
    private readonly theme: Theme,
    private readonly onDone: () => void,
    keybindings?: KeyMatcher,
    private readonly maxRows: () => number = () => Number.POSITIVE_INFINITY,
    private readonly boxWidth: (width: number) => number = (width) => width,
  ) {
    this.keys = keybindings ?? getKeybindings();
    this.rebuildRows();
  }

  invalidate(): void {
    this.rebuildRows();
    this.bodyCache = undefined;
  }

  handleInput(data: string): void {
    if (this.overlay) {
      this.handleSummaryInput(this.overlay, data);
      return;
    }
    const confirm = this.keys.matches(data, "tui.select.confirm");
    const onChild = (this.rows[this.selected]?.depth ?? 0) > 0;
    if (this.keys.matches(data, "tui.select.up")) this.move(-1);
    else if (this.keys.matches(data, "tui.select.down")) this.move(1);
    else if (this.keys.matches(data, "tui.select.pageUp")) this.jump(this.selected - this.page);
    else if (this.keys.matches(data, "tui.select.pageDown")) this.jump(this.selected + this.page);
    else if (matchesKey(data, "home")) this.jump(0);
    else if (matchesKey(data, "end")) this.jump(this.rows.length - 1);
    else if (confirm && onChild) this.openSelected();
    else if (confirm || data === " ") this.toggleSelected();
    else if (isCtrlO(data)) this.openSelected();
    else if (this.keys.matches(data, "tui.select.cancel") || data === "q") this.onDone();
  }

  /** The box, `boxWidth(width)` wide, centered in rows `width` wide. */
  render(width: number): string[] {
    const box = Math.max(1, Math.min(width, this.boxWidth(width)));
    return centered(this.overlay ? this.renderSummary(this.overlay, box) : this.renderTree(box), box, width);
  }

  private rebuildRows(): void {
    const rows: TreeNode[] = [];
    const walk = (nodes: TreeNode[]): void => {
      for (const node of nodes) {
        rows.push(node);
        if (node.expanded && node.children.length > 0) walk(node.children);
      }
    };
    walk(this.roots);
    this.rows = rows;
    this.selected = Math.max(0, Math.min(this.selected, rows.length - 1));
  }

  private move(delta: number): void {
    const count = this.rows.length;
    if (count === 0) return;
    this.selected = (this.selected + delta + count) % count;
  }

  /** Pages and ends stop at the first and last rows instead of wrapping around. */
  private jump(row: number): void {
    this.selected = Math.max(0, Math.min(row, this.rows.length - 1));
  }

  private toggleSelected(): void {
    const node = this.rows[this.selected];
    if (!node || node.isLeaf) return;
    node.expanded = !node.expanded;
    this.rebuildRows();
  }

  /** A summary, or a child's output; a root whose outputs are all gone has nothing to open. */
  private openSelected(): void {
    const node = this.rows[this.selected];
    if (!node || node.detail === undefined || (node.isLeaf && node.depth === 0)) return;
    this.overlay = { node, offset: 0, page: 1 };
  }

  /** Scrolls as pi's own viewers do: a line, a page (Space too), either end; the render clamps the offset. */
  private handleSummaryInput(view: SummaryView, data: string): void {
    const page = Math.max(1, view.page - 1);
    if (this.keys.matches(data, "tui.select.up")) view.offset = Math.max(0, view.offset - 1);
    else if (this.keys.matches(data, "tui.select.down")) view.offset += 1;
    else if (this.keys.matches(data, "tui.select.pageUp")) view.offset = Math.max(0, view.offset - page);
    else if (this.keys.matches(data, "tui.select.pageDown") || data === " ") view.offset += page;
    else if (matchesKey(data, "home")) view.offset = 0;
    else if (matchesKey(data, "end")) view.offset = Number.MAX_SAFE_INTEGER;
    else if (this.keys.matches(data, "tui.select.cancel") || data === "q" || isCtrlO(data)) this.overlay = undefined;
  }

  private readonly border = (text: string): string => this.theme.fg("border", text);

  private bodyRows(chrome: number): number {
    return Math.max(MIN_BODY_ROWS, Math.floor(this.maxRows()) - chrome);
  }

  private renderTree(width: number): string[] {
    const inner = Math.max(0, width - 2);
    if (this.rows.length === 0) return frame(TREE_TITLE, [this.theme.fg("muted", EMPTY)], width, { paint: this.border });
    const hint = this.hintLines(inner);
    const room = this.bodyRows(3 + hint.length);
    this.page = room;
    const start = windowStart(this.selected, room, this.rows.length);
    const shown = this.rows.slice(start, start + room);
    const lines = [...hint, ""];
    shown.forEach((node, i) => lines.push(this.renderRow(node, start + i === this.selected, inner)));
    const status = shown.length < this.rows.length ? `${this.selected + 1}/${this.rows.length}` : "";
    return frame(TREE_TITLE, lines, width, { status, paint: this.border });
  }

  private hintLines(inner: number): string[] {
    const whole = `${HINT}${HINT_SEPARATOR}${MOVE_HINT}`;
    const lines = visibleWidth(whole) <= inner ? [whole] : [HINT, MOVE_HINT];
    return lines.map((line) => this.theme.fg("dim", line));
  }

  private renderRow(node: TreeNode, selected: boolean, inner: number): string {
    const marker = selected ? this.theme.fg("accent", MARKER) : NO_MARKER;
    const lead = "  ".repeat(node.depth) + (node.isLeaf ? "  " : node.expanded ? "▾ " : "▸ ");
    const room = Math.max(0, inner - visibleWidth(MARKER) - visibleWidth(lead));
    const meta = node.meta ?? "";
    const color = node.isLeaf ? "text" : "accent";
    let text: string;
    if (meta && room >= visibleWidth(meta) + META_GAP + MIN_LABEL_WIDTH) {
      const labelRoom = room - visibleWidth(meta) - META_GAP;
      const label = truncateToWidth(node.label, labelRoom, "…");
      const gap = " ".repeat(room - visibleWidth(label) - visibleWidth(meta));
      text = this.theme.fg(color, label) + gap + this.theme.fg("muted", meta);
    } else {
      const full = meta ? `${node.label} · ${meta}` : node.label;
      const label = truncateToWidth(full, room, "…");
      text = this.theme.fg(color, label) + " ".repeat(Math.max(0, room - visibleWidth(label)));
    }
    const row = marker + lead + text;
    return selected ? this.theme.bg("selectedBg", row) : row;
  }

  /** Markdown's rules stop at 80 columns; here they span the box. */
  private markdownLines(detail: string, width: number): string[] {
    const markdown = getMarkdownTheme();
    const rule = ` ${markdown.hr("─".repeat(Math.max(1, width - 2)))}`;
    return new Markdown(detail, 1, 0, markdown)
      .render(width)
      .map((line) => (RULE.test(stripTerminalSequences(line).trim()) ? rule : line));
  }

  /** A root's summary as markdown, a child's output as plain text. */
  private bodyLines(node: TreeNode, width: number): readonly string[] {
    const cached = this.bodyCache;
    if (cached && cached.node === node && cached.width === width) return cached.lines;
    const detail = node.detail ?? "";
    const title = (text: string) => this.theme.fg("accent", text);
    const lines = node.depth === 0 ? this.markdownLines(detail, width) : leafLines(node, width - 2, title).map((line) => ` ${line}`);
    this.bodyCache = { node, width, lines };
    return lines;
  }

  private renderSummary(view: SummaryView, width: number): string[] {
    const inner = Math.max(1, width - 2);
    const heading = view.node.heading;
    const header = [
      ...(heading === undefined ? wrapTextWithAnsi(view.node.label, inner) : wrapFacts(plainText(heading), inner)).map((line) => this.theme.fg("accent", line)),
      ...wrapFacts(view.node.facts ?? "Pruned summary message", inner).map((line) => this.theme.fg("dim", line)),
    ];
    const markdown = this.bodyLines(view.node, inner);
    const total = markdown.length;
    const height = Math.min(total, this.bodyRows(header.length + 5));
    view.page = height;
    view.offset = Math.min(view.offset, Math.max(0, total - height));
    const visible = markdown.slice(view.offset, view.offset + height);
    const range = total > height ? ` • ${view.offset + 1}-${view.offset + height} / ${total}` : "";
    const lines = [...header, "", ...visible, "", this.theme.fg("dim", OVERLAY_FOOTER + range)];
    return frame(view.node.depth === 0 ? OVERLAY_TITLE : OUTPUT_TITLE, lines, width, { paint: this.border });
  }
}

/** The box's share of the terminal width, never narrower than 80 columns (the full width of an 80-column terminal). */
const WIDTH_SHARE = 0.8;
const MIN_BOX_WIDTH = 80;

/**
 * Opens the browser as an overlay as wide as the terminal, its box centered in it and sized to the terminal
 * at every render, so chat text never shows beside it and a resize refits it.
 */
export async function showTreeBrowser(ctx: ExtensionCommandContext, roots: TreeNode[]): Promise<void> {
  await ctx.ui.custom<undefined>(
    (tui, theme, keybindings, done) =>
      new TreeBrowser(
        roots,
        theme,
        () => done(undefined),
        keybindings,
        () => Math.floor(tui.terminal.rows * HEIGHT_SHARE),
        (width) => Math.max(MIN_BOX_WIDTH, Math.floor(width * WIDTH_SHARE)),
      ),
    { overlay: true, overlayOptions: { width: "100%", maxHeight: `${HEIGHT_SHARE * 100}%`, anchor: "center" } },
  );
}
