/**
 * The profile dashboard: a run's PyTorch profiler traces (one per worker or rank), read through
 * /api/profile/*. A run and trace picker, then one view at a time: overview (step breakdown, utilisation, the
 * recommendation), operators (sortable, filtered by regex, grouped by input shapes, call stacks on a click),
 * kernels, memory, the timeline, and the comparison across ranks.
 */
import { useEffect, useState } from "preact/hooks";
import type { DashboardProps } from "@app/types";
import { useUrlState } from "@app/state";
import { getJson } from "@api/client";
import {
  CATEGORY_COLOURS, type KernelRow, type KernelsAnswer, type MemoryAnswer, type OperatorRow, type OperatorsAnswer,
  type OverviewAnswer, type RanksAnswer, type RunsAnswer, type StacksAnswer, percent, us,
} from "./api";
import { type Column, SortableTable } from "./Table";
import { Timeline } from "./Timeline";

const VIEWS = ["overview", "operators", "kernels", "memory", "timeline", "ranks"] as const;
const TITLES: Record<string, string> = { ranks: "Across ranks" };

/**
 * The answer of `load` for these `deps`: null until it came. An answer is kept with the deps it was asked for and
 * given only for those: on the render right after the deps changed (before the effect asks again), the previous
 * answer would otherwise reach a view of another kind (the overview's answer drawn as the ranks' table, which
 * threw, and the error boundary replaced the dashboard).
 */
function useAnswer<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[]): { data: T | null; error: string | null } {
  const key = JSON.stringify(deps);
  const [state, setState] = useState<{ key: string; data: T | null; error: string | null }>({ key, data: null, error: null });
  useEffect(() => {
    const controller = new AbortController();
    setState({ key, data: null, error: null });
    load(controller.signal).then(
      (data) => { if (!controller.signal.aborted) setState({ key, data, error: null }); },
      (err: unknown) => { if (!controller.signal.aborted) setState({ key, data: null, error: err instanceof Error ? err.message : String(err) }); },
    );
    return () => controller.abort();
  }, deps);
  return state.key === key ? state : { data: null, error: null };
}

function Shown<T>({ state, children }: { state: { data: T | null; error: string | null }; children: (data: T) => preact.ComponentChildren }) {
  if (state.error) return <p class="pf-error" role="alert" data-testid="profile-error">{state.error}</p>;
  if (!state.data) return <p class="rl-empty">Reading the trace…</p>;
  return <>{children(state.data)}</>;
}

function Breakdown({ values, categories, total }: { values: Record<string, number>; categories: string[]; total: number }) {
  return (
    <div class="pf-bar">
      {categories.map((c) => values[c] > 0 && (
        <span key={c} title={`${c}: ${us(values[c])}`} style={{ width: `${(100 * values[c]) / total}%`, background: CATEGORY_COLOURS[c] }} />
      ))}
    </div>
  );
}

function Overview({ data }: { data: OverviewAnswer }) {
  return (
    <div data-testid="profile-overview">
      {data.recommendation && <p class="pf-recommendation" data-testid="profile-recommendation">{data.recommendation}</p>}
      <dl class="pf-facts">
        <dt>Step time (mean)</dt><dd>{us(data.step_time_mean)}</dd>
        <dt>GPU utilisation</dt><dd>{data.device ? percent(data.gpu_utilisation) : "no device events"}</dd>
        <dt>Est. SM efficiency</dt><dd>{percent(data.sm_efficiency)}</dd>
        <dt>Achieved occupancy</dt><dd>{data.achieved_occupancy === null ? "–" : `${data.achieved_occupancy.toFixed(1)}%`}</dd>
        <dt>Events</dt><dd>{data.events.toLocaleString()}</dd>
      </dl>
      <p class="pf-legend">
        {data.categories.map((c) => (
          <span key={c}><i style={{ background: CATEGORY_COLOURS[c] }} /> {c} {percent(data.shares[c])}</span>
        ))}
      </p>
      <table class="pf-table" data-testid="profile-steps">
        <thead><tr><th>Step</th><th>Time</th><th>Breakdown</th></tr></thead>
        <tbody>
          {data.steps.map((s) => (
            <tr key={s.step}><td>{s.step}</td><td>{us(s.duration)}</td><td><Breakdown values={s} categories={data.categories} total={s.duration} /></td></tr>
          ))}
        </tbody>
      </table>
      {data.notes.map((note) => <p key={note} class="pf-note">{note}</p>)}
    </div>
  );
}

