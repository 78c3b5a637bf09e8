/**
 * The graphs dashboard: one run's model graph (what `add_graph` wrote), chosen with a run picker (and a tag
 * picker when the run has several graph records). The graph opens at its top level (model initialExpanded); a
 * click toggles a scope, and only the scopes it changed are laid out again (./layout). The view opens fitted at a
 * readable scale (./GraphView fitView); the graph downloads as SVG or PNG (./download). A click on a node shows it in the side panel
 * (full name, op, device, inputs and outputs with their shapes, attributes); the search box finds nodes by regex
 * and brings the one chosen into view, opening its scopes.
 */
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import type { DashboardProps, RunInfo } from "@app/types";
import { useUrlState } from "@app/state";
import { getJson } from "@api/client";
import { registry } from "@charts/registry";
import { GraphView } from "./GraphView";
import { layout as runLayout, type Layout, type PlacedBox } from "./layout";
import {
  ancestors,
  drawableTags,
  indexGraph,
  initialExpanded,
  nodeId,
  scopeId,
  searchNames,
  shownGraph,
  type GraphData,
  type Index,
} from "./model";
import { NodePanel } from "./NodePanel";
import type { Answer } from "@api/types";

const READY_ID = "graph";

/** What tells two answers for the same run and tag apart (a rewritten graph): nothing else is compared. */
const versionOf = (g: GraphData) => `${g.step}:${g.format}:${g.nodes.length}:${g.edges.length}`;

