/**
 * The trace's timeline on a canvas: one band per lane (CPU threads, then device streams), a row per nesting depth.
 * The server sends each visible window at the level of detail it can show (spans at least a pixel wide, blocks for
 * the rest): the wheel zooms around the pointer, a drag pans, and every change asks for the new window (the
 * previous request is aborted). A click on a span shows its args.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { getJson } from "@api/client";
import { type EventAnswer, type Lane, type TimelineAnswer, us } from "./api";

const ROW = 14;
const LABEL = 180;

function colour(name: string): string {
  let hash = 0;
  for (let i = 0; i < name.length; i++) hash = (hash * 31 + name.charCodeAt(i)) | 0;
  return `hsl(${Math.abs(hash) % 360} 55% 55%)`;
}

export function Timeline({ run, trace }: { run: string; trace: string }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const [frame, setFrame] = useState<TimelineAnswer | null>(null);
  const [view, setView] = useState<[number, number] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [picked, setPicked] = useState<EventAnswer | null>(null);
  const [frames, setFrames] = useState(0);
  const width = 1000;

  useEffect(() => {
    const controller = new AbortController();
    const params = { run, trace, width, ...(view ? { start: view[0], end: view[1] } : {}) };
    getJson<TimelineAnswer>("/api/profile/timeline", params, { signal: controller.signal })
      .then((answer) => { setFrame(answer); setError(null); setFrames((n) => n + 1); })
      .catch((err: unknown) => { if (!controller.signal.aborted) setError(String(err instanceof Error ? err.message : err)); });
    return () => controller.abort();
  }, [run, trace, view?.[0], view?.[1]]);

  const layout = (lanes: Lane[]) => {
    const top = new Map<number, number>();
    let y = 0;
    for (const lane of lanes) { top.set(lane.lane, y); y += (lane.depth + 1) * ROW; }
    return { top, height: Math.max(y, ROW) };
  };

  useEffect(() => {
    const element = canvas.current;
    if (!element || !frame) return;
    const { top, height } = layout(frame.lanes);
    element.width = LABEL + width;
    element.height = height;
    const g = element.getContext("2d");
    if (!g) return;
    const css = getComputedStyle(element);
    g.clearRect(0, 0, element.width, element.height);
    const scale = width / (frame.end - frame.start);
    const x = (t: number) => LABEL + (t - frame.start) * scale;
    for (const row of frame.rows) {
      const y = (top.get(row.lane) ?? 0) + ROW + row.depth * ROW;
      for (const [from, to, busy] of row.blocks) {
        g.fillStyle = `rgba(128,128,128,${0.25 + 0.6 * busy})`;
        g.fillRect(Math.max(x(from), LABEL), y, Math.max(x(to) - x(from), 1), ROW - 2);
      }
      for (let i = 0; i < row.ids.length; i++) {
        const name = frame.names[String(row.name[i])] ?? "";
        const left = Math.max(x(row.ts[i]), LABEL);
        const right = Math.min(x(row.ts[i] + row.dur[i]), LABEL + width);
        g.fillStyle = colour(name);
        g.fillRect(left, y, Math.max(right - left, 1), ROW - 2);
        if (right - left > 40) {
          g.fillStyle = "#000";
          g.font = "10px sans-serif";
          g.fillText(name.slice(0, Math.floor((right - left) / 6)), left + 2, y + ROW - 4, right - left - 4);
        }
      }
    }
    g.fillStyle = css.getPropertyValue("--fg") || "#222";
    g.font = "11px sans-serif";
    for (const lane of frame.lanes) g.fillText(lane.label.slice(0, 30), 2, (top.get(lane.lane) ?? 0) + 11, LABEL - 4);
  }, [frame]);

  const extent = frame?.extent;
  const current: [number, number] | null = view ?? (extent ? [extent[0], extent[1]] : null);

  const onWheel = (event: WheelEvent) => {
    if (!current || !extent) return;
    event.preventDefault();
    const box = (event.currentTarget as HTMLCanvasElement).getBoundingClientRect();
    const fraction = Math.min(Math.max((event.clientX - box.left - LABEL) / width, 0), 1);
    const span = current[1] - current[0];
    const next = Math.max(span * (event.deltaY < 0 ? 0.5 : 2), 1);  // down to 1 µs across the canvas
    const at = current[0] + fraction * span;
    const start = Math.max(extent[0], at - fraction * next);
    setView([start, Math.min(extent[1], start + next)]);
  };

  const drag = useRef<{ x: number; view: [number, number] } | null>(null);
  const onDown = (event: MouseEvent) => { if (current) drag.current = { x: event.clientX, view: current }; };
  const onUp = (event: MouseEvent) => {
    const start = drag.current;
    drag.current = null;
    if (!start || !frame) return;
    const moved = event.clientX - start.x;
    if (Math.abs(moved) > 3) {
      const shift = (-moved / width) * (start.view[1] - start.view[0]);
      setView([start.view[0] + shift, start.view[1] + shift]);
      return;
    }
    pick(event);
  };

  const pick = (event: MouseEvent) => {
    if (!frame) return;
    const box = (event.currentTarget as HTMLCanvasElement).getBoundingClientRect();
    const px = event.clientX - box.left, py = event.clientY - box.top;
    const t = frame.start + ((px - LABEL) / width) * (frame.end - frame.start);
    const tolerance = (2 / width) * (frame.end - frame.start);
    const { top } = layout(frame.lanes);
    for (const row of frame.rows) {
      const y = (top.get(row.lane) ?? 0) + ROW + row.depth * ROW;
      if (py < y || py >= y + ROW) continue;
      for (let i = 0; i < row.ids.length; i++) {
        if (row.ts[i] - tolerance <= t && t <= row.ts[i] + row.dur[i] + tolerance) {
          getJson<EventAnswer>("/api/profile/event", { run, trace, id: row.ids[i] }).then(setPicked, (err) => setError(String(err)));
          return;
        }
      }
    }
  };

  return (
    <div class="pf-timeline" data-testid="profile-timeline" data-frames={frames}
      data-start={frame?.start ?? ""} data-end={frame?.end ?? ""}>
      <div class="pf-toolbar">
        <span data-testid="timeline-window">{frame ? `${us(frame.end - frame.start)} shown` : "loading…"}</span>
        <button type="button" onClick={() => setView(null)}>Reset zoom</button>
        <a href={`api/profile/download?run=${encodeURIComponent(run)}&trace=${encodeURIComponent(trace)}`}
          download={trace} data-testid="profile-download">Open in Perfetto (download the trace)</a>
      </div>
      {error && <p class="pf-error" role="alert">{error}</p>}
      <div class="pf-canvas-box">
        <canvas ref={canvas} data-testid="timeline-canvas" onWheel={onWheel} onMouseDown={onDown} onMouseUp={onUp} />
      </div>
      {picked && (
        <div class="pf-event" data-testid="profile-event">
          <strong>{picked.name}</strong> <span>{picked.cat}</span> · {us(picked.dur)} · {picked.lane}
          <pre>{JSON.stringify(picked.args, null, 2)}</pre>
        </div>
      )}
    </div>
  );
}
