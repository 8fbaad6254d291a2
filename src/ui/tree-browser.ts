/**
 * `/pruner tree`: a foldable tree of per-batch summaries (roots) and the
 * tool calls they pruned (leaves), with a Ctrl-O overlay that shows the
 * full summary markdown.
 */
import type { ExtensionCommandContext, Theme } from "@earendil-works/pi-coding-agent";
import { getMarkdownTheme } from "@earendil-works/pi-coding-agent";
import { compositeTuiLine, getKeybindings, Markdown, matchesKey, truncateToWidth, visibleWidth } from "@earendil-works/pi-tui";
import type { Component, Keybinding } from "@earendil-works/pi-tui";
import type { ToolCallIndexer } from "../archive/indexer.js";
import { occKey } from "../capture/occurrence-key.js";
import { plural } from "../plural.js";
import { formatCompactCount as fmt } from "../summarize/stats.js";
import { isPlainObject, parseSummaryEntry } from "../capture/persisted-entries.js";
import { CUSTOM_TYPE_SUMMARY } from "../types.js";
import type { ToolCallRecord } from "../types.js";

export interface TreeNode {
  id: string;
  label: string;
  children: TreeNode[];
  expanded: boolean;
  depth: number;
  isLeaf: boolean;
  /** Summary markdown (roots) or a 200-char whitespace-collapsed preview (leaves). */
  detail?: string;
  charCount?: number;
}

const TREE_TITLE = "Pruned Tool Calls";
const OVERLAY_TITLE = "Pruned Summary";
const HINT = "Enter/Space expand • Ctrl-O open summary • Esc/q close";
const EMPTY = "(no pruned tool calls in this session)";
const OVERLAY_FOOTER = "↑/↓ scroll • Ctrl-O/Esc/q close";

function leafNode(record: ToolCallRecord): TreeNode {
  const args = Object.entries(record.args ?? {})
    .map(([key, value]) => `${key}=${JSON.stringify(value)}`)
    .join(", ");
  const text = record.resultText ?? "";
  const charCount = text.length || record.spillBytes || 0;
  const unit = text.length > 0 ? "chars" : record.spillBytes ? "bytes" : "chars";
  return {
    id: record.toolCallId,
    label: `${record.toolName}(${args}) · ${fmt(charCount)} ${unit}${record.isError ? " [error]" : ""}`,
    children: [],
    expanded: false,
    depth: 1,
    isLeaf: true,
    detail: (text || record.resultPreview || "").slice(0, 200).replace(/\s+/g, " "),
    charCount,
  };
}

/** Every summary entry gets a root; refs come only from entries the rebuild accepts (it reports the others). */
function summaryNode(entry: any, index: number, indexer: ToolCallIndexer): TreeNode {
  const details = isPlainObject(entry.details) ? entry.details : {};
  const summary = parseSummaryEntry(entry);
  const children: TreeNode[] = [];
  for (const ref of summary.ok ? summary.value.refs : []) {
    const record = indexer.getRecord(occKey(ref.toolCallId, ref.resultTimestamp));
    if (record) children.push(leafNode(record));
  }
  const content = typeof entry.content === "string" ? entry.content : undefined;
  const summaryChars = content?.length ?? 0;
  const original = children.reduce((sum, child) => sum + (child.charCount ?? 0), 0);
  const turn = typeof details.turnIndex === "number" ? details.turnIndex : "?";
  let label =
    `[pruner] Turn ${turn} summary (${plural(children.length, "tool")} · ` +
    `${fmt(summaryChars)} chars · original ${fmt(original)})`;
  if (typeof details.timestamp === "number" && details.timestamp) {
    label += ` · ${new Date(details.timestamp).toLocaleString()}`;
  }
  return {
    id: `summary-${index}`,
    label,
    children,
    expanded: false,
    depth: 0,
    isLeaf: children.length === 0,
    detail: content || undefined,
    charCount: summaryChars,
  };
}

export function buildPruneTree(ctx: ExtensionCommandContext, indexer: ToolCallIndexer): TreeNode[] {
  const roots: TreeNode[] = [];
  for (const entry of ctx.sessionManager.getBranch() as any[]) {
    if (entry?.type !== "custom_message" || entry.customType !== CUSTOM_TYPE_SUMMARY) continue;
    try {
      roots.push(summaryNode(entry, roots.length, indexer));
    } catch (err) {
      console.error("pi-condense: skipping unreadable summary entry in /pruner tree", err);
    }
  }
  return roots;
}

/** Draws `lines` inside a titled single-line box exactly `width` columns wide. */
function frame(title: string, lines: string[], width: number): string[] {
  const inner = Math.max(0, width - 2);
  const head = truncateToWidth(`─ ${title} `, inner, "");
  const top = `┌${head}${"─".repeat(Math.max(0, inner - visibleWidth(head)))}┐`;
  const body = lines.map((line) => `│${truncateToWidth(line, inner, "…", true)}│`);
  return [top, ...body, `└${"─".repeat(inner)}┘`];
}

function isCtrlO(data: string): boolean {
  return data === "\x0f" || matchesKey(data, "ctrl+o");
}

interface KeyMatcher {
  matches(data: string, keybinding: Keybinding): boolean;
}

interface OverlayState {
  node: TreeNode;
  offset: number;
}

