/**
 * The shown graph cut into one small graph per expanded scope ("local graphs"), so that each scope's interior is
 * laid out on its own and kept: expanding or collapsing one scope lays out only that scope and the scopes around
 * it, never the whole graph again.
 *
 * A local graph holds a scope's direct children (nodes, collapsed scopes, and expanded scopes as boxes of their
 * laid-out size) and the edges between them. An edge between boxes in different scopes is cut at the scope
 * where its ends meet (their lowest common scope): there it joins the two children holding its ends; inside each
 * scope it passes through, it joins the child holding its end to the scope's exit (`out`, below everything) or
 * from its entrance (`in`, above everything). Drawing it is joining those pieces ({@link routeOf}).
 */
import { edgeLabel, type Box, type Shown, type ShownEdge } from "./model";

export const ROOT = "root";
export const inId = (group: string) => `${group}\u0000in`;
export const outId = (group: string) => `${group}\u0000out`;

export interface LocalEdge {
  /** `source>target` within the local graph. */
  key: string;
  source: string;
  target: string;
  /** The shape label (on the piece where the edge's ends meet), "" for a piece through a scope. */
  label: string;
  /** The shown edges this piece is part of. */
  shown: ShownEdge[];
}

export interface LocalGraph {
  id: string;
  depth: number;
  children: Box[];
  edges: LocalEdge[];
  hasIn: boolean;
  hasOut: boolean;
}

export interface Cut {
  graphs: Map<string, LocalGraph>;
  /** Each box's chain of enclosing groups, from the root ([ROOT, ..., its parent]). */
  parents: Map<string, string[]>;
  boxes: Map<string, Box>;
}

/** The local graph of every expanded scope (and of the top level, {@link ROOT}). */
export function cut(shown: Shown): Cut {
  const graphs = new Map<string, LocalGraph>();
  const parents = new Map<string, string[]>();
  const boxes = new Map<string, Box>();
  const visit = (id: string, children: Box[], chain: string[]) => {
    graphs.set(id, { id, depth: chain.length, children, edges: [], hasIn: false, hasOut: false });
    const inside = [...chain, id];
    for (const child of children) {
      boxes.set(child.id, child);
      parents.set(child.id, inside);
      if (child.kind === "group") visit(child.id, child.children, inside);
    }
  };
  visit(ROOT, shown.roots, []);
  const pieces = new Map<string, LocalEdge>();
  const piece = (group: string, source: string, target: string, edge: ShownEdge, meeting: boolean) => {
    const key = `${group}\u0000${source}>${target}`;
    let found = pieces.get(key);
    if (!found) {
      found = { key: `${source}>${target}`, source, target, label: "", shown: [] };
      pieces.set(key, found);
      graphs.get(group)!.edges.push(found);
    }
    found.shown.push(edge);
    if (meeting) found.label = mergedLabel(found.shown);
  };
  for (const edge of shown.edges) {
    const from = [...(parents.get(edge.source) ?? [ROOT]), edge.source];
    const to = [...(parents.get(edge.target) ?? [ROOT]), edge.target];
    let common = 0;
    while (common + 1 < from.length && common + 1 < to.length && from[common + 1] === to[common + 1]) common++;
    piece(from[common]!, from[common + 1]!, to[common + 1]!, edge, true);
    for (let level = common + 1; level < from.length - 1; level++) {
      piece(from[level]!, from[level + 1]!, outId(from[level]!), edge, false);
      graphs.get(from[level]!)!.hasOut = true;
    }
    for (let level = common + 1; level < to.length - 1; level++) {
      piece(to[level]!, inId(to[level]!), to[level + 1]!, edge, false);
      graphs.get(to[level]!)!.hasIn = true;
    }
  }
  return { graphs, parents, boxes };
}

/** The label of several shown edges joined into one piece: their shapes merged as one merged edge would be. */
function mergedLabel(edges: ShownEdge[]): string {
  if (edges.length === 1) return edgeLabel(edges[0]!);
  const shapes: string[] = [];
  let count = 0;
  for (const e of edges) {
    count += e.count;
    for (const s of e.shapes) if (!shapes.includes(s)) shapes.push(s);
  }
  return edgeLabel({ id: "", source: "", target: "", shapes, count, control: edges.every((e) => e.control) });
}

export interface Point {
  x: number;
  y: number;
}

/** A laid-out local graph, in its own coordinates (its top-left corner at 0, 0). */
export interface Local {
  width: number;
  height: number;
  positions: Map<string, Point & { width: number; height: number }>;
  routes: Map<string, Point[]>;
  labels: Map<string, { x: number; y: number; width: number; height: number }>;
}

/**
 * The drawn route of a shown edge: the pieces through the scopes around its source (innermost first), the piece
 * where its ends meet, then the pieces into the scopes around its target, each moved by its scope's position.
 */
export function routeOf(edge: ShownEdge, c: Cut, locals: Map<string, Local>, origin: Map<string, Point>): Point[] {
  const from = [...(c.parents.get(edge.source) ?? [ROOT]), edge.source];
  const to = [...(c.parents.get(edge.target) ?? [ROOT]), edge.target];
  let common = 0;
  while (common + 1 < from.length && common + 1 < to.length && from[common + 1] === to[common + 1]) common++;
  const points: Point[] = [];
  const add = (group: string, key: string) => {
    const route = locals.get(group)?.routes.get(key);
    const at = origin.get(group) ?? { x: 0, y: 0 };
    if (route) for (const p of route) points.push({ x: p.x + at.x, y: p.y + at.y });
  };
  for (let level = from.length - 2; level > common; level--) add(from[level]!, `${from[level + 1]}>${outId(from[level]!)}`);
  add(from[common]!, `${from[common + 1]}>${to[common + 1]}`);
  for (let level = common + 1; level < to.length - 1; level++) add(to[level]!, `${inId(to[level]!)}>${to[level + 1]}`);
  return points;
}

/** The lowest scope where the edge's ends meet, and the key of its piece there (where its label is). */
export function meeting(edge: ShownEdge, c: Cut): { group: string; key: string } {
  const from = [...(c.parents.get(edge.source) ?? [ROOT]), edge.source];
  const to = [...(c.parents.get(edge.target) ?? [ROOT]), edge.target];
  let common = 0;
  while (common + 1 < from.length && common + 1 < to.length && from[common + 1] === to[common + 1]) common++;
  return { group: from[common]!, key: `${from[common + 1]}>${to[common + 1]}` };
}
