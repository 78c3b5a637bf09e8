/**
 * The side panel of the selected box: a node's full name, op, device, inputs and outputs with the shape of each
 * tensor, output shapes and attributes; a scope's full name, how many nodes it holds and its direct members.
 * Names are shown whole (they wrap); a click on an input, output or member selects it in the graph.
 */
import type { ComponentChildren } from "preact";
import { leafName, type GraphEdge, type Index } from "./model";

interface Props {
  index: Index;
  name: string | null;
  isScope: boolean;
  onReveal(name: string): void;
}

export function NodePanel({ index, name, isScope, onReveal }: Props) {
  if (name === null) {
    return (
      <p class="muted rl-graph-hint">
        Click a node to see its full name, inputs, outputs and attributes. Click a scope to open or close it; drag
        to pan, scroll to zoom.
      </p>
    );
  }
  if (isScope) {
    const scope = index.scopes.get(name);
    const members = [...(index.childScopes.get(name) ?? []), ...(index.childNodes.get(name) ?? [])];
    return (
      <Panel name={name}>
        <dl>
          <dt>Scope</dt>
          <dd>{scope?.nodes ?? 0} nodes inside</dd>
        </dl>
        <h4>Members</h4>
        <ul class="rl-graph-links">
          {members.map((m) => (
            <li key={m}>
              <button type="button" onClick={() => onReveal(m)} title={m}>
                {leafName(m)}
              </button>
            </li>
          ))}
        </ul>
      </Panel>
    );
  }
  const node = index.nodes.get(name);
  if (!node) return null;
  const inputs = index.incoming.get(name) ?? [];
  const outputs = index.outgoing.get(name) ?? [];
  const attrs = Object.entries(node.attrs).filter(([, v]) => v !== "");
  return (
    <Panel name={name}>
      <dl>
        <dt>Op</dt>
        <dd>
          <code>{node.op || "—"}</code>
        </dd>
        {node.device && (
          <>
            <dt>Device</dt>
            <dd>
              <code>{node.device}</code>
            </dd>
          </>
        )}
        {node.shapes.length > 0 && (
          <>
            <dt>Output shape{node.shapes.length > 1 ? "s" : ""}</dt>
            <dd>{node.shapes.join(", ")}</dd>
          </>
        )}
        {node.dtype && (
          <>
            <dt>Type</dt>
            <dd>{node.dtype}</dd>
          </>
        )}
      </dl>
      <EdgeList title="Inputs" edges={inputs} end="source" onReveal={onReveal} />
      <EdgeList title="Outputs" edges={outputs} end="target" onReveal={onReveal} />
      {attrs.length > 0 && (
        <>
          <h4>Attributes</h4>
          <table class="rl-graph-attrs">
            <tbody>
              {attrs.map(([k, v]) => (
                <tr key={k}>
                  <th>{k}</th>
                  <td>
                    <code>{v}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </Panel>
  );
}

function EdgeList(props: { title: string; edges: GraphEdge[]; end: "source" | "target"; onReveal(name: string): void }) {
  const { title, edges, end, onReveal } = props;
  return (
    <>
      <h4>
        {title} <span class="muted">({edges.length})</span>
      </h4>
      {edges.length === 0 ? (
        <p class="muted">none</p>
      ) : (
        <ul class="rl-graph-links">
          {edges.map((e, i) => (
            <li key={i}>
              <button type="button" onClick={() => onReveal(e[end])}>
                {e[end]}
              </button>
              {e.shape && <span class="rl-graph-shape">{e.shape}</span>}
              {e.control && <span class="muted"> (control)</span>}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

/** The panel with the full name as its heading (whole, wrapping anywhere: never cut). */
function Panel({ name, children }: { name: string; children: ComponentChildren }) {
  return (
    <section class="rl-graph-panel" data-testid="graph-panel" data-name={name}>
      <h3 class="rl-graph-fullname" data-testid="graph-panel-name">
        {name}
      </h3>
      {children}
    </section>
  );
}
