import {
  CUSTOM_TYPE_SUMMARY,
  CUSTOM_TYPE_INDEX,
  PROGRESS_WIDGET_ID,
  looseEntry,
  isPrunerCustomType,
  occKey,
  isPlainObject,
  parseIndexEntry,
  parseSummaryEntry,
  errorMessage,
  formatCompactCount,
  compactTokens,
  tokenCountText,
  tokensText,
  formatCharProgress,
  showReport,
  safeNotify2,
  info,
  warn,
  refreshStatus,
  plural,
  nextPromptsWord,
  frame,
  centered,
  compressedPromptsText
} from "./index-r3w7jg55.js";

// src/ui/command-progress.ts
import { truncateToWidth } from "@earendil-works/pi-tui";
var SPINNER_FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
var FRAME_MS = 120;
function buildProgressRows(batches) {
  return batches.map((batch, i) => ({
    label: `Batch ${i + 1}/${batches.length}`,
    toolCallCount: batch.toolCalls.length,
    rawChars: batch.toolCalls.reduce((sum, call) => sum + (call.resultText?.length ?? 0), 0),
    status: "pending",
    receivedChars: 0
  }));
}
function renderProgressRow(row, now) {
  const head = `${row.label} · ${plural(row.toolCallCount, "tool call")}`;
  switch (row.status) {
    case "running": {
      const frame = SPINNER_FRAMES[Math.floor(now / FRAME_MS) % SPINNER_FRAMES.length];
      const progress = row.receivedChars > 0 ? ` · ${formatCharProgress(row.receivedChars, row.rawChars)}` : "";
      return `${frame} ${head}${progress}`;
    }
    case "done":
      return `✓ ${head} · ${formatCharProgress(row.receivedChars, row.rawChars)}`;
    case "skipped":
      return `⚠ ${head} · skipped`;
    default:
      return `○ ${head} · pending`;
  }
}
function openProgressWidget(ctx, batches, now = Date.now) {
  const rows = buildProgressRows(batches);
  let requestRender;
  let timer;
  let cleared = false;
  const syncTimer = () => {
    const running = rows.some((row) => row.status === "running");
    if (running && !timer) {
      timer = setInterval(() => requestRender?.(), FRAME_MS);
      timer.unref?.();
    } else if (!running && timer) {
      clearInterval(timer);
      timer = undefined;
    }
  };
  ctx.ui.setWidget(PROGRESS_WIDGET_ID, (tui) => {
    requestRender = () => tui.requestRender();
    return {
      invalidate() {},
      render: (width) => rows.map((row) => truncateToWidth(renderProgressRow(row, now()), width))
    };
  }, { placement: "aboveEditor" });
  return {
    updateRow(index, status, chars) {
      const row = rows[index];
      if (!row || cleared)
        return;
      row.status = status;
      if (chars !== undefined)
        row.receivedChars = chars;
      syncTimer();
      requestRender?.();
    },
    clearWidget() {
      cleared = true;
      if (timer)
        clearInterval(timer);
      timer = undefined;
      requestRender = undefined;
      ctx.ui.setWidget(PROGRESS_WIDGET_ID, undefined);
    }
  };
}

// src/ui/tree-browser.ts
import { getMarkdownTheme } from "@earendil-works/pi-coding-agent";
import {
  getKeybindings,
  Markdown,
  matchesKey,
  replaceControlCharacters,
  stripTerminalSequences,
  truncateToWidth as truncateToWidth2,
  visibleWidth,
  wrapTextWithAnsi
} from "@earendil-works/pi-tui";

