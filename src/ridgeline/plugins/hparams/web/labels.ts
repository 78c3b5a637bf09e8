/**
 * Axis titles that fit their slot: a title wraps at its natural breaks ("/", "_", "-", ".", spaces) onto at most
 * a few lines no wider than the slot, and what still does not fit loses its middle, not its end ("hparam/val…
 * top5 (best ↑)"), since the end is what tells a sweep's metrics apart. Widths come from a measuring function
 * (the canvas's in the page, a fixed width per character in tests).
 */

export type Measure = (text: string) => number;

/** Pieces of `label` that a line may end after: each keeps the separator that follows it. */
function pieces(label: string): string[] {
  return label.match(/[^\s/_\-.]+[\s/_\-.]*|[\s/_\-.]+/g) ?? [label];
}

/** `text` cut in the middle with "…" until it measures at most `width`, keeping twice as much of its end. */
export function middleEllipsis(text: string, width: number, measure: Measure): string {
  if (measure(text) <= width) return text;
  let keep = text.length - 1;
  while (keep > 1) {
    const head = Math.ceil(keep / 3);
    const cut = `${text.slice(0, head)}…${text.slice(text.length - (keep - head))}`;
    if (measure(cut) <= width) return cut;
    keep--;
  }
  return "…";
}

/** `label` on at most `maxLines` lines no wider than `width` (the last cut in the middle if needed). */
export function wrapLabel(label: string, width: number, measure: Measure, maxLines = 3): string[] {
  const lines: string[] = [];
  let line = "";
  for (const piece of pieces(label)) {
    if (line && measure(line + piece) > width) {
      lines.push(line);
      line = "";
    }
    line += piece;
  }
  if (line) lines.push(line);
  if (lines.length > maxLines) {
    const rest = lines.splice(maxLines - 1).join("");
    lines.push(rest);
  }
  return lines.map((l) => middleEllipsis(l.trimEnd(), width, measure));
}

let canvas: CanvasRenderingContext2D | null | undefined;

/** Measures text in `font` (a CSS font shorthand) with a canvas; a rough 0.6 em per character without one. */
export function canvasMeasure(font: string): Measure {
  if (canvas === undefined) canvas = document.createElement("canvas").getContext("2d");
  const ctx = canvas;
  if (!ctx) {
    const size = Number.parseFloat(font.match(/(\d+(?:\.\d+)?)px/)?.[1] ?? "12");
    return (text) => text.length * size * 0.6;
  }
  return (text) => {
    ctx.font = font;
    return ctx.measureText(text).width;
  };
}
