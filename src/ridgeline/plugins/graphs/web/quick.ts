/**
 * Layouts of the two shapes most scopes of a traced model have, computed directly instead of by ELK (a traced
 * ResNet-50 has 420 scopes: 270 hold one box, 110 are a fan-in — a module's parameters feeding its one op):
 *
 * - one box: the box below the header, an entering edge from above and a leaving one below;
 * - a fan-in: every edge ends at one box (the hub), or enters or leaves the scope through it. The other boxes
 *   sit in a row above the hub (with a channel down the middle for the entering edge), their edges drop to the
 *   hub's top, each labelled just below its box (labels that would touch go on a second row).
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
  return fanIn(graph, sizes, header, labelSize);
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
