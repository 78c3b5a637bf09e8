/**
 * The graph as `/api/graphs` sends it, and what is drawn of it: with some name scopes collapsed, each node is
 * shown by its outermost collapsed scope (or itself), and the edges between the shown boxes are merged, each
 * labelled with the tensor shape(s) it carries. Pure functions: the layout (./layout) and the view use them.
 */

export interface GraphNode {
  /** The full name, e.g. `Net/Sequential[features]/Conv2d[0]/input.1`: never shortened. */
  name: string;
  op: string;
  device: string;
  attrs: Record<string, string>;
  /** One per output, e.g. "1×3×32×32" ("?" unknown). */
  shapes: string[];
  dtype: string | null;
}

export interface GraphEdge {
  source: string;
  target: string;
  output: number;
  control: boolean;
  /** The shape of the source's output (else its dtype, else null). */
  shape: string | null;
}

export interface GraphScope {
  name: string;
  parent: string | null;
  /** Nodes under it at any depth. */
  nodes: number;
}

export interface GraphData {
  run: string;
  tag: string;
  tags: string[];
  format: string;
  step: number;
  nodes: GraphNode[];
  edges: GraphEdge[];
  scopes: GraphScope[];
  missing_inputs: number;
}

/** The last `/`-separated part of a name (what a box shows big). */
export function leafName(name: string): string {
  const i = name.lastIndexOf("/");
  return i < 0 ? name : name.slice(i + 1);
}

/** The scope a name sits in ("" at the top). */
export function parentOf(name: string): string {
  const i = name.lastIndexOf("/");
  return i < 0 ? "" : name.slice(0, i);
}

/** Box ids: a scope and a node may share a name (TF's `dense` beside `dense/kernel`). */
export const scopeId = (name: string) => `s:${name}`;
export const nodeId = (name: string) => `n:${name}`;

/** The graph's structure, indexed once per graph. */
export interface Index {
  data: GraphData;
  nodes: Map<string, GraphNode>;
  scopes: Map<string, GraphScope>;
  /** Per scope ("" = top level): its child scopes and its own nodes, in name order. */
  childScopes: Map<string, string[]>;
  childNodes: Map<string, string[]>;
  incoming: Map<string, GraphEdge[]>;
  outgoing: Map<string, GraphEdge[]>;
  /** Constants (and lists built only of constants): hidden by default, they only clutter the data flow. */
  constants: Set<string>;
}

const CONSTANT_OPS = new Set(["prim::Constant", "Const", "onnx::Constant"]);
const LIST_OPS = new Set(["prim::ListConstruct", "prim::TupleConstruct"]);

export function indexGraph(data: GraphData): Index {
  const nodes = new Map(data.nodes.map((n) => [n.name, n]));
  const scopes = new Map(data.scopes.map((s) => [s.name, s]));
  const childScopes = new Map<string, string[]>([["", []]]);
  const childNodes = new Map<string, string[]>([["", []]]);
  for (const s of data.scopes) {
    childScopes.set(s.name, []);
    childNodes.set(s.name, []);
  }
  for (const s of data.scopes) childScopes.get(s.parent ?? "")!.push(s.name);
  for (const n of data.nodes) {
    // A node named like a scope is drawn inside that scope's box (the scope is its own, deeper, group).
    const home = scopes.has(n.name) ? n.name : parentOf(n.name);
    (childNodes.get(home) ?? childNodes.get("")!).push(n.name);
  }
  // Natural order (layer_2 before layer_10): the side panel lists members so, and ELK keeps model order.
  const natural = (a: string, b: string) => a.localeCompare(b, undefined, { numeric: true });
  for (const list of childScopes.values()) list.sort(natural);
  for (const list of childNodes.values()) list.sort(natural);
  const incoming = new Map<string, GraphEdge[]>();
  const outgoing = new Map<string, GraphEdge[]>();
  for (const e of data.edges) {
    let list = incoming.get(e.target);
    if (!list) incoming.set(e.target, (list = []));
    list.push(e);
    let out = outgoing.get(e.source);
    if (!out) outgoing.set(e.source, (out = []));
    out.push(e);
  }
  const constants = new Set<string>();
  for (const n of data.nodes) if (CONSTANT_OPS.has(n.op)) constants.add(n.name);
  for (const n of data.nodes) {
    const inputs = incoming.get(n.name) ?? [];
    if (LIST_OPS.has(n.op) && inputs.every((e) => constants.has(e.source))) constants.add(n.name);
  }
  return { data, nodes, scopes, childScopes, childNodes, incoming, outgoing, constants };
}

/** Every enclosing scope of a node or scope name, outermost first (a node named like a scope: that one too). */
export function ancestors(index: Index, name: string): string[] {
  const parts = name.split("/");
  const out: string[] = [];
  for (let depth = 1; depth < parts.length; depth++) out.push(parts.slice(0, depth).join("/"));
  if (index.scopes.has(name) && index.nodes.has(name)) out.push(name);
  return out;
}

/**
 * The scopes to start expanded: none but those at the top level that wrap a single node (torch's `input`/`output`),
 * so the graph opens at its top level, like TensorBoard's (a click opens a scope), with its inputs and outputs
 * named. Opening whole levels of a 40-node graph drew it too small to read, or cut off.
 */
