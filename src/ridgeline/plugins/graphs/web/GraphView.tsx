/**
 * The laid-out graph as SVG, with pan (drag the background) and zoom (wheel, or the buttons). Boxes show their
 * last name part in full (the box was sized to fit it) and the full name on hover; a scope is a box with a +
 * (collapsed) or a frame with a − in its header (expanded): a click on either toggles it. Edges carry their
 * tensor shape on a label with the page's background behind it, at a fixed font size that stays readable.
 */
import type { JSX } from "preact";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { fileName, graphPng, graphSvg, save } from "./download";
import { FONT_EDGE, FONT_SUB, FONT_TITLE, type Layout, type PlacedBox } from "./layout";

export interface View {
  x: number;
  y: number;
  k: number;
}

interface Props {
  layout: Layout;
  /** Fit the view to this layout when it arrives (a new graph, expand all, collapse all). */
  fit: boolean;
  selected: string | null;
  matches: Set<string>;
  /** A box to bring into view (changes identity to ask again). */
  focus: { id: string } | null;
  onSelect(box: PlacedBox | null): void;
  onToggle(box: PlacedBox): void;
  onDrawn(): void;
  /** The run and tag drawn (the downloads' file names). */
  run: string;
  tag: string;
}

const MIN_K = 0.01;
const MAX_K = 4;

const READABLE = 0.7; // the scale from which node names (13 px) and tensor shapes (11 px) read without zooming

/**
 * The fitted view (the first one, after "Expand all" or "Collapse all", and the Fit button): the whole graph,
 * centred, when its names read at that scale (at most 125 %); else as much as reads: the whole width from the top
 * (where the data flow starts) when that reads, else the top-left corner at the smallest readable scale. The rest
 * is a drag or a scroll away; a graph drawn smaller than READABLE is boxes without names.
 */
export function fitView(layout: Layout, width: number, height: number): View {
  const fitWidth = (width - 16) / Math.max(layout.width, 1);
  const fitHeight = (height - 16) / Math.max(layout.height, 1);
  const all = Math.max(MIN_K, Math.min(1.25, fitWidth, fitHeight));
  if (all >= READABLE) return { x: (width - layout.width * all) / 2, y: Math.max(8, (height - layout.height * all) / 2), k: all };
  const k = Math.max(READABLE, Math.min(1.25, fitWidth));
  const x = layout.width * k <= width - 16 ? (width - layout.width * k) / 2 : 8;
  return { x, y: 8, k };
}

/** A view showing `box`: centred when it fits, else its top-left corner (a scope's header) near the corner. */
export function focusView(box: PlacedBox, current: number, width: number, height: number): View {
  const k = Math.max(current, 0.8);
  const fitsX = box.width * k <= width - 32;
  const fitsY = box.height * k <= height - 32;
  return {
    k,
    x: fitsX ? width / 2 - (box.x + box.width / 2) * k : 16 - box.x * k,
    y: fitsY ? height / 2 - (box.y + box.height / 2) * k : 16 - box.y * k,
  };
}