// src/ui/tree-arguments.ts
var INLINE_CHARS = 60;
var MAX_FACTS = 5;
var MAX_DEPTH = 4;
function leafValues(value, name, depth, out) {
  if (value === undefined)
    return;
  if (typeof value === "string") {
    out.push([name, value]);
    return;
  }
  if (value !== null && typeof value === "object" && depth < MAX_DEPTH) {
    const entries = Array.isArray(value) ? value.map((item, i) => [`${name}[${i}]`, item]) : Object.entries(value).map(([key, item]) => [name ? `${name}.${key}` : key, item]);
    for (const [child, item] of entries)
      leafValues(item, child, depth + 1, out);
    return;
  }
  out.push([name, safeJson(value)]);
}
function safeJson(value) {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
function isShort(text) {
  return text.length <= INLINE_CHARS && !text.includes(`
`);
}
function textSize(text) {
  const lines = text.split(`
`).length;
  const chars = `${formatCompactCount(text.length)} ${text.length === 1 ? "char" : "chars"}`;
  return lines > 1 ? `${plural(lines, "line")}, ${chars}` : chars;
}
function argumentView(args) {
  const values = [];
  leafValues(args, "", 0, values);
  const facts = [];
  const sections = [];
  values.forEach(([name, text], i) => {
    const label = name || "arguments";
    if (i >= MAX_FACTS)
      sections.push({ title: label, text });
    else if (isShort(text))
      facts.push(`${label}: ${text === "" ? '""' : text}`);
    else {
      facts.push(`${label}: ${textSize(text)}`);
      sections.push({ title: `${label} (${textSize(text)})`, text });
    }
  });
  if (values.length > MAX_FACTS)
    facts.push(`${plural(values.length - MAX_FACTS, "more argument")} below`);
  return { facts, sections };
}

// src/ui/prune-tree.ts
var PROMPT_CHARS = 200;
var NO_PROMPT = "(prompt without text)";
var UNKNOWN_PROMPT = "(prompt not on this branch)";
function oneLine(text) {
  return text.replace(/\s+/g, " ").trim();
}
function textOf(content) {
  if (typeof content === "string")
    return content;
  if (!Array.isArray(content))
    return "";
  return content.filter((block) => isPlainObject(block) && block.type === "text" && typeof block.text === "string").map((block) => block.text).join(" ");
}
function promptLabel(content) {
  const text = oneLine(textOf(content));
  if (!text)
    return NO_PROMPT;
  return text.length > PROMPT_CHARS ? `${text.slice(0, PROMPT_CHARS - 1)}…` : text;
}
function branchRequests(branch) {
  const byResult = new Map;
  const resultAt = new Map;
  const at = [];
  let current;
  branch.forEach((entry, position) => {
    const message = isPlainObject(entry) && entry.type === "message" ? entry.message : undefined;
    if (isPlainObject(entry) && entry.type === "custom_message" && !isPrunerCustomType(entry.customType)) {
      current = { label: promptLabel(entry.content), position };
    } else if (isPlainObject(message) && message.role === "user") {
      current = { label: promptLabel(message.content), position };
    } else if (isPlainObject(message) && message.role === "toolResult" && typeof message.toolCallId === "string") {
      const timestamp = typeof message.timestamp === "number" ? message.timestamp : undefined;
      for (const key of [occKey(message.toolCallId, timestamp), message.toolCallId]) {
        resultAt.set(key, position);
        if (current)
          byResult.set(key, current);
      }
    }
    at.push(current);
  });
  return { byResult, resultAt, at };
}
function leafNode(record, ref) {
  const args = Object.entries(record.args ?? {}).map(([key, value]) => `${key}=${JSON.stringify(value)}`).join(", ");
  const text = record.resultText ?? "";
  const charCount = text.length || record.spillBytes || 0;
  const size = `${tokensText(charCount)}${record.isError ? " · error" : ""}`;
  const spilled = !text && record.spillBytes ? " · its first lines: the whole output is in a file beside the session" : "";
  const view = argumentView(record.args ?? {});
  return {
    id: record.toolCallId,
    label: `${ref} ${record.toolName}(${args})`,
    meta: size,
    facts: `ref ${ref} · ${size}${spilled}`,
    heading: [record.toolName, ...view.facts].join(" · "),
    ...view.sections.length > 0 ? { sections: view.sections } : {},
    children: [],
    expanded: false,
    depth: 1,
    isLeaf: true,
    detail: text || record.resultPreview || "",
    ref,
    charCount
  };
}
var MODEL_REFS_FOOTER = `

---
**Summarized tool refs**`;
function summaryForUser(content, refs) {
  const cut = content.lastIndexOf(MODEL_REFS_FOOTER);
  const body = cut >= 0 ? content.slice(0, cut) : content;
  if (refs.length === 0)
    return body;
  const list = refs.map((ref) => `\`${ref}\``).join(", ");
  return `${body}${MODEL_REFS_FOOTER}: ${list}
` + "Each ref names one original tool output, kept whole. To read one, go back to the tree, expand this request " + "and press Enter on the output's row. The agent gets outputs back by these refs with context_tree_query.";
}
function toolsUsed(records) {
  const counts = new Map;
  for (const record of records)
    counts.set(record.toolName, (counts.get(record.toolName) ?? 0) + 1);
  return [...counts].map(([name, count]) => count > 1 ? `${name} ×${count}` : name).join(", ");
}
function summaryRoot(entry, index, indexer, requests, latest) {
  const details = isPlainObject(entry.details) ? entry.details : {};
  const summary = parseSummaryEntry(entry);
  const refs = summary.ok ? summary.value.refs : [];
  const records = [];
  const children = [];
  for (const ref of refs) {
    const record = indexer.getRecord(occKey(ref.toolCallId, ref.resultTimestamp));
    if (!record)
      continue;
    records.push(record);
    children.push(leafNode(record, ref.shortId));
  }
  const first = refs[0];
  const mapped = first ? requests.get(occKey(first.toolCallId, first.resultTimestamp)) ?? requests.get(first.toolCallId) : undefined;
  const request = mapped ?? latest;
  const content = typeof entry.content === "string" ? entry.content : undefined;
  const summaryChars = content?.length ?? 0;
  const original = children.reduce((sum, child) => sum + (child.charCount ?? 0), 0);
  const tools = toolsUsed(records) || "no tool calls found";
  const sizes = `${compactTokens(original)} → ${tokensText(summaryChars)}`;
  const time = typeof details.timestamp === "number" && details.timestamp ? ` · ${new Date(details.timestamp).toLocaleString()}` : "";
  const node = {
    id: `summary-${index}`,
    label: request?.label ?? UNKNOWN_PROMPT,
    meta: `${tools} · ${sizes}`,
    facts: `${tools} · outputs ${tokensText(original)} → summary ${tokensText(summaryChars)}${time}`,
    children,
    expanded: false,
    depth: 0,
    isLeaf: children.length === 0,
    detail: content ? summaryForUser(content, children.flatMap((child) => child.ref ? [child.ref] : [])) : undefined,
    charCount: summaryChars
  };
  return { node, request, firstResult: first ? [occKey(first.toolCallId, first.resultTimestamp), first.toolCallId] : [] };
}
function numberSharedRequests(roots) {
  const groups = new Map;
  for (const { node, request } of roots)
    if (request)
      groups.set(request, [...groups.get(request) ?? [], node]);
  for (const nodes of groups.values()) {
    if (nodes.length < 2)
      continue;
    nodes.forEach((node, i) => {
      node.meta = `${i + 1} of ${nodes.length} · ${node.meta}`;
      node.facts = `${i + 1} of ${nodes.length} · ${node.facts}`;
    });
  }
}
var NO_SUMMARY_NOTE = "Archived without a summary: the agent sees a short stub for each output below (what it holds, read when it " + "was archived) and gets the whole output back by its ref with context_tree_query. To read one here, go back " + "to the tree, expand this request and press Enter on the output's row.";
function noSummaryDetail(records) {
  const lines = records.map(({ record, ref }) => {
    const facts = record.supersededBy ? "stale: a later call superseded it" : record.digest ?? record.outcome ?? "";
    return `- \`${ref}\` ${record.toolName}${facts ? `: ${oneLine(facts)}` : ""}`;
  });
  return `${NO_SUMMARY_NOTE}

${lines.join(`
`)}`;
}
function unsummarizedRoot(data, index, indexer, covered, requests, latest) {
  const parsed = parseIndexEntry(data);
  if (!parsed.ok)
    return;
  const found = [];
  for (const entryRecord of parsed.value.toolCalls) {
    const key = occKey(entryRecord.toolCallId, entryRecord.resultTimestamp);
    const ref = indexer.getShortRefForToolCallId(key);
    const record = indexer.getRecord(key);
    if (covered.has(key) || !ref || !record)
      continue;
    found.push({ record, ref });
  }
  const first = found[0];
  if (!first)
    return;
  const children = found.map(({ record, ref }) => leafNode(record, ref));
  const key = occKey(first.record.toolCallId, first.record.resultTimestamp);
  const request = requests.get(key) ?? requests.get(first.record.toolCallId) ?? latest;
  const tools = toolsUsed(found.map((f) => f.record));
  const original = children.reduce((sum, child) => sum + (child.charCount ?? 0), 0);
  const node = {
    id: `archived-${index}`,
    label: request?.label ?? UNKNOWN_PROMPT,
    meta: `${tools} · ${tokensText(original)} · no summary`,
    facts: `${tools} · outputs ${tokensText(original)} · archived without a summary`,
    children,
    expanded: false,
    depth: 0,
    isLeaf: false,
    detail: noSummaryDetail(found),
    charCount: original
  };
  return { node, request, firstResult: [key, first.record.toolCallId] };
}
function summarizedKeys(branch) {
  const covered = new Set;
  for (const entry of branch) {
    if (!isPlainObject(entry) || entry.type !== "custom_message" || entry.customType !== CUSTOM_TYPE_SUMMARY)
      continue;
    const parsed = parseSummaryEntry(entry);
    if (parsed.ok)
      for (const ref of parsed.value.refs)
        covered.add(occKey(ref.toolCallId, ref.resultTimestamp));
  }
  return covered;
}
function buildPruneTree(ctx, indexer) {
  const branch = ctx.sessionManager.getBranch();
  const requests = branchRequests(branch);
  const covered = summarizedKeys(branch);
  const placed = [];
  branch.forEach((value, index) => {
    const entry = looseEntry(value);
    try {
      if (entry?.type === "custom_message" && entry.customType === CUSTOM_TYPE_SUMMARY) {
        placed.push({ root: summaryRoot(entry, placed.length, indexer, requests.byResult, requests.at[index]), at: index });
      } else if (entry?.type === "custom" && entry.customType === CUSTOM_TYPE_INDEX) {
        const root = unsummarizedRoot(entry.data, placed.length, indexer, covered, requests.byResult, requests.at[index]);
        if (root)
          placed.push({ root, at: index });
      }
    } catch (err) {
      console.error("pi-condense: skipping an unreadable entry in /pruner tree", err);
    }
  });
  const roots = inPromptOrder(placed, requests.resultAt);
  numberSharedRequests(roots);
  return roots.map((root) => root.node);
}
function inPromptOrder(placed, resultAt) {
  const keyed = placed.map(({ root, at }) => {
    const result = root.firstResult.map((key) => resultAt.get(key)).find((position) => position !== undefined);
    return { root, keys: [root.request?.position ?? at, result ?? at, at] };
  });
  const compare = (a, b) => a.reduce((found, value, i) => found || value - b[i], 0);
  return keyed.sort((a, b) => compare(a.keys, b.keys)).map(({ root }) => root);
}

// src/ui/tree-browser.ts
var TREE_TITLE = "Pruned Tool Calls";
var OVERLAY_TITLE = "Pruned Summary";
var OUTPUT_TITLE = "Original Output";
var OUTPUT_SECTION = "output";
var HINT = "Enter/Space expand • Ctrl-O open summary • Esc/q close";
var MOVE_HINT = "PgUp/PgDn Home/End";
var HINT_SEPARATOR = " • ";
var EMPTY = "(no pruned tool calls in this session)";
var OVERLAY_FOOTER = "↑/↓ PgUp/PgDn/Space Home/End scroll • Ctrl-O/Esc/q close";
var MARKER = "→ ";
var NO_MARKER = "  ";
var HEIGHT_SHARE = 0.8;
var MIN_BODY_ROWS = 3;
var META_GAP = 2;
var MIN_LABEL_WIDTH = 12;
var FACT_SEPARATOR = " · ";
var RULE = /^─+$/;
var TAB = "    ";
function wrapFacts(text, width) {
  const lines = [];
  let line = "";
  for (const fact of text.split(FACT_SEPARATOR)) {
    const joined = line ? `${line}${FACT_SEPARATOR}${fact}` : fact;
    if (visibleWidth(joined) <= width) {
      line = joined;
      continue;
    }
    if (line)
      lines.push(`${line}${FACT_SEPARATOR.trimEnd()}`);
    const pieces = wrapTextWithAnsi(fact, width);
    lines.push(...pieces.slice(0, -1));
    line = pieces.at(-1) ?? "";
  }
  if (line)
    lines.push(line);
  return lines;
}
function outputLines(text, width) {
  return stripTerminalSequences(text).split(`
`).flatMap((line) => wrapTextWithAnsi(replaceControlCharacters(line.replaceAll("\t", TAB)), width));
}
function leafLines(node, width, title) {
  const body = outputLines(node.detail ?? "", width);
  const sections = node.sections ?? [];
  if (sections.length === 0)
    return body;
  const titled = (heading, lines) => [title(truncateToWidth2(plainText(`${heading}:`), width, "…")), ...lines];
  return [
    ...sections.flatMap((section) => [...titled(section.title, outputLines(section.text, width)), ""]),
    ...titled(OUTPUT_SECTION, body)
  ];
}
function plainText(text) {
  return replaceControlCharacters(stripTerminalSequences(text).replaceAll("\t", " "));
}
function windowStart(focus, count, total) {
  return Math.max(0, Math.min(focus - Math.floor(count / 2), total - count));
}
function isCtrlO(data) {
  return data === "\x0F" || matchesKey(data, "ctrl+o");
}

class TreeBrowser {
  roots;
  theme;
  onDone;
  maxRows;
  boxWidth;
  rows = [];
  selected = 0;
  page = MIN_BODY_ROWS;
  overlay;
  bodyCache;
  keys;
  constructor(roots, theme, onDone, keybindings, maxRows = () => Number.POSITIVE_INFINITY, boxWidth = (width) => width) {
    this.roots = roots;
    this.theme = theme;
    this.onDone = onDone;
    this.maxRows = maxRows;
    this.boxWidth = boxWidth;
    this.keys = keybindings ?? getKeybindings();
    this.rebuildRows();
  }
  invalidate() {
    this.rebuildRows();
    this.bodyCache = undefined;
  }
  handleInput(data) {
    if (this.overlay) {
      this.handleSummaryInput(this.overlay, data);
      return;
    }
    const confirm = this.keys.matches(data, "tui.select.confirm");
    const onChild = (this.rows[this.selected]?.depth ?? 0) > 0;
    if (this.keys.matches(data, "tui.select.up"))
      this.move(-1);
    else if (this.keys.matches(data, "tui.select.down"))
      this.move(1);
    else if (this.keys.matches(data, "tui.select.pageUp"))
      this.jump(this.selected - this.page);
    else if (this.keys.matches(data, "tui.select.pageDown"))
      this.jump(this.selected + this.page);
    else if (matchesKey(data, "home"))
      this.jump(0);
    else if (matchesKey(data, "end"))
      this.jump(this.rows.length - 1);
    else if (confirm && onChild)
      this.openSelected();
    else if (confirm || data === " ")
      this.toggleSelected();
    else if (isCtrlO(data))
      this.openSelected();
    else if (this.keys.matches(data, "tui.select.cancel") || data === "q")
      this.onDone();
  }
  render(width) {
    const box = Math.max(1, Math.min(width, this.boxWidth(width)));
    return centered(this.overlay ? this.renderSummary(this.overlay, box) : this.renderTree(box), box, width);
  }
  rebuildRows() {
    const rows = [];
    const walk = (nodes) => {
      for (const node of nodes) {
        rows.push(node);
        if (node.expanded && node.children.length > 0)
          walk(node.children);
      }
    };
    walk(this.roots);
    this.rows = rows;
    this.selected = Math.max(0, Math.min(this.selected, rows.length - 1));
  }
  move(delta) {
    const count = this.rows.length;
    if (count === 0)
      return;
    this.selected = (this.selected + delta + count) % count;
  }
  jump(row) {
    this.selected = Math.max(0, Math.min(row, this.rows.length - 1));
  }
  toggleSelected() {
    const node = this.rows[this.selected];
    if (!node || node.isLeaf)
      return;
    node.expanded = !node.expanded;
    this.rebuildRows();
  }
  openSelected() {
    const node = this.rows[this.selected];
    if (!node || node.detail === undefined || node.isLeaf && node.depth === 0)
      return;
    this.overlay = { node, offset: 0, page: 1 };
  }
  handleSummaryInput(view, data) {
    const page = Math.max(1, view.page - 1);
    if (this.keys.matches(data, "tui.select.up"))
      view.offset = Math.max(0, view.offset - 1);
    else if (this.keys.matches(data, "tui.select.down"))
      view.offset += 1;
    else if (this.keys.matches(data, "tui.select.pageUp"))
      view.offset = Math.max(0, view.offset - page);
    else if (this.keys.matches(data, "tui.select.pageDown") || data === " ")
      view.offset += page;
    else if (matchesKey(data, "home"))
      view.offset = 0;
    else if (matchesKey(data, "end"))
      view.offset = Number.MAX_SAFE_INTEGER;
    else if (this.keys.matches(data, "tui.select.cancel") || data === "q" || isCtrlO(data))
      this.overlay = undefined;
  }
  border = (text) => this.theme.fg("border", text);
  bodyRows(chrome) {
    return Math.max(MIN_BODY_ROWS, Math.floor(this.maxRows()) - chrome);
  }
  renderTree(width) {
    const inner = Math.max(0, width - 2);
    if (this.rows.length === 0)
      return frame(TREE_TITLE, [this.theme.fg("muted", EMPTY)], width, { paint: this.border });
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
  hintLines(inner) {
    const whole = `${HINT}${HINT_SEPARATOR}${MOVE_HINT}`;
    const lines = visibleWidth(whole) <= inner ? [whole] : [HINT, MOVE_HINT];
    return lines.map((line) => this.theme.fg("dim", line));
  }
  renderRow(node, selected, inner) {
    const marker = selected ? this.theme.fg("accent", MARKER) : NO_MARKER;
    const lead = "  ".repeat(node.depth) + (node.isLeaf ? "  " : node.expanded ? "▾ " : "▸ ");
    const room = Math.max(0, inner - visibleWidth(MARKER) - visibleWidth(lead));
    const meta = node.meta ?? "";
    const color = node.isLeaf ? "text" : "accent";
    let text;
    if (meta && room >= visibleWidth(meta) + META_GAP + MIN_LABEL_WIDTH) {
      const labelRoom = room - visibleWidth(meta) - META_GAP;
      const label = truncateToWidth2(node.label, labelRoom, "…");
      const gap = " ".repeat(room - visibleWidth(label) - visibleWidth(meta));
      text = this.theme.fg(color, label) + gap + this.theme.fg("muted", meta);
    } else {
      const full = meta ? `${node.label} · ${meta}` : node.label;
      const label = truncateToWidth2(full, room, "…");
      text = this.theme.fg(color, label) + " ".repeat(Math.max(0, room - visibleWidth(label)));
    }
    const row = marker + lead + text;
    return selected ? this.theme.bg("selectedBg", row) : row;
  }
  markdownLines(detail, width) {
    const markdown = getMarkdownTheme();
    const rule = ` ${markdown.hr("─".repeat(Math.max(1, width - 2)))}`;
    return new Markdown(detail, 1, 0, markdown).render(width).map((line) => RULE.test(stripTerminalSequences(line).trim()) ? rule : line);
  }
  bodyLines(node, width) {
    const cached = this.bodyCache;
    if (cached && cached.node === node && cached.width === width)
      return cached.lines;
    const detail = node.detail ?? "";
    const title = (text) => this.theme.fg("accent", text);
    const lines = node.depth === 0 ? this.markdownLines(detail, width) : leafLines(node, width - 2, title).map((line) => ` ${line}`);
    this.bodyCache = { node, width, lines };
    return lines;
  }
  renderSummary(view, width) {
    const inner = Math.max(1, width - 2);
    const heading = view.node.heading;
    const header = [
      ...(heading === undefined ? wrapTextWithAnsi(view.node.label, inner) : wrapFacts(plainText(heading), inner)).map((line) => this.theme.fg("accent", line)),
      ...wrapFacts(view.node.facts ?? "Pruned summary message", inner).map((line) => this.theme.fg("dim", line))
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
var WIDTH_SHARE = 0.8;
var MIN_BOX_WIDTH = 80;
async function showTreeBrowser(ctx, roots) {
  await ctx.ui.custom((tui, theme, keybindings, done) => new TreeBrowser(roots, theme, () => done(undefined), keybindings, () => Math.floor(tui.terminal.rows * HEIGHT_SHARE), (width) => Math.max(MIN_BOX_WIDTH, Math.floor(width * WIDTH_SHARE))), { overlay: true, overlayOptions: { width: "100%", maxHeight: `${HEIGHT_SHARE * 100}%`, anchor: "center" } });
}

// src/commands/command-actions.ts
var NOT_FLUSHED = {
  empty: "nothing to summarize yet",
  "already-flushing": "a summary run is already going; try again when it ends",
  "summarizer-failed": "the summarizer could not summarize anything",
  "stale-context": "the session changed while summarizing",
  failed: "summarizing failed",
  aborted: "summarizing was stopped"
};
function flushNotice(result) {
  if (result.ok)
    return;
  const detail = result.error ? ` (${result.error})` : "";
  return {
    message: `pruner: ${NOT_FLUSHED[result.reason] ?? result.reason}${detail}`,
    type: result.reason === "empty" ? "info" : "warning"
  };
}
var nowCommand = async (deps, ctx) => {
  if (!deps.currentConfig.value.enabled) {
    warn(ctx, "Context pruning is disabled. Run /pruner on first.");
    return;
  }
  const batches = deps.capturePendingBatches(ctx);
  if (batches.length === 0) {
    info(ctx, "pruner: nothing to summarize yet");
    await deps.flushPending(ctx, { previewedBatches: batches, trigger: "manual" });
    return;
  }
  const widget = openProgressWidget(ctx, batches);
  let result;
  try {
    result = await deps.flushPending(ctx, {
      previewedBatches: batches,
      onProgress: (index, _total, _batch, stage) => stage === "start" ? widget.updateRow(index, "running", 0) : widget.updateRow(index, stage),
      onBatchTextProgress: (index, _total, _batch, received) => widget.updateRow(index, "running", received)
    });
  } finally {
    widget.clearWidget();
  }
  refreshStatus(deps, ctx);
  const notice = flushNotice(result);
  if (notice)
    safeNotify2(ctx, notice.message, notice.type);
};
function keptNote(kept, graceTurns) {
  const parts = [];
  if (kept.alreadyCompressed > 0)
    parts.push(`${plural(kept.alreadyCompressed, "prompt")} already compressed`);
  if (kept.readBack > 0) {
    parts.push(`${plural(kept.readBack, "prompt")} holding an output read back recently (kept whole for ${nextPromptsWord(graceTurns)} after the read)`);
  }
  if (kept.nothingArchivable > 0)
    parts.push(`${plural(kept.nothingArchivable, "prompt")} whose outputs are protected or could not be archived`);
  if (kept.noToolCalls > 0)
    parts.push(`${plural(kept.noToolCalls, "prompt")} with no tool output to compress`);
  if (kept.underWay > 0)
    parts.push(`${plural(kept.underWay, "prompt")} still under way`);
  return parts.length > 0 ? `: ${parts.join("; ")}` : "";
}
function savingText(tokensFewer) {
  if (tokensFewer === undefined)
    return "";
  if (tokensFewer <= 0)
    return "; the next request is no smaller (its outputs were stubs already)";
  return `; the next request is about ${tokenCountText(tokensFewer)} smaller`;
}
var compactCommand = async (deps, ctx) => {
  let result;
  try {
    result = await deps.compactChains(ctx);
  } catch (err) {
    warn(ctx, `pruner: compact failed: ${errorMessage(err)}`);
    return;
  }
  const compressed = result.compressedEntries;
  if (compressed.length === 0) {
    showReport(deps.pi, ctx, `pruner: no earlier prompt's work left to compress${keptNote(result.kept, deps.currentConfig.value.recoveryGraceTurns)}`);
    return;
  }
  const line = compressedPromptsText(compressed.length, result.prompts ?? [], result.archived ?? 0);
  showReport(deps.pi, ctx, `pruner: ${line}${savingText(result.tokensFewer)}`);
};
var treeCommand = async (deps, ctx) => {
  const roots = buildPruneTree(ctx, deps.indexer);
  if (roots.length === 0) {
    info(ctx, "No summarized tool outputs in this session yet.");
    return;
  }
  await showTreeBrowser(ctx, roots);
};
export {
  compactCommand,
  flushNotice,
  nowCommand,
  treeCommand
};