export function GraphsDashboard({ runs, tick }: DashboardProps) {
  const withGraph = useMemo(() => runs.filter((r) => (r.tags.graphs ?? []).length > 0), [runs]);
  const [chosenRun, setRun] = useUrlState("g.run", "");
  const run: RunInfo | undefined = withGraph.find((r) => r.run === chosenRun) ?? withGraph[0];
  const tags = drawableTags(run?.tags.graphs ?? []);
  const [chosenTag, setTag] = useUrlState("g.tag", "");
  const tag = tags.includes(chosenTag) ? chosenTag : tags.includes("__graph__") ? "__graph__" : tags[0];

  const [data, setData] = useState<{ key: string; version: string; index: Index } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const key = run && tag ? `${run.run}\u0000${tag}` : "";

  useEffect(() => {
    registry.add(READY_ID);
    registry.setVisible(READY_ID, true);
    return () => registry.remove(READY_ID);
  }, []);

  // A new run or tag: load its graph. On a reload (tick) ask again, and redraw only if the graph changed.
  const shownKey = useRef("");
  const loadedKey = useRef("");
  const failedKey = useRef("");
  useEffect(() => {
    if (!run || !tag) return;
    if (failedKey.current === key && shownKey.current === key) return; // unreadable: asking again changes nothing
    const controller = new AbortController();
    if (shownKey.current !== key) {
      shownKey.current = key;
      loadedKey.current = "";
      failedKey.current = "";
      setError(null);
      setData(null);
      registry.setReady(READY_ID, false);
    }
    getJson<Answer<"/api/graphs", GraphData>>("/api/graphs", { run: run.run, tag }, { signal: controller.signal })
      .then((graph) => {
        const version = versionOf(graph);
        loadedKey.current = key;
        setError(null);
        setData((old) => (old && old.key === key && old.version === version ? old : { key, version, index: indexGraph(graph) }));
      })
      .catch((err: unknown) => {
        if (controller.signal.aborted || loadedKey.current === key) return; // a failed reload keeps what is drawn
        failedKey.current = key;
        setError(err instanceof Error ? err.message : String(err));
        registry.setReady(READY_ID, true);
      });
    return () => controller.abort();
  }, [key, tick]);

  // Nothing to draw is drawn: the page is ready (tests and bench/ui.py wait on it).
  const empty = withGraph.length === 0;
  useLayoutEffect(() => {
    if (empty) registry.setReady(READY_ID, true);
  }, [empty]);

  if (withGraph.length === 0) {
    return <p class="rl-graph-empty muted">None of the selected runs has a graph (write one with add_graph).</p>;
  }
  return (
    <div class="rl-graph-page">
      <div class="rl-graph-toolbar">
        <label>
          Run{" "}
          <select data-testid="graph-run" value={run?.run} onChange={(e) => setRun(e.currentTarget.value)}>
            {withGraph.map((r) => (
              <option key={r.run} value={r.run}>
                {r.run}
              </option>
            ))}
          </select>
        </label>
        {tags.length > 1 && (
          <label>
            Graph{" "}
            <select data-testid="graph-tag" value={tag} onChange={(e) => setTag(e.currentTarget.value)}>
              {tags.map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </select>
          </label>
        )}
      </div>
      {error !== null && (
        <div class="rl-graph-error" role="alert" data-testid="graph-error">
          {error}
        </div>
      )}
      {data && data.key === key && <GraphPane key={`${key}\u0000${data.version}`} index={data.index} run={run!.run} tag={tag!} />}
      {!data && error === null && <p class="muted">Loading the graph…</p>}
    </div>
  );
}

function GraphPane({ index, run, tag }: { index: Index; run: string; tag: string }) {
  const [showConstants, setShowConstants] = useUrlState("g.constants", false);
  const [expanded, setExpanded] = useState<Set<string>>(() => initialExpanded(index, !showConstants));
  const [placed, setPlaced] = useState<{ layout: Layout; fit: boolean } | null>(null);
  const refit = useRef(true);
  const [layoutError, setLayoutError] = useState<string | null>(null);
  const [drawn, setDrawn] = useState(false);
  const [selected, setSelected] = useState<string | null>(null);
  const [query, setQuery] = useState("");
  const [focus, setFocus] = useState<{ id: string } | null>(null);
  const shown = useMemo(() => shownGraph(index, expanded, !showConstants), [index, expanded, showConstants]);

  const [busy, setBusy] = useState(false);
  useEffect(() => {
    let live = true;
    setDrawn(false);
    setBusy(true);
    runLayout(shown)
      .finally(() => live && setBusy(false))
      .then((result) => {
        if (!live) return;
        setPlaced({ layout: result, fit: refit.current });
        refit.current = false;
      })
      .catch((err: unknown) => live && setLayoutError(err instanceof Error ? err.message : String(err)));
    return () => {
      live = false;
    };
  }, [shown]);

  const ready = (placed !== null && drawn) || layoutError !== null;
  useLayoutEffect(() => registry.setReady(READY_ID, ready), [ready]);

  let searchError: string | null = null;
  let found: string[] = [];
  try {
    found = searchNames(index, query);
  } catch (err) {
    searchError = err instanceof Error ? err.message : String(err);
  }
  const matches = useMemo(() => {
    const ids = new Set<string>();
    for (const name of found) {
      const owner = index.scopes.has(name) && !index.nodes.has(name) ? scopeId(name) : shown.owner.get(name);
      if (owner) ids.add(owner);
    }
    return ids;
  }, [found.join("\u0000"), shown]);

  const toggle = (box: PlacedBox) => {
    const next = new Set(expanded);
    if (next.has(box.box.name)) next.delete(box.box.name);
    else next.add(box.box.name);
    setExpanded(next);
    setFocus({ id: box.box.id }); // the box keeps its id whether open or closed: keep it in view
  };

  /** Opens the scopes around `name`, selects it and brings it into view. */
  const reveal = (name: string) => {
    const isScope = index.scopes.has(name) && !index.nodes.has(name);
    const next = new Set(expanded);
    for (const scope of ancestors(index, name)) if (scope !== name || !isScope) next.add(scope);
    if (isScope) next.delete(name);
    if (next.size !== expanded.size || [...next].some((s) => !expanded.has(s))) setExpanded(next);
    if (!showConstants && index.constants.has(name)) setShowConstants(true);
    const id = isScope ? scopeId(name) : nodeId(name);
    setSelected(id);
    setFocus({ id });
  };

  const selectedName = selected?.slice(2) ?? null;
  return (
    <div class="rl-graph-body">
      <div
        class="rl-graph-view"
        data-testid="graph-view"
        data-ready={ready && !layoutError ? "true" : "false"}
        data-boxes={placed?.layout.boxes.length ?? 0}
      >
        <div class="rl-graph-actions">
          <button type="button" data-testid="graph-expand-all" onClick={() => ((refit.current = true), setExpanded(new Set(index.scopes.keys())))}>
            Expand all
          </button>
          <button type="button" data-testid="graph-collapse-all" onClick={() => ((refit.current = true), setExpanded(new Set()))}>
            Collapse all
          </button>
          <label title="prim::Constant / Const nodes, and lists built only of them">
            <input
              type="checkbox"
              data-testid="graph-constants"
              checked={showConstants}
              onChange={(e) => setShowConstants(e.currentTarget.checked)}
            />{" "}
            Show constants ({index.constants.size})
          </label>
          {busy && (
            <span class="rl-graph-busy" role="status" data-testid="graph-busy">
              Laying out {shown.boxes} boxes…
            </span>
          )}
          <span class="muted rl-graph-stats">
            {index.data.nodes.length} nodes · {index.data.edges.length} edges · {index.data.scopes.length} scopes
          </span>
        </div>
        {layoutError !== null && (
          <div class="rl-graph-error" role="alert">
            The layout failed: {layoutError}
          </div>
        )}
        {placed && (
          <GraphView
            layout={placed.layout}
            fit={placed.fit}
            selected={selected}
            matches={matches}
            focus={focus}
            onSelect={(box) => setSelected(box?.box.id ?? null)}
            onToggle={toggle}
            onDrawn={() => setDrawn(true)}
            run={run}
            tag={tag}
          />
        )}
      </div>
      <aside class="rl-graph-side">
        <label class="rl-graph-search">
          <span>Find a node (regex)</span>
          <input
            type="search"
            data-testid="graph-search"
            value={query}
            placeholder="e.g. conv|linear"
            spellcheck={false}
            onInput={(e) => setQuery(e.currentTarget.value)}
          />
        </label>
        {searchError !== null && (
          <div class="rl-graph-error" role="alert">
            Not a valid regular expression: {searchError}
          </div>
        )}
        {query && searchError === null && (
          <ul class="rl-graph-results" data-testid="graph-results">
            {found.length === 0 && <li class="muted">No node matches.</li>}
            {found.slice(0, 50).map((name) => (
              <li key={name}>
                <button type="button" title={name} onClick={() => reveal(name)}>
                  {name}
                </button>
              </li>
            ))}
            {found.length > 50 && <li class="muted">… {found.length - 50} more: refine the pattern</li>}
          </ul>
        )}
        <NodePanel index={index} name={selectedName} isScope={selected?.startsWith("s:") ?? false} onReveal={reveal} />
      </aside>
    </div>
  );
}
