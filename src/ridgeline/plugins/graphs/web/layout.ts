/**
 * Lays out the shown boxes with ELK's layered algorithm (top to bottom, as data flows), in a web worker so a
 * large graph never freezes the page. Every box is measured from its text first, so a name is never cut: the box
 * grows to fit it. Edge labels (tensor shapes) are given their measured size and ELK places them on their edge,
 * leaving room between layers so they overlap no box.
 *
 * Incremental: each expanded scope is laid out on its own (./hierarchy cuts the graph into one local graph per
 * scope) and kept by what decides its layout, so expanding or collapsing a scope lays out only that scope and
 * the scopes that hold it; everything else is moved, not laid out again. "Expand all" lays out many small
 * graphs (one ELK call per depth) instead of one graph of thousands of nodes, which ELK takes seconds over.
 */
import ElkConstructor from "elkjs/lib/elk-api.js";
import type { ELK, ElkExtendedEdge, ElkNode } from "elkjs/lib/elk-api.js";
import workerUrl from "elkjs/lib/elk-worker.min.js?url";
import { setTestHook } from "@web/testHooks";
import { cut, inId, meeting, outId, ROOT, routeOf, type Cut, type Local, type LocalGraph, type Point } from "./hierarchy";
import { leafName, type Box, type Shown } from "./model";
import { quickLayout } from "./quick";

declare module "@web/testHooks" {
  interface TestHooks {
    /** The last ELK call of a graph layout: its input and output. */
    graphLayout: { input: ElkNode; result: ElkNode };
    /** What the last layout laid out: scopes shown, scopes laid out again, ELK calls. */
    graphLayoutStats: LayoutStats;
  }
}

/** Fonts of the SVG text (graphs.css uses the same). */
export const FONT_TITLE = 13;
export const FONT_SUB = 11;
export const FONT_EDGE = 11;
const PAD_X = 12;
const LINE_GAP = 4;
const PAD_Y = 8;
const GROUP_HEADER = 26;

export interface PlacedBox {
  box: Box;
  x: number;
  y: number;
  width: number;
  height: number;
  depth: number;
  title: string;
  sub: string;
}

export interface PlacedEdge {
  id: string;
  source: string;
  target: string;
  control: boolean;
  points: { x: number; y: number }[];
  label: string;
  labelBox: { x: number; y: number; width: number; height: number } | null;
}

export interface Layout {
  boxes: PlacedBox[];
  edges: PlacedEdge[];
  width: number;
  height: number;
}

/** ELK in web workers: two (one on a single-core machine), each laying out half of a batch of scopes. */
let pool: ELK[] | null = null;
function engines(): ELK[] {
  const count = Math.max(1, Math.min(2, (typeof navigator !== "undefined" && navigator.hardwareConcurrency) || 1));
  pool ??= Array.from({ length: count }, () => new ElkConstructor({ workerFactory: () => new Worker(workerUrl) }));
  return pool;
}

/** Lays out the batch's graphs split across the engines (by size, largest first, onto the least loaded). */
async function layoutBatch(graphs: ElkNode[], elks: ELK[]): Promise<ElkNode[]> {
  const shares: ElkNode[][] = elks.map(() => []);
  const loads = elks.map(() => 0);
  const weight = (g: ElkNode) => (g.children?.length ?? 0) + (g.edges?.length ?? 0);
  for (const graph of [...graphs].sort((a, b) => weight(b) - weight(a))) {
    const least = loads.indexOf(Math.min(...loads));
    shares[least]!.push(graph);
    loads[least]! += weight(graph);
  }
  const options = { "elk.algorithm": "fixed", "elk.json.edgeCoords": "CONTAINER", "elk.json.shapeCoords": "PARENT" };
  const results = await Promise.all(
    shares.map((children, i) => (children.length ? elks[i]!.layout({ id: "batch", layoutOptions: options, children }) : null)),
  );
  return results.flatMap((r) => r?.children ?? []);
}

let canvas: CanvasRenderingContext2D | null = null;
let family: string | null = null;
const widths = new Map<string, number>();
/** The width of `text` in the page's font at `size` px (and weight), remembered (a graph repeats its names). */
export function measure(text: string, size: number, weight = 400): number {
  if (typeof document === "undefined") return text.length * size * 0.62; // no page (unit tests): an estimate
  canvas ??= document.createElement("canvas").getContext("2d");
  if (!canvas) return text.length * size * 0.62;
  family ??= getComputedStyle(document.body).fontFamily || "sans-serif";
  const key = `${weight} ${size}px\u0000${text}`;
  let width = widths.get(key);
  if (width === undefined) {
    canvas.font = `${weight} ${size}px ${family}`;
    width = canvas.measureText(text).width;
    if (widths.size > 50_000) widths.clear();
    widths.set(key, width);
  }
  return width;
}

