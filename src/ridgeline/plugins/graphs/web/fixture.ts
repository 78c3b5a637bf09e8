/** For the graphs' unit tests: a graph record as `GET /api/graphs` answers it, from its nodes and edges. */
import type { GraphData } from "./model";

/** The record of `nodes` and `edges`, with every `/`-separated prefix of a node name as a scope. */
export function graphData(nodes: GraphData["nodes"], edges: GraphData["edges"]): GraphData {
  const scopes = new Map<string, number>();
  for (const n of nodes) {
    const parts = n.name.split("/");
    for (let d = 1; d < parts.length; d++) {
      const s = parts.slice(0, d).join("/");
      scopes.set(s, (scopes.get(s) ?? 0) + 1);
    }
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