export function GraphView({ layout, fit, selected, matches, focus, onSelect, onToggle, onDrawn, run, tag }: Props) {
  const svgRef = useRef<SVGSVGElement>(null);
  const [downloadError, setDownloadError] = useState<string | null>(null);
  const download = (ext: "svg" | "png") => {
    const svg = svgRef.current;
    if (!svg) return;
    setDownloadError(null);
    const text = graphSvg(svg, layout);
    if (ext === "svg") save(new Blob([text], { type: "image/svg+xml" }), fileName(run, tag, "svg"));
    else
      graphPng(text, layout)
        .then((blob) => save(blob, fileName(run, tag, "png")))
        .catch((err: unknown) => setDownloadError(err instanceof Error ? err.message : String(err)));
  };
  const [view, setView] = useState<View | null>(null);
  const drag = useRef<{ x: number; y: number; vx: number; vy: number; moved: boolean } | null>(null);

  // A new layout keeps the view when it is a toggle of the same graph (the user is looking there), else fits.
  const fitted = useRef(false);
  useLayoutEffect(() => {
    const svg = svgRef.current;
    if (!svg) return;
    if (!fitted.current || view === null || fit) {
      setView(fitView(layout, svg.clientWidth, svg.clientHeight));
      fitted.current = true;
    }
  }, [layout]);

  useEffect(() => {
    if (view !== null) onDrawn();
  }, [layout, view !== null]);

  useEffect(() => {
    const svg = svgRef.current;
    if (!focus || !svg) return;
    const box = layout.boxes.find((b) => b.box.id === focus.id);
    if (!box) return;
    setView(focusView(box, view?.k ?? 1, svg.clientWidth, svg.clientHeight));
  }, [focus, layout]);

  // Wheel zoom around the cursor (a non-passive listener: the page must not scroll meanwhile).
  useEffect(() => {
    const svg = svgRef.current;
    if (!svg) return;
    const wheel = (event: WheelEvent) => {
      event.preventDefault();
      const rect = svg.getBoundingClientRect();
      const px = event.clientX - rect.left;
      const py = event.clientY - rect.top;
      setView((v) => {
        if (!v) return v;
        const k = Math.min(MAX_K, Math.max(MIN_K, v.k * Math.exp(-event.deltaY * 0.0015)));
        return { k, x: px - ((px - v.x) * k) / v.k, y: py - ((py - v.y) * k) / v.k };
      });
    };
    svg.addEventListener("wheel", wheel, { passive: false });
    return () => svg.removeEventListener("wheel", wheel);
  }, []);

  const zoom = (factor: number) => {
    const svg = svgRef.current;
    if (!svg) return;
    const cx = svg.clientWidth / 2;
    const cy = svg.clientHeight / 2;
    setView((v) => {
      if (!v) return v;
      const k = Math.min(MAX_K, Math.max(MIN_K, v.k * factor));
      return { k, x: cx - ((cx - v.x) * k) / v.k, y: cy - ((cy - v.y) * k) / v.k };
    });
  };

  const onPointerDown = (event: PointerEvent) => {
    if (event.button !== 0 || !view) return;
    drag.current = { x: event.clientX, y: event.clientY, vx: view.x, vy: view.y, moved: false };
  };
  const onPointerMove = (event: PointerEvent) => {
    const d = drag.current;
    if (!d) return;
    const dx = event.clientX - d.x;
    const dy = event.clientY - d.y;
    if (!d.moved && Math.abs(dx) + Math.abs(dy) < 4) return;
    if (!d.moved) svgRef.current?.setPointerCapture(event.pointerId);
    d.moved = true;
    setView((v) => (v ? { ...v, x: d.vx + dx, y: d.vy + dy } : v));
  };
  const onPointerUp = (event: PointerEvent) => {
    const d = drag.current;
    drag.current = null;
    if (d?.moved) {
      svgRef.current?.releasePointerCapture(event.pointerId);
      return;
    }
    activate(event.target as Element);
  };
  /** A click (or Enter/Space on a focused box): select it; a collapsed scope or a header's toggle also toggles. */
  const activate = (element: Element) => {
    const target = element.closest("[data-box]");
    const box = target ? layout.boxes.find((b) => b.box.id === target.getAttribute("data-box")) : undefined;
    if (!box) {
      onSelect(null);
      return;
    }
    const toggle = element.closest("[data-toggle]");
    if (box.box.kind === "scope" || toggle) onToggle(box);
    onSelect(box);
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key !== "Enter" && event.key !== " ") return;
    const target = event.target as Element;
    if (!target.closest("[data-box]")) return;
    event.preventDefault();
    activate(target);
  };

  const ready = view !== null;
  return (
    <div class="rl-graph-canvas">
      <svg
        ref={svgRef}
        class="rl-graph-svg"
        data-testid="graph-svg"
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={onPointerUp}
        onKeyDown={onKeyDown}
      >
        <defs>
          <marker id="rl-graph-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
            <path d="M 0 0 L 10 5 L 0 10 z" class="rl-graph-arrowhead" />
          </marker>
        </defs>
        {ready && (
          <g transform={`translate(${view.x},${view.y}) scale(${view.k})`}>
            {layout.boxes.filter((b) => b.box.kind === "group").map((b) => (
              <GroupBox key={b.box.id} placed={b} selected={selected === b.box.id} matched={matches.has(b.box.id)} />
            ))}
            {layout.edges.map((e) => (
              <path
                key={e.id}
                class={`rl-graph-edge${e.control ? " rl-graph-edge-control" : ""}`}
                d={pathOf(e.points)}
                marker-end="url(#rl-graph-arrow)"
                data-source={e.source}
                data-target={e.target}
              />
            ))}
            {layout.boxes.filter((b) => b.box.kind !== "group").map((b) => (
              <LeafBox key={b.box.id} placed={b} selected={selected === b.box.id} matched={matches.has(b.box.id)} />
            ))}
            {layout.edges.map((e) =>
              e.labelBox && e.label ? (
                <g key={`l${e.id}`} class="rl-graph-edge-label">
                  <rect x={e.labelBox.x} y={e.labelBox.y} width={e.labelBox.width} height={e.labelBox.height} rx={3} />
                  <text
                    data-testid="edge-shape"
                    data-source={e.source}
                    data-target={e.target}
                    x={e.labelBox.x + e.labelBox.width / 2}
                    y={e.labelBox.y + e.labelBox.height / 2}
                    font-size={FONT_EDGE}
                    text-anchor="middle"
                    dominant-baseline="central"
                  >
                    {e.label}
                  </text>
                </g>
              ) : null,
            )}
          </g>
        )}
      </svg>
      {downloadError !== null && (
        <div class="rl-graph-error rl-graph-download-error" role="alert">
          The download failed: {downloadError}
        </div>
      )}
      <div class="rl-graph-zoom" role="group" aria-label="Zoom and download">
        <button type="button" data-testid="graph-download-svg" title="Download the whole graph as SVG" onClick={() => download("svg")}>
          SVG
        </button>
        <button type="button" data-testid="graph-download-png" title="Download the whole graph as PNG" onClick={() => download("png")}>
          PNG
        </button>
        <button type="button" title="Zoom in" aria-label="Zoom in" onClick={() => zoom(1.25)}>+</button>
        <button type="button" title="Zoom out" aria-label="Zoom out" onClick={() => zoom(0.8)}>−</button>
        <button
          type="button"
          title="Fit the graph (never smaller than its names read: drag or scroll to see the rest)"
          data-testid="graph-fit"
          onClick={() => {
            const svg = svgRef.current;
            if (svg) setView(fitView(layout, svg.clientWidth, svg.clientHeight));
          }}
        >
          Fit
        </button>
      </div>
    </div>
  );
}

