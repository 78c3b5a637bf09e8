import ELK from "elkjs/lib/elk.bundled.js";
import { describe, expect, it } from "vitest";
import { cut, inId, outId, ROOT } from "./hierarchy";
import { layout, type Layout, type LayoutStats } from "./layout";
import { indexGraph, initialExpanded, shownGraph, type GraphData } from "./model";

/** A model: `blocks` blocks, each a conv scope (weight + op) and a norm scope (4 parameters + op), in a chain. */
function model(blocks: number): GraphData {
  const nodes: GraphData["nodes"] = [{ name: "input/x", op: "IO Node", device: "", attrs: {}, shapes: ["1×3"], dtype: null }];
  const edges: GraphData["edges"] = [];
  const node = (name: string, op: string, inputs: string[]) => {
    nodes.push({ name, op, device: "", attrs: {}, shapes: ["1×3"], dtype: null });
    for (const source of inputs) edges.push({ source, target: name, output: 0, control: false, shape: "1×3" });
  };
  let previous = "input/x";
  for (let b = 0; b < blocks; b++) {
    const at = `Net/Block[${b}]`;
    node(`${at}/Conv[conv]/weight/w`, "prim::GetAttr", []);
    node(`${at}/Conv[conv]/op`, "aten::conv", [previous, `${at}/Conv[conv]/weight/w`]);
    const params = ["weight", "bias", "mean", "var"].map((p) => `${at}/Norm[bn]/${p}/${p}`);
    for (const p of params) node(p, "prim::GetAttr", []);
    node(`${at}/Norm[bn]/op`, "aten::batch_norm", [`${at}/Conv[conv]/op`, ...params]);
    previous = `${at}/Norm[bn]/op`;
  }
  node("output/y", "IO Node", [previous]);
  const scopes = new Map<string, number>();
  for (const n of nodes) {
    const parts = n.name.split("/");
    for (let d = 1; d < parts.length; d++) scopes.set(parts.slice(0, d).join("/"), (scopes.get(parts.slice(0, d).join("/")) ?? 0) + 1);
  }
  return {
    run: "r",
    tag: "__graph__",
    tags: ["__graph__"],
    format: "graph_def",
    step: 0,
    nodes,
    edges,
    scopes: [...scopes].map(([name, count]) => ({ name, parent: name.includes("/") ? name.slice(0, name.lastIndexOf("/")) : null, nodes: count })),
    missing_inputs: 0,
  };
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
    const placed = await laidOut(data, new Set(index.scopes.keys()));
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
  });

  it("lays out again only the scope that changed and the scopes around it", async () => {
    const data = model(4);
    const index = indexGraph(data);
    const open = new Set([...index.scopes.keys()].filter((s) => !s.endsWith("Norm[bn]") || s === "Net/Block[0]/Norm[bn]"));
    await laidOut(data, open);
    // Open one more scope: only it (a fan-in: no ELK), its block and the levels above are laid out again.
    const next = new Set(open).add("Net/Block[2]/Norm[bn]");
    const placed = await laidOut(data, next);
    expect(stats!.laidOut).toBeLessThanOrEqual(3); // Block[2], Net, the top level
    expect(placed.boxes.find((b) => b.box.name === "Net/Block[2]/Norm[bn]")!.box.kind).toBe("group");
    // And back: the earlier layout of the block is reused.
    await laidOut(data, open);
    expect(stats!.laidOut).toBe(0);
  });

  it("opens a small graph whole", async () => {
    const data = model(1);
    const index = indexGraph(data);
    const placed = await laidOut(data, initialExpanded(index));
    expect(placed.width).toBeGreaterThan(0);
    expect(placed.boxes.length).toBeGreaterThan(3);
  });
});