/** What a box shows: its last name part big, and the op (a node) or how many nodes it holds (a scope). */
export function boxText(box: Box): { title: string; sub: string } {
  const title = leafName(box.name) || box.name;
  if (box.kind === "node") return { title, sub: box.op };
  return { title, sub: `${box.count} node${box.count === 1 ? "" : "s"}` };
}

/** A node's or a collapsed scope's box: wide enough for its name and its op (or node count). */
export function leafSize(box: Box): { width: number; height: number } {
  const { title, sub } = boxText(box);
  const textWidth = Math.max(measure(title, FONT_TITLE, 600), measure(sub, FONT_SUB));
  return {
    width: Math.ceil(textWidth + 2 * PAD_X + (box.kind === "scope" ? 22 : 0)),
    height: Math.ceil(FONT_TITLE + FONT_SUB + LINE_GAP + 2 * PAD_Y + 2),
  };
}

/** The width an expanded scope needs for its header (name, node count and toggle). */
function headerWidth(box: Box): number {
  const { title, sub } = boxText(box);
  return Math.ceil(measure(`${title}  ·  ${sub}`, FONT_TITLE, 600) + 2 * PAD_X + 22);
}

const LAYERED = {
  "elk.algorithm": "layered",
  "elk.direction": "DOWN",
  "elk.edgeLabels.placement": "CENTER",
  "elk.layered.spacing.nodeNodeBetweenLayers": "34",
  "elk.spacing.nodeNode": "22",
  "elk.spacing.edgeLabel": "4",
  "elk.spacing.edgeNode": "14",
  "elk.layered.considerModelOrder.strategy": "NODES_AND_EDGES",
};
const ROOT_PADDING = "[top=16,left=16,bottom=16,right=16]";
const GROUP_PADDING = `[top=${GROUP_HEADER + 10},left=14,bottom=14,right=14]`;

/** An edge label's box: its text measured, a little room around it. */
function labelSize(text: string): { width: number; height: number } {
  return { width: Math.ceil(measure(text, FONT_EDGE) + 8), height: FONT_EDGE + 5 };
}

/** One local graph as ELK input: its children at their sizes, its entrance and exit, its pieces of edges. */
function elkLocal(graph: LocalGraph, sizes: Map<string, { width: number; height: number }>): ElkNode {
  const children: ElkNode[] = graph.children.map((c) => ({ id: c.id, ...sizes.get(c.id)! }));
  if (graph.hasIn) children.unshift({ id: inId(graph.id), width: 1, height: 1, layoutOptions: { "elk.layered.layering.layerConstraint": "FIRST" } });
  if (graph.hasOut) children.push({ id: outId(graph.id), width: 1, height: 1, layoutOptions: { "elk.layered.layering.layerConstraint": "LAST" } });
  const edges: ElkExtendedEdge[] = graph.edges.map((e) => ({
    id: `${graph.id}\u0000${e.key}`,
    sources: [e.source],
    targets: [e.target],
    // inline: the label sits on its edge (the line passes under it), an option of the label itself.
    labels: e.label ? [{ text: e.label, ...labelSize(e.label), layoutOptions: { "elk.edgeLabels.inline": "true" } }] : [],
  }));
  const padding = graph.id === ROOT ? ROOT_PADDING : GROUP_PADDING;
  return { id: graph.id, layoutOptions: { ...LAYERED, "elk.padding": padding }, children, edges };
}

/**
 * What decides a local graph's layout, whatever its boxes are called: equal signatures, equal layouts (the
 * cache's key). The blocks of a model that repeat one module (the residual blocks of a stage) share one layout.
 */
function signature(graph: LocalGraph, sizes: Map<string, { width: number; height: number }>): string {
  const place = new Map(graph.children.map((c, i) => [c.id, i]));
  const at = (id: string) => (id === inId(graph.id) ? "in" : id === outId(graph.id) ? "out" : place.get(id));
  const children = graph.children.map((c) => [c.kind, sizes.get(c.id)!.width, sizes.get(c.id)!.height]);
  const edges = graph.edges.map((e) => [at(e.source), at(e.target), e.label]);
  return JSON.stringify([graph.id === ROOT, children, edges, graph.hasIn, graph.hasOut]);
}

/** `local` with its boxes and edges renamed (a name not in `names` is kept). */
function renamed(local: Local, names: Map<string, string>): Local {
  const rekey = <T,>(from: Map<string, T>) => new Map([...from].map(([k, v]) => [names.get(k) ?? k, v]));
  return { ...local, positions: rekey(local.positions), routes: rekey(local.routes), labels: rekey(local.labels) };
}

