/**
 * Layouts of the shapes most scopes of a traced model have, computed directly instead of by ELK (a traced
 * ResNet-50 has 420 scopes: 270 hold one box, 110 are a fan-in — a module's parameters feeding its one op —,
 * 16 are a module called several times, and its Sequentials and the model itself are chains):
 *
 * - one box: the box below the header, an entering edge from above and a leaving one below;
 * - a fan-in: every edge ends at one box (the hub), or enters or leaves the scope through it. The other boxes
 *   sit in a row above the hub (with a channel down the middle for the entering edge), their edges drop to the
 *   hub's top, each labelled just below its box (labels that would touch go on a second row);
 * - a chain: each box feeds the next (the entrance the first, the last the exit), and nothing else: the boxes
 *   stacked on one axis, each edge a straight line with its label on it;
 * - side by side: no edge between the boxes, only from the entrance and to the exit (a module called several
 *   times, such as a shared ReLU): the boxes in a row, each entered from above and left below.
 *
 * Anything else is ELK's. Positions are in the scope's own coordinates, as ELK's are.
 */
import type { Local, LocalGraph, Point } from "./hierarchy";
import { inId, outId, ROOT } from "./hierarchy";

type Sizes = Map<string, { width: number; height: number }>;
type LabelSize = (text: string) => { width: number; height: number };

const SPACING = 22;
const BETWEEN_LAYERS = 34;
const CHANNEL = 26;

function padding(graph: LocalGraph, header: number): [number, number, number] {
  return graph.id === ROOT ? [16, 16, 16] : [header + 10, 14, 14];
}

/** A quick layout of `graph` when it has one of the shapes above, else null. */
export function quickLayout(graph: LocalGraph, sizes: Sizes, header: number, labelSize: LabelSize): Local | null {
  if (graph.children.length === 1) return single(graph, sizes, header);
  return fanIn(graph, sizes, header, labelSize) ?? chain(graph, sizes, header, labelSize) ?? sideBySide(graph, sizes, header);
}

/** The children in chain order when every edge joins one to the next (the entrance the first, the last the exit). */
function chainOrder(graph: LocalGraph): string[] | null {
  const enter = inId(graph.id);
  const leave = outId(graph.id);
  const next = new Map<string, string>();
  const fed = new Set<string>();
  for (const e of graph.edges) {
    if (next.has(e.source) || fed.has(e.target) || e.source === e.target) return null;
    next.set(e.source, e.target);
    fed.add(e.target);
  }
  const ids = new Set(graph.children.map((c) => c.id));
  let first: string | undefined;
  if (graph.hasIn) first = next.get(enter);
  else {
    const unfed = graph.children.filter((c) => !fed.has(c.id));
    first = unfed.length === 1 ? unfed[0]!.id : undefined;
  }
  if (first === undefined || !ids.has(first)) return null;
  const order: string[] = [];
  for (let at: string | undefined = first; at !== undefined && ids.has(at); at = next.get(at)) {
    if (order.includes(at)) return null;
    order.push(at);
  }
  if (order.length !== graph.children.length) return null;
  const last = order[order.length - 1]!;
  if (graph.hasOut && next.get(last) !== leave) return null;
  if (!graph.hasOut && next.has(last)) return null;
  return order;
}

