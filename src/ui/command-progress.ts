/**
 * The `/pruner now` progress widget: one row per batch above the editor,
 * with a braille spinner while a batch is being summarized.
 */
import type { ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import { truncateToWidth } from "@earendil-works/pi-tui";
import { plural } from "../format/plural.js";
import { formatCharProgress } from "../summarize/stats.js";
import { PROGRESS_WIDGET_ID } from "../names.js";
import type { CapturedBatch } from "../capture/records.js";

export type RowStatus = "pending" | "running" | "done" | "skipped";

export interface ProgressRow {
  label: string;
  toolCallCount: number;
  rawChars: number;
  status: RowStatus;
  receivedChars: number;
}

export interface ProgressWidget {
  updateRow(index: number, status: RowStatus, chars?: number): void;
  clearWidget(): void;
}

export const SPINNER_FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const FRAME_MS = 120;

export function buildProgressRows(batches: CapturedBatch[]): ProgressRow[] {
  return batches.map((batch, i) => ({
    label: `Batch ${i + 1}/${batches.length}`,
    toolCallCount: batch.toolCalls.length,
    rawChars: batch.toolCalls.reduce((sum, call) => sum + (call.resultText?.length ?? 0), 0),
    status: "pending",
    receivedChars: 0,
  }));
}

export function renderProgressRow(row: ProgressRow, now: number): string {
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

export function openProgressWidget(
  ctx: ExtensionCommandContext,
  batches: CapturedBatch[],
  now: () => number = Date.now,
): ProgressWidget {
  const rows = buildProgressRows(batches);
  let requestRender: (() => void) | undefined;
  let timer: ReturnType<typeof setInterval> | undefined;
  let cleared = false;

  const syncTimer = (): void => {
    const running = rows.some((row) => row.status === "running");
    if (running && !timer) {
      timer = setInterval(() => requestRender?.(), FRAME_MS);
      timer.unref?.();
    } else if (!running && timer) {
      clearInterval(timer);
      timer = undefined;
    }
  };

  ctx.ui.setWidget(
    PROGRESS_WIDGET_ID,
    (tui) => {
      requestRender = () => tui.requestRender();
      return {
        invalidate() {},
        render: (width: number) => rows.map((row) => truncateToWidth(renderProgressRow(row, now()), width)),
      };
    },
    { placement: "aboveEditor" },
  );

  return {
    updateRow(index, status, chars) {
      const row = rows[index];
      if (!row || cleared) return;
      row.status = status;
      if (chars !== undefined) row.receivedChars = chars;
      syncTimer();
      requestRender?.();
    },
    clearWidget() {
      cleared = true;
      if (timer) clearInterval(timer);
      timer = undefined;
      requestRender = undefined;
      ctx.ui.setWidget(PROGRESS_WIDGET_ID, undefined);
    },
  };
}