const OPERATOR_COLUMNS: Column<OperatorRow>[] = [
  { key: "name", label: "Operator", value: (r) => r.name },
  { key: "input_shapes", label: "Input shapes", value: (r) => r.input_shapes ?? "" },
  { key: "calls", label: "Calls", value: (r) => r.calls },
  { key: "self_cpu", label: "Self CPU", value: (r) => r.self_cpu, show: (r) => us(r.self_cpu) },
  { key: "total_cpu", label: "Total CPU", value: (r) => r.total_cpu, show: (r) => us(r.total_cpu) },
  { key: "self_device", label: "Self device", value: (r) => r.self_device, show: (r) => us(r.self_device) },
  { key: "total_device", label: "Total device", value: (r) => r.total_device, show: (r) => us(r.total_device) },
];

function Operators({ run, trace }: { run: string; trace: string }) {
  const [regex, setRegex] = useUrlState("pf.ops", "");
  const [byShapes, setByShapes] = useUrlState("pf.shapes", false);
  const [chosen, setChosen] = useState<string | null>(null);
  const table = useAnswer((signal) => getJson<OperatorsAnswer>("/api/profile/operators",
    { run, trace, by_shapes: byShapes, ...(regex ? { name_regex: regex } : {}) }, { signal }), [run, trace, regex, byShapes]);
  const stacks = useAnswer((signal) => chosen ? getJson<StacksAnswer>("/api/profile/stacks", { run, trace, name: chosen }, { signal }) : Promise.resolve(null), [run, trace, chosen]);
  const columns = byShapes ? OPERATOR_COLUMNS : OPERATOR_COLUMNS.filter((c) => c.key !== "input_shapes");
  return (
    <div>
      <div class="pf-toolbar">
        <input type="search" placeholder="filter operators (regex)" value={regex} data-testid="operator-filter"
          onChange={(e) => setRegex((e.target as HTMLInputElement).value)} />
        <label><input type="checkbox" checked={byShapes} onChange={(e) => setByShapes((e.target as HTMLInputElement).checked)} /> group by input shapes</label>
      </div>
      <Shown state={table}>{(d) => <SortableTable rows={d.operators} columns={columns} initial="self_cpu" testid="operator-table" onRow={(r) => setChosen(r.name)} />}</Shown>
      {chosen && stacks.data && (
        <div class="pf-stacks" data-testid="operator-stacks">
          <h4>Call stacks of {chosen}</h4>
          {stacks.data.stacks.length === 0 ? <p class="rl-empty">No Python stacks recorded (profile with with_stack=True).</p> :
            stacks.data.stacks.map((s, i) => <pre key={i}>{`${s.calls}×\n${s.frames.join("\n")}`}</pre>)}
        </div>
      )}
    </div>
  );
}