function chain(graph: LocalGraph, sizes: Sizes, header: number, labelSize: LabelSize): Local | null {
  const order = chainOrder(graph);
  if (order === null) return null;
  const [top, side, bottom] = padding(graph, header);
  const inner = Math.max(...order.map((id) => sizes.get(id)!.width));
  const centre = side + inner / 2;
  const labelOf = new Map(graph.edges.map((e) => [e.source, e]));
  const positions: Local["positions"] = new Map();
  const routes = new Map<string, Point[]>();
  const labels: Local["labels"] = new Map();
  let y = top;
  order.forEach((id, i) => {
    const size = sizes.get(id)!;
    positions.set(id, { x: centre - size.width / 2, y, ...size });
    y += size.height;
    const edge = labelOf.get(id);
    if (i === order.length - 1 || !edge) return;
    const label = edge.label ? labelSize(edge.label) : null;
    const gap = BETWEEN_LAYERS + (label ? label.height : 0);
    routes.set(edge.key, [{ x: centre, y }, { x: centre, y: y + gap }]);
    if (label) labels.set(edge.key, { x: centre - label.width / 2, y: y + (gap - label.height) / 2, ...label });
    y += gap;
  });
  const firstId = order[0]!;
  const lastId = order[order.length - 1]!;
  if (graph.hasIn) routes.set(`${inId(graph.id)}>${firstId}`, [{ x: centre, y: top - 8 }, { x: centre, y: top }]);
  if (graph.hasOut) routes.set(`${lastId}>${outId(graph.id)}`, [{ x: centre, y }, { x: centre, y: y + 8 }]);
  return { width: inner + 2 * side, height: y + bottom, positions, routes, labels };
}

function sideBySide(graph: LocalGraph, sizes: Sizes, header: number): Local | null {
  const enter = inId(graph.id);
  const leave = outId(graph.id);
  if (graph.edges.some((e) => e.source !== enter && e.target !== leave)) return null;
  const [top, side, bottom] = padding(graph, header);
  const rowHeight = Math.max(...graph.children.map((c) => sizes.get(c.id)!.height));
  const positions: Local["positions"] = new Map();
  const routes = new Map<string, Point[]>();
  let x = side;
  for (const c of graph.children) {
    const size = sizes.get(c.id)!;
    positions.set(c.id, { x, y: top, ...size });
    const centre = x + size.width / 2;
    const below = top + size.height;
    if (graph.edges.some((e) => e.key === `${enter}>${c.id}`)) {
      routes.set(`${enter}>${c.id}`, [{ x: centre, y: top - 8 }, { x: centre, y: top }]);
    }
    if (graph.edges.some((e) => e.key === `${c.id}>${leave}`)) {
      routes.set(`${c.id}>${leave}`, [{ x: centre, y: below }, { x: centre, y: top + rowHeight + 8 }]);
    }
    x += size.width + SPACING;
  }
  return { width: x - SPACING + side, height: top + rowHeight + bottom, positions, routes, labels: new Map() };
}

function single(graph: LocalGraph, sizes: Sizes, header: number): Local {
  const child = graph.children[0]!;
  const size = sizes.get(child.id)!;
  const [top, side, bottom] = padding(graph, header);
  const centre = side + size.width / 2;
  const local: Local = {
    width: size.width + 2 * side,
    height: top + size.height + bottom,
    positions: new Map([[child.id, { x: side, y: top, ...size }]]),
    routes: new Map(),
    labels: new Map(),
  };
  if (graph.hasIn) local.routes.set(`${inId(graph.id)}>${child.id}`, [{ x: centre, y: top - 8 }, { x: centre, y: top }]);
  if (graph.hasOut) {
    local.routes.set(`${child.id}>${outId(graph.id)}`, [{ x: centre, y: top + size.height }, { x: centre, y: top + size.height + 8 }]);
  }
  return local;
}

/** The hub every edge of the graph ends at (or enters or leaves by), or null when there is none. */
function hubOf(graph: LocalGraph): string | null {
  const enter = inId(graph.id);
  const leave = outId(graph.id);
  let hub: string | null = null;
  const claim = (id: string) => {
    if (hub !== null && hub !== id) return false;
    hub = id;
    return true;
  };
  for (const e of graph.edges) {
    if (e.target === leave) {
      if (!claim(e.source)) return null;
    } else if (!claim(e.target) || e.source === e.target) return null;
  }
  if (hub === null) return null;
  // Only the hub may be left through, and nothing may leave the hub but to the exit.
  for (const e of graph.edges) if (e.source === hub && e.target !== leave) return null;
  return graph.edges.some((e) => e.source === enter && e.target !== hub) ? null : hub;
}

