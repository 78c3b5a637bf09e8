/**
 * The trace's timeline on a canvas: one band per lane (CPU threads, then device streams), a row per nesting depth.
 * The server sends each visible window at the level of detail it can show (spans at least a pixel wide, blocks for
 * the rest), in its binary form (./frame.ts). The wheel zooms around the pointer and a drag pans; either redraws
 * the last frame rescaled to the new window in the next animation frame, without waiting for the server, and asks
 * for the new window at once, aborting the request it supersedes. The exact frame replaces the rescaled one when
 * it lands. A click on a span shows its args.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { getJson } from "@api/client";
import { type EventAnswer, us } from "./api";
import { fetchFrame, type TimelineFrame } from "./frame";
import { drawFrame, LABEL, layout, ROW, WIDTH } from "./draw";

type Window = [number, number];

interface Live {
  frame: TimelineFrame | null; // the last exact frame
  view: Window | null; // the window on screen (or about to be)
  controller: AbortController | null; // the request in flight
  pending: number; // the scheduled animation frame, 0 for none
  drag: { x: number; view: Window; moved: boolean } | null;
}

export function Timeline({ run, trace }: { run: string; trace: string }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const [frame, setFrame] = useState<TimelineFrame | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [picked, setPicked] = useState<EventAnswer | null>(null);
  const [frames, setFrames] = useState(0);
  const live = useRef<Live>({ frame: null, view: null, controller: null, pending: 0, drag: null }).current;

  const paint = () => {
    live.pending = 0;
    const element = canvas.current;
    if (element && live.frame && live.view) drawFrame(element, live.frame, live.view);
  };
  const schedule = () => {
    if (!live.pending) live.pending = requestAnimationFrame(paint);
  };

  const request = (view: Window | null) => {
    live.controller?.abort();
    const controller = new AbortController();
    live.controller = controller;
    const query = { run, trace, width: WIDTH, ...(view ? { start: view[0], end: view[1] } : {}) };
    fetchFrame(query, controller.signal).then(
      (answer) => {
        if (controller.signal.aborted) return;
        live.controller = null;
        live.frame = answer;
        live.view ??= [answer.start, answer.end];
        schedule();
        setFrame(answer);
        setError(null);
        setFrames((n) => n + 1);
      },
      (err: unknown) => {
        if (!controller.signal.aborted) setError(String(err instanceof Error ? err.message : err));
      },
    );
  };

  /** Show `view` in the next animation frame (the last frame rescaled) and ask for it. */
  const show = (view: Window) => {
    live.view = view;
    schedule();
    request(view);
  };

  useEffect(() => {
    live.frame = null;
    live.view = null;
    request(null);
    return () => {
      live.controller?.abort();
      if (live.pending) cancelAnimationFrame(live.pending);
      live.pending = 0;
    };
  }, [run, trace]);

  const fraction = (event: MouseEvent) => {
    const box = (event.currentTarget as HTMLCanvasElement).getBoundingClientRect();
    return Math.min(Math.max((event.clientX - box.left - LABEL) / WIDTH, 0), 1);
  };

  const onWheel = (event: WheelEvent) => {
    const current = live.view, extent = live.frame?.extent;
    if (!current || !extent) return;
    event.preventDefault();
    const at = fraction(event);
    const span = current[1] - current[0];
    const next = Math.max(span * (event.deltaY < 0 ? 0.5 : 2), 1); // down to 1 µs across the canvas
    const centre = current[0] + at * span;
    const start = Math.max(extent[0], centre - at * next);
    show([start, Math.min(extent[1], start + next)]);
  };

  const shifted = (event: MouseEvent, drag: NonNullable<Live["drag"]>): Window => {
    const shift = (-(event.clientX - drag.x) / WIDTH) * (drag.view[1] - drag.view[0]);
    return [drag.view[0] + shift, drag.view[1] + shift];
  };
  const onDown = (event: MouseEvent) => {
    if (live.view) live.drag = { x: event.clientX, view: live.view, moved: false };
  };
  const onMove = (event: MouseEvent) => {
    const drag = live.drag;
    if (drag && !(event.buttons & 1)) { // released outside the canvas: the drag ends where it was
      live.drag = null;
      if (drag.moved && live.view) show(live.view);
      return;
    }
    if (!drag || (!drag.moved && Math.abs(event.clientX - drag.x) <= 3)) return;
    drag.moved = true;
    live.view = shifted(event, drag);
    schedule();
  };
  const onUp = (event: MouseEvent) => {
    const drag = live.drag;
    live.drag = null;
    if (!drag || !live.frame) return;
    if (drag.moved || Math.abs(event.clientX - drag.x) > 3) {
      show(shifted(event, drag));
      return;
    }
    pick(event);
  };

  const pick = (event: MouseEvent) => {
    const shown = live.frame, view = live.view;
    if (!shown || !view) return;
    const box = (event.currentTarget as HTMLCanvasElement).getBoundingClientRect();
    const px = event.clientX - box.left, py = event.clientY - box.top;
    const t = view[0] + ((px - LABEL) / WIDTH) * (view[1] - view[0]);
    const tolerance = (2 / WIDTH) * (view[1] - view[0]);
    const { top } = layout(shown.lanes);
    for (const row of shown.rows) {
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

  const reset = () => {
    const extent = live.frame?.extent;
    if (extent) show([extent[0], extent[1]]);
  };

  return (
    <div class="pf-timeline" data-testid="profile-timeline" data-frames={frames}
      data-start={frame?.start ?? ""} data-end={frame?.end ?? ""}>
      <div class="pf-toolbar">
        <span data-testid="timeline-window">{frame ? `${us(frame.end - frame.start)} shown` : "loading…"}</span>
        <button type="button" onClick={reset}>Reset zoom</button>
        <a href={`api/profile/download?run=${encodeURIComponent(run)}&trace=${encodeURIComponent(trace)}`}
          download={trace} data-testid="profile-download">Open in Perfetto (download the trace)</a>
      </div>
      {error && <p class="pf-error" role="alert">{error}</p>}
      <div class="pf-canvas-box">
        <canvas ref={canvas} data-testid="timeline-canvas" onWheel={onWheel} onMouseDown={onDown}
          onMouseMove={onMove} onMouseUp={onUp} />
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