const optional = (v: number | null, digits = 1) => (v === null ? "–" : v.toFixed(digits));
const KERNEL_COLUMNS: Column<KernelRow>[] = [
  { key: "name", label: "Kernel", value: (r) => r.name },
  { key: "calls", label: "Calls", value: (r) => r.calls },
  { key: "total", label: "Total", value: (r) => r.total, show: (r) => us(r.total) },
  { key: "mean", label: "Mean", value: (r) => r.mean, show: (r) => us(r.mean) },
  { key: "max", label: "Max", value: (r) => r.max, show: (r) => us(r.max) },
  { key: "tensor_cores", label: "Tensor cores", value: (r) => (r.tensor_cores ? "yes" : "no") },
  { key: "grid", label: "Grid", value: (r) => r.grid },
  { key: "block", label: "Block", value: (r) => r.block },
  { key: "registers", label: "Registers", value: (r) => r.registers ?? -1, show: (r) => optional(r.registers, 0) },
  { key: "blocks_per_sm", label: "Blocks/SM", value: (r) => r.blocks_per_sm ?? -1, show: (r) => optional(r.blocks_per_sm, 2) },
  { key: "occupancy", label: "Occupancy %", value: (r) => r.occupancy ?? -1, show: (r) => optional(r.occupancy) },
];

function Memory({ data }: { data: MemoryAnswer }) {
  if (data.devices.length === 0) return <p class="rl-empty">No memory events (profile with profile_memory=True).</p>;
  return (
    <div data-testid="profile-memory">
      {data.devices.map((d) => {
        const t0 = d.ts[0], t1 = d.ts[d.ts.length - 1] || t0 + 1;
        const top = Math.max(d.peak.allocated, ...d.reserved.map((v) => v ?? 0), 1);
        const px = (t: number) => (800 * (t - t0)) / Math.max(t1 - t0, 1e-9);
        const py = (v: number | null) => 200 - (190 * (v ?? 0)) / top;
        const line = d.ts.map((t, i) => `${px(t).toFixed(1)},${py(d.allocated[i]).toFixed(1)}`).join(" ");
        return (
          <figure key={d.device} class="pf-memory">
            <figcaption>{d.device}: peak {(d.peak.allocated / 2 ** 20).toFixed(2)} MiB allocated at {us(d.peak.ts - t0)}</figcaption>
            <svg viewBox="0 0 800 200" width="800" height="200" role="img" aria-label={`memory of ${d.device}`}>
              <polyline points={line} fill="none" stroke="var(--accent, #1f77b4)" stroke-width="1.5" />
              <circle cx={px(d.peak.ts)} cy={py(d.peak.allocated)} r="4" fill="#d9534f" data-testid="memory-peak" />
            </svg>
          </figure>
        );
      })}
    </div>
  );
}

