/**
 * Drawing a timeline frame onto the canvas for a window that may not be the frame's own: while the exact frame of
 * a new window is on its way, the last one is drawn rescaled (stretched when zooming in, with blank margins where
 * it has nothing when zooming out or panning). The canvas says what it shows in `data-shown-start`,
 * `data-shown-end` and `data-draws` (read by the tests and bench/profile_timeline.py).
 */
import type { Lane } from "./api";
import type { TimelineFrame } from "./frame";

export const ROW = 14;
export const LABEL = 180;
export const WIDTH = 1000;

const colours = new Map<string, string>();
function colour(name: string): string {
  let found = colours.get(name);
  if (found === undefined) {
    let hash = 0;
    for (let i = 0; i < name.length; i++) hash = (hash * 31 + name.charCodeAt(i)) | 0;
    found = `hsl(${Math.abs(hash) % 360} 55% 55%)`;
    if (colours.size < 100_000) colours.set(name, found);
  }
  return found;
}

const GREYS = Array.from({ length: 17 }, (_, i) => `rgba(128,128,128,${(0.25 + (0.6 * i) / 16).toFixed(3)})`);

export function layout(lanes: Lane[]): { top: Map<number, number>; height: number } {
  const top = new Map<number, number>();
  let y = 0;
  for (const lane of lanes) { top.set(lane.lane, y); y += (lane.depth + 1) * ROW; }
  return { top, height: Math.max(y, ROW) };
}

/** `frame` drawn on `element` as the window `view` ([start, end), µs) shows it. */
export function drawFrame(element: HTMLCanvasElement, frame: TimelineFrame, view: [number, number]): void {
  const { top, height } = layout(frame.lanes);
  if (element.width !== LABEL + WIDTH) element.width = LABEL + WIDTH; // resizing clears and reallocates: only on change
  if (element.height !== height) element.height = height;
  const g = element.getContext("2d");
  if (!g) return;
  g.clearRect(0, 0, element.width, element.height);
  const [start, end] = view;
  const scale = WIDTH / (end - start);
  const left = LABEL, right = LABEL + WIDTH;
  g.font = "10px sans-serif";
  for (const row of frame.rows) {
    const y = (top.get(row.lane) ?? 0) + ROW + row.depth * ROW;
    const blocks = row.blocks;
    for (let i = 0; i < blocks.length; i += 3) {
      const from = LABEL + (blocks[i] - start) * scale, to = LABEL + (blocks[i + 1] - start) * scale;
      if (to < left || from > right) continue;
      g.fillStyle = GREYS[Math.round(Math.min(Math.max(blocks[i + 2], 0), 1) * 16)];
      const x = Math.max(from, left);
      g.fillRect(x, y, Math.max(Math.min(to, right) - x, 1), ROW - 2);
    }
    for (let i = 0; i < row.ids.length; i++) {
      const from = LABEL + (row.ts[i] - start) * scale, to = LABEL + (row.ts[i] + row.dur[i] - start) * scale;
      if (to < left || from > right) continue;
      const x = Math.max(from, left), w = Math.max(Math.min(to, right) - x, 1);
      const name = frame.names[String(row.name[i])] ?? "";
      g.fillStyle = colour(name);
      g.fillRect(x, y, w, ROW - 2);
      if (w > 40) {
        g.fillStyle = "#000";
        g.fillText(name.slice(0, Math.floor(w / 6)), x + 2, y + ROW - 4, w - 4);
      }
    }
  }
  g.fillStyle = getComputedStyle(element).getPropertyValue("--fg") || "#222";
  g.font = "11px sans-serif";
  for (const lane of frame.lanes) g.fillText(lane.label.slice(0, 30), 2, (top.get(lane.lane) ?? 0) + 11, LABEL - 4);
  element.dataset.shownStart = String(start);
  element.dataset.shownEnd = String(end);
  element.dataset.draws = String(Number(element.dataset.draws ?? 0) + 1);
}