export class TreeBrowser implements Component {
  private rows: TreeNode[] = [];
  private selected = 0;
  private overlay: OverlayState | undefined;
  private markdownCache: { detail: string; width: number; lines: readonly string[] } | undefined;
  private readonly keys: KeyMatcher;

  /** `keybindings` defaults to the global pi-tui manager; `/pruner tree` passes the host's. */
  constructor(
    private readonly roots: TreeNode[],
    private readonly theme: Theme,
    private readonly onDone: () => void,
    keybindings?: KeyMatcher,
  ) {
    this.keys = keybindings ?? getKeybindings();
    this.rebuildRows();
  }

  invalidate(): void {
    this.rebuildRows();
    this.markdownCache = undefined;
  }

  handleInput(data: string): void {
    if (this.overlay) {
      this.handleOverlayInput(this.overlay, data);
      return;
    }
    if (this.keys.matches(data, "tui.select.up")) this.move(-1);
    else if (this.keys.matches(data, "tui.select.down")) this.move(1);
    else if (this.keys.matches(data, "tui.select.confirm") || data === " ") this.toggleSelected();
    else if (isCtrlO(data)) this.openSelected();
    else if (this.keys.matches(data, "tui.select.cancel") || data === "q") this.onDone();
  }

  render(width: number): string[] {
    const base = this.renderTree(width);
    if (!this.overlay) return base;
    const overlayWidth = Math.min(width, Math.max(60, width - 2));
    return this.composite(base, this.renderOverlay(this.overlay, overlayWidth, base.length), overlayWidth, width);
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

  private toggleSelected(): void {
    const node = this.rows[this.selected];
    if (!node || node.isLeaf) return;
    node.expanded = !node.expanded;
    this.rebuildRows();
  }

  private openSelected(): void {
    const node = this.rows[this.selected];
    if (!node || node.isLeaf || !node.detail) return;
    this.overlay = { node, offset: 0 };
  }

  private handleOverlayInput(overlay: OverlayState, data: string): void {
    if (this.keys.matches(data, "tui.select.up")) overlay.offset = Math.max(0, overlay.offset - 1);
    else if (this.keys.matches(data, "tui.select.down")) overlay.offset += 1;
    else if (this.keys.matches(data, "tui.select.cancel") || data === "q" || isCtrlO(data)) this.overlay = undefined;
  }

  private renderTree(width: number): string[] {
    const inner = Math.max(0, width - 2);
    if (this.rows.length === 0) return frame(TREE_TITLE, [this.theme.fg("muted", EMPTY)], width);
    const lines = [this.theme.fg("dim", HINT), ""];
    this.rows.forEach((node, i) => lines.push(this.renderRow(node, i === this.selected, inner)));
    return frame(TREE_TITLE, lines, width);
  }

  private renderRow(node: TreeNode, selected: boolean, inner: number): string {
    const lead = "  ".repeat(node.depth) + (node.isLeaf ? "  " : node.expanded ? "▾ " : "▸ ");
    const room = Math.max(0, inner - visibleWidth(lead));
    const label = visibleWidth(node.label) > room ? truncateToWidth(node.label, room, "…") : node.label;
    const row = lead + this.theme.fg(node.isLeaf ? "text" : "accent", label);
    if (!selected) return row;
    const pad = " ".repeat(Math.max(0, inner - visibleWidth(lead) - visibleWidth(label)));
    return this.theme.bg("selectedBg", row + pad);
  }

  private markdownLines(detail: string, width: number): readonly string[] {
    const cached = this.markdownCache;
    if (cached && cached.detail === detail && cached.width === width) return cached.lines;
    const lines = new Markdown(detail, 1, 0, getMarkdownTheme()).render(width);
    this.markdownCache = { detail, width, lines };
    return lines;
  }

  private renderOverlay(overlay: OverlayState, overlayWidth: number, baseLines: number): string[] {
    const inner = Math.max(1, overlayWidth - 2);
    const markdown = this.markdownLines(overlay.node.detail ?? "", inner);
    const total = markdown.length;
    const height = Math.max(12, Math.min(total, baseLines + 8));
    overlay.offset = Math.min(overlay.offset, Math.max(0, total - height));
    const visible = markdown.slice(overlay.offset, overlay.offset + height);
    while (visible.length < height) visible.push("");
    const range = total > height ? ` • ${overlay.offset + 1}-${Math.min(overlay.offset + height, total)} / ${total}` : "";
    const lines = [
      this.theme.fg("accent", truncateToWidth(overlay.node.label, inner, "…")),
      this.theme.fg("dim", "Pruned summary message"),
      "",
      ...visible,
      "",
      this.theme.fg("dim", OVERLAY_FOOTER + range),
    ];
    return frame(OVERLAY_TITLE, lines, overlayWidth);
  }

  /** Centers the overlay box over the tree box, growing the canvas when the overlay is taller. */
  private composite(base: string[], overlay: string[], overlayWidth: number, width: number): string[] {
    const height = Math.max(base.length, overlay.length + 2);
    const canvas = [...base];
    while (canvas.length < height) canvas.push(" ".repeat(width));
    const top = Math.floor((height - overlay.length) / 2);
    const left = Math.max(0, Math.floor((width - overlayWidth) / 2));
    overlay.forEach((line, i) => {
      canvas[top + i] = compositeTuiLine(canvas[top + i]!, line, left, overlayWidth, width);
    });
    return canvas;
  }
}