function Ranks({ data }: { data: RanksAnswer }) {
  return (
    <div data-testid="profile-ranks">
      <table class="pf-table">
        <thead><tr><th>Rank</th><th>Steps</th><th>Step time</th><th>Temporal breakdown</th><th>Comm./comp. overlap</th><th>Device idle (host wait / kernel wait / other)</th></tr></thead>
        <tbody>
          {data.ranks.map((r) => {
            const total = Object.values(r.breakdown).reduce((a, b) => a + b, 0) || 1;
            return (
              <tr key={r.rank} data-rank={r.rank}>
                <td>{r.rank}</td><td>{r.steps}</td><td>{us(r.step_time_mean)}</td>
                <td><Breakdown values={r.breakdown} categories={data.categories} total={total} /></td>
                <td>{percent(r.overlap)}</td>
                <td>{r.idle ? `${us(r.idle.host_wait)} / ${us(r.idle.kernel_wait)} / ${us(r.idle.other)}` : "–"}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <h4>Late-starting collectives</h4>
      {data.late_collectives.length === 0 ? <p class="rl-empty">No collectives shared by several ranks.</p> : (
        <table class="pf-table" data-testid="profile-late">
          <thead><tr><th>Step</th><th>Straggler</th><th>Start of the last long collective, after the earliest rank</th></tr></thead>
          <tbody>
            {data.late_collectives.map((l) => (
              <tr key={l.step}><td>{l.step}</td><td>rank {l.straggler}</td>
                <td>{Object.entries(l.delay).map(([rank, d]) => `rank ${rank}: +${us(d)}`).join(", ")}</td></tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

export function ProfileDashboard({ runs, tick }: DashboardProps) {
  const listing = useAnswer((signal) => getJson<RunsAnswer>("/api/profile/runs", undefined, { signal }), [tick]);
  const selected = new Set(runs.map((r) => r.run));
  const withTraces = (listing.data?.runs ?? []).filter((r) => selected.has(r.run));
  const [chosenRun, setRun] = useUrlState("pf.run", "");
  const [chosenTrace, setTrace] = useUrlState("pf.trace", "");
  const [chosenView, setView] = useUrlState<string>("pf.view", "overview");
  const view = (VIEWS as readonly string[]).includes(chosenView) ? chosenView : "overview";
  const entry = withTraces.find((r) => r.run === chosenRun) ?? withTraces[0];
  const trace = entry?.traces.find((t) => t.name === chosenTrace)?.name ?? entry?.traces[0]?.name;

  if (listing.error) return <p class="pf-error" role="alert">{listing.error}</p>;
  if (!listing.data) return <p class="rl-empty">Looking for traces…</p>;
  if (!entry || !trace) {
    return <p class="rl-empty" data-testid="profile-empty">No selected run has profiler traces (torch.profiler.tensorboard_trace_handler writes them into the run's directory).</p>;
  }
  return (
    <div class="rl-profile" data-testid="profile-dashboard">
      <div class="pf-toolbar">
        <label>Run <select value={entry.run} data-testid="profile-run" onChange={(e) => setRun((e.target as HTMLSelectElement).value)}>
          {withTraces.map((r) => <option key={r.run} value={r.run}>{r.run}</option>)}
        </select></label>
        <label>Trace <select value={trace} data-testid="profile-trace" onChange={(e) => setTrace((e.target as HTMLSelectElement).value)}>
          {entry.traces.map((t) => <option key={t.name} value={t.name}>{t.worker} ({(t.bytes / 2 ** 20).toFixed(1)} MiB)</option>)}
        </select></label>
      </div>
      <nav class="pf-views" role="tablist">
        {VIEWS.map((v) => (
          <button key={v} type="button" role="tab" aria-selected={view === v} data-view={v} onClick={() => setView(v)}>
            {TITLES[v] ?? v[0].toUpperCase() + v.slice(1)}
          </button>
        ))}
      </nav>
      <View view={view} run={entry.run} trace={trace} />
    </div>
  );
}

function View({ view, run, trace }: { view: string; run: string; trace: string }) {
  const path = view === "overview" ? "/api/profile/overview" : view === "kernels" ? "/api/profile/kernels" : view === "memory" ? "/api/profile/memory" : null;
  type ViewAnswer = RanksAnswer | OverviewAnswer | KernelsAnswer | MemoryAnswer | null;
  const state = useAnswer<ViewAnswer>((signal): Promise<ViewAnswer> => {
    if (view === "ranks") return getJson<RanksAnswer>("/api/profile/ranks", { run }, { signal });
    if (path === "/api/profile/overview") return getJson<OverviewAnswer>(path, { run, trace }, { signal });
    if (path === "/api/profile/kernels") return getJson<KernelsAnswer>(path, { run, trace }, { signal });
    if (path === "/api/profile/memory") return getJson<MemoryAnswer>(path, { run, trace }, { signal });
    return Promise.resolve(null);
  }, [view, run, trace]);
  if (view === "operators") return <Operators run={run} trace={trace} />;
  if (view === "timeline") return <Timeline run={run} trace={trace} />;
  return (
    <Shown state={state}>
      {(data) => {
        if (view === "overview") return <Overview data={data as OverviewAnswer} />;
        if (view === "kernels") {
          const rows = (data as KernelsAnswer).kernels;
          return rows.length ? <SortableTable rows={rows} columns={KERNEL_COLUMNS} initial="total" testid="kernel-table" /> : <p class="rl-empty">No device kernels in this trace (a CPU-only run).</p>;
        }
        if (view === "memory") return <Memory data={data as MemoryAnswer} />;
        return <Ranks data={data as RanksAnswer} />;
      }}
    </Shown>
  );
}
