/**
 * A titled single-line box drawn by the component itself: every row is exactly the given
 * width, padded with spaces, so an overlay covers what lies behind it in full.
 */
import { truncateToWidth, visibleWidth } from "@earendil-works/pi-tui";

export interface FrameOptions {
  /** Short text set into the bottom edge (a scroll position, for example). */
  status?: string;
  /** Colours the box lines. */
  paint?: (text: string) => string;
  /** Blank columns between the side lines and the content. */
  padding?: number;
}

function edge(left: string, label: string, right: string, inner: number, paint: (text: string) => string): string {
  const text = label ? truncateToWidth(`─ ${label} `, inner, "") : "";
  return paint(`${left}${text}${"─".repeat(Math.max(0, inner - visibleWidth(text)))}${right}`);
}

/** `lines` inside a box of `width` columns titled `title`; lines too long end in `…`. */
export function frame(title: string, lines: readonly string[], width: number, options: FrameOptions = {}): string[] {
  const paint = options.paint ?? ((text: string) => text);
  const inner = Math.max(0, width - 2);
  const pad = Math.min(options.padding ?? 0, Math.floor(inner / 4));
  const room = inner - 2 * pad;
  const side = paint("│");
  const gap = " ".repeat(pad);
  const body = lines.map((line) => `${side}${gap}${truncateToWidth(line, room, "…", true)}${gap}${side}`);
  return [edge("┌", title, "┐", inner, paint), ...body, edge("└", options.status ?? "", "┘", inner, paint)];
}

/**
 * A box's rows set in the middle of a row `width` columns wide, blank on both sides: an overlay drawn this
 * way covers the chat beside the box, so no chat text shows through or past its edges.
 */
export function centered(lines: readonly string[], boxWidth: number, width: number): string[] {
  const spare = Math.max(0, width - boxWidth);
  const left = " ".repeat(Math.floor(spare / 2));
  const right = " ".repeat(spare - left.length);
  return lines.map((line) => `${left}${line}${right}`);
}