function fanIn(graph: LocalGraph, sizes: Sizes, header: number, labelSize: LabelSize): Local | null {
  const hub = hubOf(graph);
  if (hub === null) return null;
  const [top, side, bottom] = padding(graph, header);
  const sources = graph.children.filter((c) => c.id !== hub);
  const half = graph.hasIn ? Math.ceil(sources.length / 2) : sources.length;
  const positions: Local["positions"] = new Map();
  let x = side;
  let rowHeight = 0;
  let channel = 0;
  const openChannel = () => {
    channel = x - SPACING + CHANNEL / 2;
    x += CHANNEL - SPACING;
  };
  sources.forEach((c, i) => {
    if (graph.hasIn && i === half) openChannel(); // the entering edge's way down, between the two halves
    const size = sizes.get(c.id)!;
    positions.set(c.id, { x, y: top, ...size });
    x += size.width + SPACING;
    rowHeight = Math.max(rowHeight, size.height);
  });
  if (graph.hasIn && half === sources.length) openChannel();
  const rowWidth = Math.max(0, x - SPACING - side);
  const hubSize = sizes.get(hub)!;
  const inner = Math.max(rowWidth, hubSize.width);
  // Centre the row over the hub (or the hub under the row).
  const shift = (inner - rowWidth) / 2;
  for (const p of positions.values()) p.x += shift;
  channel += shift;
  // Labels below their box, on a second row where two would touch.
  const labels: Local["labels"] = new Map();
  const tiers: { x: number; right: number }[][] = [];
  const rowBottom = top + rowHeight;
  const labelled = graph.edges.filter((e) => e.label && positions.has(e.source));
  let labelHeight = 0;
  for (const e of labelled) {
    const size = labelSize(e.label);
    labelHeight = Math.max(labelHeight, size.height);
    const p = positions.get(e.source)!;
    const left = p.x + p.width / 2 - size.width / 2;
    let tier = tiers.findIndex((row) => row.every((other) => left + size.width + 6 <= other.x || other.right + 6 <= left));
    if (tier < 0) tier = tiers.push([]) - 1;
    tiers[tier]!.push({ x: left, right: left + size.width });
    labels.set(e.key, { x: left, y: rowBottom + 8 + tier * (size.height + 4), width: size.width, height: size.height });
  }
  const gap = sources.length ? BETWEEN_LAYERS + tiers.length * (labelHeight + 4) : 0;
  const hubX = side + (inner - hubSize.width) / 2;
  const hubY = sources.length ? rowBottom + gap : top;
  positions.set(hub, { x: hubX, y: hubY, ...hubSize });
  const routes = new Map<string, Point[]>();
  const entering = sources.length + (graph.hasIn ? 1 : 0);
  let slot = 0;
  for (const c of graph.children) {
    if (c.id === hub) continue;
    const p = positions.get(c.id)!;
    const key = `${c.id}>${hub}`;
    if (!graph.edges.some((e) => e.key === key)) continue;
    if (graph.hasIn && slot === half) slot++; // the middle slot is the entering edge's
    const endX = hubX + (hubSize.width * (slot + 1)) / (entering + 1);
    routes.set(key, [{ x: p.x + p.width / 2, y: p.y + p.height }, { x: endX, y: hubY }]);
    slot++;
  }
  const hubCentre = hubX + hubSize.width / 2;
  if (graph.hasIn) routes.set(`${inId(graph.id)}>${hub}`, [{ x: channel, y: top - 8 }, { x: channel, y: hubY - 12 }, { x: hubCentre, y: hubY }]);
  if (graph.hasOut) routes.set(`${hub}>${outId(graph.id)}`, [{ x: hubCentre, y: hubY + hubSize.height }, { x: hubCentre, y: hubY + hubSize.height + 8 }]);
  return { width: inner + 2 * side, height: hubY + hubSize.height + bottom, positions, routes, labels };
}
