/**
 * The plot area: the WebGL scatter (2D or 3D, loaded on demand), the hover tooltip, and labels (with sprite
 * thumbnails when the embedding has a sprite) beside the highlighted points, kept on their points while the
 * view pans, zooms or orbits.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import type { Scatter, ScatterColours, ScatterPoints } from "./scatter";

export interface Marker {
  index: number;
  label: string;
  thumb?: ComponentChildren;
}

interface Props {
  dims: 2 | 3;
  points: ScatterPoints | null;
  /** Animate from the previous positions (a new projection or step of the same points). */
  transition: boolean;
  colours: ScatterColours;
  selected: number[];
  sample: Uint32Array | null;
  size: number;
  opacity: number;
  background: string;
  markers: Marker[];
  lasso: boolean;
  camera: number[] | null;
  tooltip(index: number): ComponentChildren;
  onClick(index: number | null): void;
  onLasso(indices: number[]): void;
  onCamera(camera: number[]): void;
  onDrawn(scatter: Scatter): void;
  onError(message: string): void;
}

export function Plot(props: Props) {
  const box = useRef<HTMLDivElement>(null);
  const scatter = useRef<Scatter | null>(null);
  const queue = useRef<Promise<unknown>>(Promise.resolve());
  const latest = useRef(props);
  latest.current = props;
  const [hover, setHover] = useState<{ index: number; x: number; y: number } | null>(null);
  const [, setViewTick] = useState(0);
  const [made, setMade] = useState(0);

  // One scatter per dimension count: made when the plot mounts or switches between 2D and 3D.
  useEffect(() => {
    let live = true;
    const container = box.current!;
    let viewFrame = 0;
    const events = {
      hover: (index: number | null, x: number, y: number) => setHover(index === null ? null : { index, x, y }),
      click: (index: number | null) => latest.current.onClick(index),
      lasso: (indices: number[]) => latest.current.onLasso(indices),
      view: () => {
        if (viewFrame) return;
        viewFrame = requestAnimationFrame(() => {
          viewFrame = 0;
          setViewTick((t) => t + 1);
          if (scatter.current) latest.current.onCamera(scatter.current.camera());
        });
      },
    };
    const load = props.dims === 3 ? import("./scatter3d").then((m) => m.createScatter3D) : import("./scatter2d").then((m) => m.createScatter2D);
    queue.current = load
      .then((create) => {
        if (!live) return;
        scatter.current = create(container, events);
        scatter.current.setBackground(latest.current.background);
        if (latest.current.camera) scatter.current.setCamera(latest.current.camera);
        setMade((m) => m + 1);
      })
      .catch((err: unknown) => latest.current.onError(`the WebGL plot could not start: ${err instanceof Error ? err.message : String(err)}`));
    const observer = new ResizeObserver(() => scatter.current?.resize());
    observer.observe(container);
    return () => {
      live = false;
      observer.disconnect();
      cancelAnimationFrame(viewFrame);
      scatter.current?.destroy();
      scatter.current = null;
    };
  }, [props.dims]);

  // Points (and colours with them): drawn in order, each after the previous draw finished.
  useEffect(() => {
    const points = props.points;
    if (!points || made === 0) return;
    const { colours, transition } = props;
    queue.current = queue.current.then(async () => {
      const plot = scatter.current;
      if (!plot) return;
      await plot.draw(points, colours, transition);
      plot.select(latest.current.selected);
      plot.show(latest.current.sample);
      plot.style(latest.current.size, latest.current.opacity);
      latest.current.onDrawn(plot);
    });
  }, [props.points, made]);

  useEffect(() => {
    if (made) scatter.current?.recolour(props.colours);
  }, [props.colours]);
  useEffect(() => {
    if (made) scatter.current?.select(props.selected);
  }, [props.selected]);
  useEffect(() => {
    if (made) scatter.current?.show(props.sample);
  }, [props.sample]);
  useEffect(() => {
    if (made) scatter.current?.style(props.size, props.opacity);
  }, [props.size, props.opacity]);
  useEffect(() => {
    if (made) scatter.current?.setBackground(props.background);
  }, [props.background]);
  useEffect(() => {
    if (made) scatter.current?.setLasso(props.lasso);
  }, [props.lasso, made]);

  // Marker positions are read from the scatter at each render: a view change re-renders (viewTick).
  const plot = scatter.current;
  const positions = new Map<number, [number, number]>();
  if (plot) {
    for (const m of props.markers) {
      const at = plot.screenPosition(m.index);
      if (at) positions.set(m.index, at);
    }
  }

  const rect = box.current?.getBoundingClientRect();
  return (
    <div class="rl-proj-plot" ref={box}>
      {props.markers.map((m) => {
        const at = positions.get(m.index);
        return at ? (
          <div key={m.index} class="rl-proj-marker" style={{ left: `${at[0] + 6}px`, top: `${at[1] - 8}px` }} data-testid="projector-marker">
            {m.thumb}
            <span>{m.label}</span>
          </div>
        ) : null;
      })}
      {hover && rect && (
        <div
          class="rl-proj-tooltip"
          role="tooltip"
          data-testid="projector-tooltip"
          style={{ left: `${Math.min(hover.x - rect.left + 14, rect.width - 240)}px`, top: `${hover.y - rect.top + 14}px` }}
        >
          {props.tooltip(hover.index)}
        </div>
      )}
    </div>
  );
}
