import ELK from "elkjs/lib/elk.bundled.js";
import { describe, expect, it } from "vitest";
import { cut, inId, outId, ROOT } from "./hierarchy";
import { layout, type Layout, type LayoutStats } from "./layout";
import { graphData } from "./fixture";
import { indexGraph, initialExpanded, shownGraph, type GraphData } from "./model";

/**
 * A model: `blocks` residual blocks in a chain, each a conv scope (weight + op), a norm scope (4 parameters + op)
 * and an add of the block's input to the norm's output (a shape ELK lays out); `shape` on every edge.
 */
function model(blocks: number, shape = "1×3"): GraphData {
  const nodes: GraphData["nodes"] = [{ name: "input/x", op: "IO Node", device: "", attrs: {}, shapes: [shape], dtype: null }];
  const edges: GraphData["edges"] = [];
  const node = (name: string, op: string, inputs: string[]) => {
    nodes.push({ name, op, device: "", attrs: {}, shapes: [shape], dtype: null });
    for (const source of inputs) edges.push({ source, target: name, output: 0, control: false, shape });
  };
  let previous = "input/x";
  for (let b = 0; b < blocks; b++) {
    const at = `Net/Block[${b}]`;
    node(`${at}/Conv[conv]/weight/w`, "prim::GetAttr", []);
    node(`${at}/Conv[conv]/op`, "aten::conv", [previous, `${at}/Conv[conv]/weight/w`]);
    const params = ["weight", "bias", "mean", "var"].map((p) => `${at}/Norm[bn]/${p}/${p}`);
    for (const p of params) node(p, "prim::GetAttr", []);
    node(`${at}/Norm[bn]/op`, "aten::batch_norm", [`${at}/Conv[conv]/op`, ...params]);
    node(`${at}/add`, "aten::add", [previous, `${at}/Norm[bn]/op`]);
    previous = `${at}/add`;
  }
  node("output/y", "IO Node", [previous]);
  return graphData(nodes, edges);
}

/** A model calling one ReLU module twice (its scope holds two ops, side by side), around a linear layer. */
function sharedModule(): GraphData {
  const io = (name: string) => ({ name, op: "IO Node", device: "", attrs: {}, shapes: ["1×4"], dtype: null });
  const op = (name: string) => ({ name, op: "aten::op", device: "", attrs: {}, shapes: ["1×4"], dtype: null });
  const names = ["Net/Conv[conv]/op", "Net/ReLU[relu]/op.1", "Net/Linear[fc]/op", "Net/ReLU[relu]/op.2"];
  const nodes = [io("input/x"), ...names.map(op), io("output/y")];
  const chain = ["input/x", ...names, "output/y"];
  const edges = chain.slice(1).map((target, i) => ({ source: chain[i]!, target, output: 0, control: false, shape: "1×4" }));
  return graphData(nodes, edges);
}


const elks = [new ELK()];
let stats: LayoutStats | null = null;
async function laidOut(data: GraphData, expanded: Set<string>): Promise<Layout> {
  const placed = await layout(shownGraph(indexGraph(data), expanded), elks, (s) => (stats = s));
  return placed;
}

describe("cutting the shown graph by scope", () => {
  it("cuts an edge where its ends meet and passes it through the scopes in between", () => {
    const index = indexGraph(model(1));
    const shown = shownGraph(index, new Set(index.scopes.keys()));
    const pieces = cut(shown);
    const block = pieces.graphs.get("s:Net/Block[0]")!;
    // conv op -> norm op: the two scopes' children meet in the block.
    expect(block.edges.map((e) => e.key)).toContain("s:Net/Block[0]/Conv[conv]>s:Net/Block[0]/Norm[bn]");
    const conv = pieces.graphs.get("s:Net/Block[0]/Conv[conv]")!;
    expect(conv.hasIn && conv.hasOut).toBe(true);
    expect(conv.edges.map((e) => e.key)).toContain(`${inId(conv.id)}>n:Net/Block[0]/Conv[conv]/op`);
    expect(conv.edges.map((e) => e.key)).toContain(`n:Net/Block[0]/Conv[conv]/op>${outId(conv.id)}`);
    // The label is on the piece where the ends meet, not on the pieces through scopes.
    const root = pieces.graphs.get(ROOT)!;
    expect(root.edges.find((e) => e.key === "s:input>s:Net")!.label).toBe("1×3");
    expect(conv.edges.every((e) => e.label === "" || e.target === "n:Net/Block[0]/Conv[conv]/op")).toBe(true);
  });
});

function inside(child: { x: number; y: number; width: number; height: number }, parent: typeof child): boolean {
  return child.x >= parent.x - 0.5 && child.y >= parent.y - 0.5 && child.x + child.width <= parent.x + parent.width + 0.5 && child.y + child.height <= parent.y + parent.height + 0.5;
}