/** `graph`'s names of its children and edges -> their places (`c<i>`, `e<j>`): what the cache keeps layouts by,
 * so that another graph of the same signature takes them under its own names. */
function places(graph: LocalGraph): Map<string, string> {
  return new Map([...graph.children.map((c, i): [string, string] => [c.id, `c${i}`]), ...graph.edges.map((e, j): [string, string] => [e.key, `e${j}`])]);
}

const byPlace = (local: Local, graph: LocalGraph) => renamed(local, places(graph));
const forGraph = (local: Local, graph: LocalGraph) => renamed(local, new Map([...places(graph)].map(([name, place]) => [place, name])));

function readLocal(node: ElkNode, graph: LocalGraph): Local {
  const local: Local = { width: node.width ?? 0, height: node.height ?? 0, positions: new Map(), routes: new Map(), labels: new Map() };
  for (const c of node.children ?? []) local.positions.set(c.id, { x: c.x ?? 0, y: c.y ?? 0, width: c.width ?? 0, height: c.height ?? 0 });
  const prefix = `${graph.id}\u0000`;
  for (const e of (node.edges ?? []) as ElkExtendedEdge[]) {
    const key = e.id.slice(prefix.length);
    const points: Point[] = [];
    for (const s of e.sections ?? []) {
      if (points.length === 0) points.push(s.startPoint);
      points.push(...(s.bendPoints ?? []), s.endPoint);
    }
    local.routes.set(key, points);
    const l = e.labels?.[0];
    if (l) local.labels.set(key, { x: l.x ?? 0, y: l.y ?? 0, width: l.width ?? 0, height: l.height ?? 0 });
  }
  return local;
}

/** Laid-out local graphs by signature: a scope laid out once is not laid out again while it is unchanged. */
const cache = new Map<string, Local>();
const CACHE_LIMIT = 20_000;

/** How much the last layout call laid out (tests and the benchmark read it). */
export interface LayoutStats {
  scopes: number;
  /** Scopes laid out by ELK; laid out directly (quick.ts); given the layout of one of the same signature. */
  laidOut: number;
  quick: number;
  reused: number;
  calls: number;
  /** Milliseconds in ELK (the worker), and in the whole call. */
  elkMs: number;
  totalMs: number;
}

/**
 * Lays out what is shown: each expanded scope's interior on its own, deepest scopes first (their sizes are what
 * their parents lay out), in one ELK call per depth over every scope of that depth not laid out before. Returns
 * every box and edge placed, in absolute coordinates.
 */
export async function layout(shown: Shown, elks: ELK[] = engines(), report?: (stats: LayoutStats) => void): Promise<Layout> {
  const started = performance.now();
  const pieces = cut(shown);
  const sizes = new Map<string, { width: number; height: number }>();
  for (const box of pieces.boxes.values()) if (box.kind !== "group") sizes.set(box.id, leafSize(box));
  const locals = new Map<string, Local>();
  const byDepth = new Map<number, LocalGraph[]>();
  for (const g of pieces.graphs.values()) {
    let list = byDepth.get(g.depth);
    if (!list) byDepth.set(g.depth, (list = []));
    list.push(g);
  }
  const stats: LayoutStats = { scopes: pieces.graphs.size, laidOut: 0, quick: 0, reused: 0, calls: 0, elkMs: 0, totalMs: 0 };
  let lastInput: ElkNode | null = null;
  let lastResult: ElkNode | null = null;
  for (const depth of [...byDepth.keys()].sort((a, b) => b - a)) {
    const pending: { graph: LocalGraph; key: string }[] = [];
    for (const graph of byDepth.get(depth)!) {
      const quick = quickLayout(graph, sizes, GROUP_HEADER, labelSize); // one box, or a fan-in: no ELK needed
      if (quick) {
        locals.set(graph.id, quick);
        stats.quick++;
        continue;
      }
      const key = signature(graph, sizes);
      const found = cache.get(key);
      if (found) {
        locals.set(graph.id, forGraph(found, graph));
        stats.reused++;
      } else pending.push({ graph, key });
    }
    // Graphs of one signature met in the same batch: the first is laid out, the others take its layout.
    const first = new Map<string, LocalGraph>();
    const alike: { graph: LocalGraph; key: string }[] = [];
    for (const p of pending.splice(0)) {
      if (first.has(p.key)) alike.push(p);
      else {
        first.set(p.key, p.graph);
        pending.push(p);
      }
    }
    if (pending.length > 0) {
      const input: ElkNode = { id: "batch", children: pending.map((p) => elkLocal(p.graph, sizes)) };
      const asked = performance.now();
      const result: ElkNode = { id: "batch", children: await layoutBatch(input.children!, elks) };
      stats.elkMs += performance.now() - asked;
      stats.calls++;
      stats.laidOut += pending.length;
      [lastInput, lastResult] = [input, result];
      const byId = new Map((result.children ?? []).map((n) => [n.id, n]));
      for (const { graph, key } of pending) {
        const local = readLocal(byId.get(graph.id)!, graph);
        if (cache.size >= CACHE_LIMIT) cache.clear();
        cache.set(key, byPlace(local, graph));
        locals.set(graph.id, local);
      }
    }
    for (const { graph, key } of alike) locals.set(graph.id, forGraph(cache.get(key)!, graph));
    stats.reused += alike.length;
    for (const graph of byDepth.get(depth)!) {
      const box = pieces.boxes.get(graph.id);
      const local = locals.get(graph.id)!;
      if (box) sizes.set(graph.id, { width: Math.max(local.width, headerWidth(box)), height: local.height });
    }
  }
  // For tests and debugging: the last ELK input and output, and what this call laid out.
  if (typeof window !== "undefined" && lastInput && lastResult) setTestHook("graphLayout", { input: lastInput, result: lastResult });
  const placed = compose(shown, pieces, locals, sizes);
  stats.totalMs = performance.now() - started;
  report?.(stats);
  if (typeof window !== "undefined") {
    setTestHook("graphLayoutStats", stats);
    warmUp(elks);
  }
  return placed;
}