function pathOf(points: { x: number; y: number }[]): string {
  return points.map((p, i) => `${i === 0 ? "M" : "L"}${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(" ");
}

interface BoxProps {
  placed: PlacedBox;
  selected: boolean;
  matched: boolean;
}

function classes(base: string, selected: boolean, matched: boolean): string {
  return `${base}${selected ? " rl-graph-selected" : ""}${matched ? " rl-graph-match" : ""}`;
}

function LeafBox({ placed, selected, matched }: BoxProps) {
  const { box, x, y, width, height, title, sub } = placed;
  const scope = box.kind === "scope";
  const midY = y + height / 2;
  return (
    <g
      class={classes(scope ? "rl-graph-box rl-graph-scope" : "rl-graph-box rl-graph-op", selected, matched)}
      data-testid="graph-node"
      data-box={box.id}
      data-name={box.name}
      data-kind={box.kind}
      data-expanded={scope ? "false" : undefined}
      tabindex={0}
      role="button"
      aria-label={`${box.name} (${sub})${scope ? ", collapsed scope" : ""}`}
    >
      <title>{box.name}</title>
      <rect data-part="box" x={x} y={y} width={width} height={height} rx={scope ? 8 : 5} />
      <text data-part="title" x={x + 12} y={midY - 3} font-size={FONT_TITLE} font-weight={600}>
        {title}
      </text>
      <text data-part="sub" class="rl-graph-sub" x={x + 12} y={midY + FONT_SUB + 1} font-size={FONT_SUB}>
        {sub}
      </text>
      {scope && <ToggleMark x={x + width - 18} y={y + 8} open={false} />}
    </g>
  );
}

function GroupBox({ placed, selected, matched }: BoxProps) {
  const { box, x, y, width, height, title, sub, depth } = placed;
  return (
    <g
      class={classes(`rl-graph-group rl-graph-depth-${Math.min(depth, 4)}`, selected, matched)}
      data-testid="graph-node"
      data-box={box.id}
      data-name={box.name}
      data-kind="group"
      data-expanded="true"
    >
      <title>{box.name}</title>
      <rect data-part="box" x={x} y={y} width={width} height={height} rx={10} />
      <g
        data-toggle="1"
        class="rl-graph-group-header"
        tabindex={0}
        role="button"
        aria-label={`${box.name} (${sub}), expanded scope: collapse`}
      >
        <rect x={x} y={y} width={width} height={26} rx={10} class="rl-graph-header-hit" />
        <ToggleMark x={x + 8} y={y + 7} open={true} />
        <text data-part="title" x={x + 26} y={y + 17} font-size={FONT_TITLE} font-weight={600}>
          {title}
          <tspan class="rl-graph-sub" font-weight={400} font-size={FONT_SUB}>{`  ·  ${sub}`}</tspan>
        </text>
      </g>
    </g>
  );
}

function ToggleMark({ x, y, open }: { x: number; y: number; open: boolean }): JSX.Element {
  return (
    <g class="rl-graph-toggle" data-toggle="1" aria-label={open ? "Collapse" : "Expand"}>
      <rect x={x} y={y} width={12} height={12} rx={2} />
      <path d={open ? `M${x + 3},${y + 6} H${x + 9}` : `M${x + 3},${y + 6} H${x + 9} M${x + 6},${y + 3} V${y + 9}`} />
    </g>
  );
}