describe("the incremental layout", () => {
  it("places every box inside its scope, and boxes of one scope apart", async () => {
    const data = model(3);
    const index = indexGraph(data);
    expectPlaced(await laidOut(data, new Set(index.scopes.keys())));
  });

  it("lays out repeated blocks once, each placed under its own names", async () => {
    const data = model(6, "1×6");
    const index = indexGraph(data);
    const placed = await laidOut(data, new Set(index.scopes.keys()));
    // The six blocks have one signature: one is laid out by ELK, the others take its layout; the rest is quick.
    expect(stats!.laidOut).toBe(1);
    expectPlaced(placed);
    const block = (b: number) => placed.boxes.find((x) => x.box.name === `Net/Block[${b}]`)!;
    const add = (b: number) => placed.boxes.find((x) => x.box.name === `Net/Block[${b}]/add`)!;
    expect(add(4).x - block(4).x).toBeCloseTo(add(1).x - block(1).x, 5);
    expect(add(4).y - block(4).y).toBeCloseTo(add(1).y - block(1).y, 5);
  });

  it("draws a module called twice side by side, and a chain on one axis, without ELK", async () => {
    const data = sharedModule();
    const index = indexGraph(data);
    const placed = await laidOut(data, new Set(index.scopes.keys()));
    expectPlaced(placed);
    const [first, second] = ["Net/ReLU[relu]/op.1", "Net/ReLU[relu]/op.2"].map((n) => placed.boxes.find((b) => b.box.name === n)!);
    expect(first!.y).toBeCloseTo(second!.y, 5);
    expect(first!.x + first!.width).toBeLessThan(second!.x);
    // The top level is a chain (input, Net, output) on one vertical axis.
    const centres = ["input/x", "Net", "output/y"].map((n) => placed.boxes.find((b) => b.box.name === n)!).map((b) => b.x + b.width / 2);
    expect(centres[0]).toBeCloseTo(centres[1]!, 5);
    expect(centres[2]).toBeCloseTo(centres[1]!, 5);
  });
});

/** Every box inside its scope, the leaves of one scope apart, every edge from its source box to its target box. */
function expectPlaced(placed: Layout): void {
  {
    const byName = new Map(placed.boxes.map((b) => [b.box.name, b]));
    for (const b of placed.boxes) {
      const parent = b.box.name.includes("/") ? byName.get(b.box.name.slice(0, b.box.name.lastIndexOf("/"))) : undefined;
      if (parent) expect(inside(b, parent), `${b.box.name} inside ${parent.box.name}`).toBe(true);
    }
    const siblings = placed.boxes.filter((b) => b.box.name.startsWith("Net/Block[0]/Norm[bn]/") && b.depth === 3);
    for (const a of siblings) for (const b of siblings) {
      if (a === b) continue;
      const apart = a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y;
      expect(apart).toBe(true);
    }
    // Every edge starts at its source box and ends at its target box.
    const byId = new Map(placed.boxes.map((b) => [b.box.id, b]));
    for (const e of placed.edges) {
      const first = e.points[0]!;
      const last = e.points.at(-1)!;
      const s = byId.get(e.source)!;
      const t = byId.get(e.target)!;
      expect(first.y).toBeCloseTo(s.y + s.height, 0);
      expect(first.x >= s.x - 1 && first.x <= s.x + s.width + 1).toBe(true);
      expect(last.y).toBeCloseTo(t.y, 0);
      expect(last.x >= t.x - 1 && last.x <= t.x + t.width + 1).toBe(true);
    }
  }
}

describe("toggling a scope", () => {
  it("lays out again only the scope that changed and the scopes around it", async () => {
    const data = model(4, "1×5"); // a shape of its own: no layout of it is cached yet
    const index = indexGraph(data);
    const open = new Set([...index.scopes.keys()].filter((s) => !s.endsWith("Norm[bn]") || s === "Net/Block[0]/Norm[bn]"));
    await laidOut(data, open);
    expect(stats!.laidOut).toBe(2); // a block with its norm open (Block[0]), one with it closed (the others)
    // Open one more scope: it is a fan-in (no ELK), the levels above are chains (no ELK), and its block now looks
    // like Block[0]: that layout is reused.
    const next = new Set(open).add("Net/Block[2]/Norm[bn]");
    const placed = await laidOut(data, next);
    expect(stats!.laidOut).toBe(0);
    expect(placed.boxes.find((b) => b.box.name === "Net/Block[2]/Norm[bn]")!.box.kind).toBe("group");
    // A block of a shape not seen yet: it alone is laid out.
    const other = new Set(next);
    other.delete("Net/Block[3]/Conv[conv]");
    await laidOut(data, other);
    expect(stats!.laidOut).toBe(1);
    // And back: the earlier layouts are reused.
    await laidOut(data, open);
    expect(stats!.laidOut).toBe(0);
  });

  it("lays out the first view, at the top level", async () => {
    const data = model(1);
    const index = indexGraph(data);
    const placed = await laidOut(data, initialExpanded(index));
    expect(placed.width).toBeGreaterThan(0);
    expect(placed.boxes.length).toBeGreaterThan(0);
    expect(placed.boxes.every((b) => b.depth === 0 || b.box.kind !== "scope")).toBe(true);
  });
});