export function initialExpanded(index: Index, hideConstants = true): Set<string> {
  const counts = shownCounts(index, hideConstants);
  const expanded = new Set<string>();
  for (const s of index.childScopes.get("")!) {
    const shown = index.childScopes.get(s)!.some((c) => (counts.get(c) ?? 0) > 0);
    if (counts.get(s) === 1 && !shown) expanded.add(s);
  }
  return expanded;
}

/** A box on screen: a node, a collapsed scope, or an expanded scope (a group holding `children`). */
export interface Box {
  id: string;
  name: string;
  kind: "node" | "scope" | "group";
  /** Nodes inside (scopes). */
  count: number;
  op: string;
  children: Box[];
}

/** An edge between two boxes on screen, merging every graph edge between what they show. */
export interface ShownEdge {
  id: string;
  source: string;
  target: string;
  /** Distinct shapes carried, in first-seen order. */
  shapes: string[];
  count: number;
  control: boolean;
}

export interface Shown {
  roots: Box[];
  edges: ShownEdge[];
  /** Box id showing each node name. */
  owner: Map<string, string>;
  boxes: number;
}

/** How many nodes each scope shows at any depth (constants left out when hidden). */
export function shownCounts(index: Index, hideConstants: boolean): Map<string, number> {
  const counts = new Map<string, number>();
  for (const n of index.data.nodes) {
    if (hideConstants && index.constants.has(n.name)) continue;
    for (const s of ancestors(index, n.name)) counts.set(s, (counts.get(s) ?? 0) + 1);
  }
  return counts;
}

/** The boxes and merged edges drawn with the scopes in `expanded` open (and constants hidden, by default). */
export function shownGraph(index: Index, expanded: Set<string>, hideConstants = true): Shown {
  const owner = new Map<string, string>();
  const counts = shownCounts(index, hideConstants);
  let boxes = 0;
  const build = (scope: string): Box[] => {
    const out: Box[] = [];
    for (const s of index.childScopes.get(scope)!) {
      const count = counts.get(s) ?? 0;
      if (count === 0) continue; // only constants inside
      boxes++;
      if (expanded.has(s)) {
        out.push({ id: scopeId(s), name: s, kind: "group", count, op: "", children: build(s) });
      } else {
        const id = scopeId(s);
        markOwned(index, s, id, owner);
        out.push({ id, name: s, kind: "scope", count, op: "", children: [] });
      }
    }
    for (const n of index.childNodes.get(scope)!) {
      if (owner.has(n) || (hideConstants && index.constants.has(n))) continue; // shown by its collapsed scope
      boxes++;
      owner.set(n, nodeId(n));
      out.push({ id: nodeId(n), name: n, kind: "node", count: 1, op: index.nodes.get(n)!.op, children: [] });
    }
    return out;
  };
  const roots = build("");
  const merged = new Map<string, ShownEdge>();
  for (const e of index.data.edges) {
    if (hideConstants && index.constants.has(e.source)) continue;
    const source = owner.get(e.source);
    const target = owner.get(e.target);
    if (!source || !target || source === target) continue;
    const key = `${source}\u0000${target}`;
    let m = merged.get(key);
    if (!m) merged.set(key, (m = { id: `e${merged.size}`, source, target, shapes: [], count: 0, control: true }));
    m.count++;
    if (!e.control) m.control = false;
    if (e.shape && !m.shapes.includes(e.shape)) m.shapes.push(e.shape);
  }
  return { roots, edges: [...merged.values()], owner, boxes };
}

function markOwned(index: Index, scope: string, id: string, owner: Map<string, string>): void {
  for (const n of index.childNodes.get(scope)!) owner.set(n, id);
  for (const s of index.childScopes.get(scope)!) markOwned(index, s, id, owner);
}

/** The label of a merged edge: its shape, two shapes, or how many tensors of how many shapes. */
export function edgeLabel(edge: ShownEdge): string {
  if (edge.shapes.length === 0) return edge.count > 1 ? `${edge.count} tensors` : "";
  if (edge.shapes.length <= 2) return edge.shapes.join(", ");
  return `${edge.count} tensors, ${edge.shapes.length} shapes`;
}

/** Names matching a case-insensitive regex (scopes and nodes), at most `limit`; throws on an invalid one. */
export function searchNames(index: Index, pattern: string, limit = 200): string[] {
  if (!pattern) return [];
  const re = new RegExp(pattern, "i");
  const out: string[] = [];
  for (const s of index.data.scopes) {
    if (re.test(s.name)) out.push(s.name);
    if (out.length >= limit) return out;
  }
  for (const n of index.data.nodes) {
    if (re.test(n.name) && !index.scopes.has(n.name)) out.push(n.name);
    if (out.length >= limit) return out;
  }
  return out;
}

/** The drawable tags of a run (step statistics records hold no graph and stay out of the picker). */
export function drawableTags(tags: string[]): string[] {
  const drawable = tags.filter((t) => !t.startsWith("__run_metadata__/"));
  return drawable.length > 0 ? drawable : tags;
}