let warmed = false;
/**
 * Once per page, after the first layout: lay out a batch of small throwaway graphs in the worker, so that ELK's
 * code is compiled by the JavaScript engine before the user expands anything (a cold ELK takes three to four
 * times longer over the same graphs). The worker does it in the background; the page does not wait.
 */
function warmUp(elks: ELK[]): void {
  if (warmed) return;
  warmed = true;
  const children: ElkNode[] = Array.from({ length: 60 }, (_, g) => {
    const ids = Array.from({ length: 6 }, (_, k) => `w${g}n${k}`);
    return {
      id: `w${g}`,
      layoutOptions: { ...LAYERED, "elk.padding": GROUP_PADDING },
      children: ids.map((id) => ({ id, width: 100, height: 44 })),
      edges: ids.slice(1).map((id, k) => ({
        id: `w${g}e${k}`,
        sources: [ids[k % 3]!],
        targets: [id],
        labels: k === 0 ? [{ text: "1×64", width: 40, height: 16, layoutOptions: { "elk.edgeLabels.inline": "true" } }] : [],
      })),
    };
  });
  const options = { "elk.algorithm": "fixed" };
  for (const elk of elks) setTimeout(() => void elk.layout({ id: "warm", layoutOptions: options, children }).catch(() => undefined), 50);
}

/** Every box at its absolute position (its scopes' offsets added up), every edge's pieces joined. */
function compose(shown: Shown, pieces: Cut, locals: Map<string, Local>, sizes: Map<string, { width: number; height: number }>): Layout {
  const origin = new Map<string, Point>([[ROOT, { x: 0, y: 0 }]]);
  const boxes: PlacedBox[] = [];
  const walk = (group: string, at: Point, depth: number) => {
    const local = locals.get(group)!;
    for (const child of pieces.graphs.get(group)!.children) {
      const p = local.positions.get(child.id)!;
      const x = at.x + p.x;
      const y = at.y + p.y;
      const size = sizes.get(child.id)!;
      boxes.push({ box: child, x, y, width: size.width, height: size.height, depth, ...boxText(child) });
      if (child.kind === "group") {
        // A scope widened for its header keeps its content centred under it.
        const inner = { x: x + (size.width - locals.get(child.id)!.width) / 2, y };
        origin.set(child.id, inner);
        walk(child.id, inner, depth + 1);
      }
    }
  };
  walk(ROOT, { x: 0, y: 0 }, 0);
  const labelled = new Set<string>();
  const edges: PlacedEdge[] = shown.edges.map((e) => {
    const where = meeting(e, pieces);
    const labelKey = `${where.group}\u0000${where.key}`;
    const box = labelled.has(labelKey) ? undefined : locals.get(where.group)?.labels.get(where.key);
    const text = pieces.graphs.get(where.group)?.edges.find((p) => p.key === where.key)?.label ?? "";
    labelled.add(labelKey);
    const at = origin.get(where.group) ?? { x: 0, y: 0 };
    return {
      id: e.id,
      source: e.source,
      target: e.target,
      control: e.control,
      points: routeOf(e, pieces, locals, origin),
      label: box ? text : "",
      labelBox: box ? { x: box.x + at.x, y: box.y + at.y, width: box.width, height: box.height } : null,
    };
  });
  const root = locals.get(ROOT)!;
  return { boxes, edges, width: root.width, height: root.height };
}
