/**
 * Lays out the shown boxes with ELK's layered algorithm (top to bottom, as data flows), in a web worker so a
 * large graph never freezes the page. Every box is measured from its text first, so a name is never cut: the box
 * grows to fit it. Edge labels (tensor shapes) are given their measured size and ELK places them on their edge,
 * leaving room between layers so they overlap no box. Coordinates come back absolute (elk.json.*Coords: ROOT).
 */
import ElkConstructor from "elkjs/lib/elk-api.js";
import type { ELK, ElkExtendedEdge, ElkNode } from "elkjs/lib/elk-api.js";
import workerUrl from "elkjs/lib/elk-worker.min.js?url";
import { setTestHook } from "@web/testHooks";
import { edgeLabel, leafName, type Box, type Shown } from "./model";

declare module "@web/testHooks" {
  interface TestHooks {
    /** The last graph layout: ELK's input and output. */
    graphLayout: { input: ElkNode; result: ElkNode };
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

let elk: ELK | null = null;
function engine(): ELK {
  elk ??= new ElkConstructor({ workerFactory: () => new Worker(workerUrl) });
  return elk;
}

let canvas: CanvasRenderingContext2D | null = null;
/** The width of `text` in the page's font at `size` px (and weight). */
export function measure(text: string, size: number, weight = 400): number {
  canvas ??= document.createElement("canvas").getContext("2d");
  if (!canvas) return text.length * size * 0.62;
  const family = getComputedStyle(document.body).fontFamily || "sans-serif";
  canvas.font = `${weight} ${size}px ${family}`;
  return canvas.measureText(text).width;
}

/** What a box shows: its last name part big, and the op (a node) or how many nodes it holds (a scope). */
export function boxText(box: Box): { title: string; sub: string } {
  const title = leafName(box.name) || box.name;
  if (box.kind === "node") return { title, sub: box.op };
  return { title, sub: `${box.count} node${box.count === 1 ? "" : "s"}` };
}

function elkNode(box: Box): ElkNode {
  const { title, sub } = boxText(box);
  const textWidth = Math.max(measure(title, FONT_TITLE, 600), measure(sub, FONT_SUB));
  if (box.kind === "group") {
    const header = measure(`${title}  ·  ${sub}`, FONT_TITLE, 600) + 2 * PAD_X + 22;
    return {
      id: box.id,
      children: box.children.map(elkNode),
      layoutOptions: {
        "elk.padding": `[top=${GROUP_HEADER + 10},left=14,bottom=14,right=14]`,
        "elk.nodeSize.constraints": "MINIMUM_SIZE",
        // (height, width), not (width, height): ELK 0.12's layered algorithm with direction DOWN and
        // INCLUDE_CHILDREN transposes a nested node's minimum size (checked: (700, 40) gave a 104 x 700 box).
        "elk.nodeSize.minimum": `(40, ${Math.ceil(header)})`,
      },
    };
  }
  return {
    id: box.id,
    width: Math.ceil(textWidth + 2 * PAD_X + (box.kind === "scope" ? 22 : 0)),
    height: Math.ceil(FONT_TITLE + FONT_SUB + LINE_GAP + 2 * PAD_Y + 2),
  };
}

/** The ELK input for what is shown (exported for tests of the structure). */
export function elkGraph(shown: Shown): ElkNode {
  const edges: ElkExtendedEdge[] = shown.edges.map((e) => {
    const label = edgeLabel(e);
    return {
      id: e.id,
      sources: [e.source],
      targets: [e.target],
      // inline: the label sits on its edge (the line passes under it), an option of the label itself.
      labels: label
        ? [
            {
              text: label,
              width: Math.ceil(measure(label, FONT_EDGE) + 8),
              height: FONT_EDGE + 5,
              layoutOptions: { "elk.edgeLabels.inline": "true" },
            },
          ]
        : [],
    };
  });
  return {
    id: "root",
    layoutOptions: {
      "elk.algorithm": "layered",
      "elk.direction": "DOWN",
      "elk.hierarchyHandling": "INCLUDE_CHILDREN",
      "elk.json.edgeCoords": "ROOT",
      "elk.json.shapeCoords": "ROOT",
      "elk.edgeLabels.placement": "CENTER",
      "elk.layered.spacing.nodeNodeBetweenLayers": "34",
      "elk.spacing.nodeNode": "22",
      "elk.spacing.edgeLabel": "4",
      "elk.spacing.edgeNode": "14",
      "elk.layered.considerModelOrder.strategy": "NODES_AND_EDGES",
      "elk.padding": "[top=16,left=16,bottom=16,right=16]",
    },
    children: shown.roots.map(elkNode),
    edges,
  };
}

/** Runs the layout of `shown` and returns every box and edge placed. */
export async function layout(shown: Shown): Promise<Layout> {
  const input = elkGraph(shown);
  const result = await engine().layout(input);
  // For tests and debugging: the last ELK input and output (window.__ridgeline.graphLayout).
  setTestHook("graphLayout", { input, result });
  const byId = new Map<string, Box>();
  const collect = (boxes: Box[]) => {
    for (const b of boxes) {
      byId.set(b.id, b);
      collect(b.children);
    }
  };
  collect(shown.roots);
  const boxes: PlacedBox[] = [];
  const walk = (nodes: ElkNode[] | undefined, depth: number) => {
    for (const n of nodes ?? []) {
      const box = byId.get(n.id);
      if (!box) continue;
      boxes.push({ box, x: n.x ?? 0, y: n.y ?? 0, width: n.width ?? 0, height: n.height ?? 0, depth, ...boxText(box) });
      walk(n.children, depth + 1);
    }
  };
  walk(result.children, 0);
  const labels = new Map(shown.edges.map((e) => [e.id, e]));
  const edges: PlacedEdge[] = [];
  const gather = (node: ElkNode) => {
    for (const e of (node.edges ?? []) as ElkExtendedEdge[]) {
      const info = labels.get(e.id);
      if (!info) continue;
      const points: { x: number; y: number }[] = [];
      for (const s of e.sections ?? []) {
        if (points.length === 0) points.push(s.startPoint);
        points.push(...(s.bendPoints ?? []), s.endPoint);
      }
      const l = e.labels?.[0];
      edges.push({
        id: e.id,
        source: info.source,
        target: info.target,
        control: info.control,
        points,
        label: l?.text ?? "",
        labelBox: l ? { x: l.x ?? 0, y: l.y ?? 0, width: l.width ?? 0, height: l.height ?? 0 } : null,
      });
    }
    for (const c of node.children ?? []) gather(c);
  };
  gather(result);
  return { boxes, edges, width: result.width ?? 0, height: result.height ?? 0 };
}
