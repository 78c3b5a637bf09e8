/**
 * The distributed dashboard: the ranks of a distributed run as one run. A summary (clock source, sync delay,
 * straggler and what it cost), a table of ranks (host, clock offset ± uncertainty, score, flags), then a chart
 * per tag all ranks log — aggregated (statistic and band selectable) or every rank's line, against the step or
 * aligned relative time. System metric tags (sys/...) come last, in their own section, collapsed at first.
 * Settings live in the URL ("dist.*").
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { getJson } from "@api/client";
import { takeFirstAnswer } from "./firstAnswer";
export { firstAnswerSettled } from "./firstAnswer";
import { useUrlState } from "@app/state";
import type { DashboardProps } from "@app/types";
import { firstChartPoints, formatOffset, splitTags, type BandKind, type DistributedRun, type RunsAnswer, type SeriesAnswerBody, type Statistic, type View, type XAxis } from "./model";
import { RankChart } from "./RankChart";
import { SettingsBar } from "@app/SettingsBar";

function Select<T extends string>(props: { label: string; testId: string; value: T; options: [T, string][]; set: (v: T) => void }) {
  return (
    <label class="rl-field">
      <span>{props.label}</span>
      <select data-testid={props.testId} value={props.value} onChange={(e) => props.set((e.target as HTMLSelectElement).value as T)}>
        {props.options.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
}

function Summary({ run }: { run: DistributedRun }) {
  const parts = [`${run.world_size} ranks`, `clocks aligned from ${run.clock_source === "sync" ? "sync records" : run.clock_source === "steps" ? "logged steps" : "nothing (no common steps)"}`];
  if (run.sync_delay_ms) parts.push(`sync delay median ${run.sync_delay_ms.median.toFixed(1)} ms, p95 ${run.sync_delay_ms.p95.toFixed(1)} ms`);
  const lb = run.load_balance;
  if (lb.gpu_utilisation_std_pp !== null) parts.push(`GPU utilisation spread ${lb.gpu_utilisation_std_pp.toFixed(1)} pp${lb.gpu_utilisation_flagged ? " (over 5 pp)" : ""}`);
  if (lb.input_bound_ranks.length) parts.push(`input-bound: rank ${lb.input_bound_ranks.join(", ")}`);
  if (run.restarts.length) parts.push(`${run.restarts.length} restart(s)`);
  return (
    <div class="rl-dist-summary">
      <p data-testid="distributed-summary">{parts.join(" · ")}</p>
      {run.straggler && (
        <p class="rl-dist-straggler" data-testid="distributed-straggler" role="status">
          Straggler: rank {run.straggler.rank}, which cost the other ranks {run.straggler.cost_s.toFixed(3)} s of waiting.
        </p>
      )}
    </div>
  );
}

/** Rows of the ranks table in the dashboard's first render: about what its box shows (220 px, 25 px a row). */
const FIRST_ROWS = 12;

/**
 * The rows the table renders: FIRST_ROWS at first, every one once the browser is idle after that render (the
 * rest are below the box's fold; rendering 64 ranks' rows at once doubled the DOM the first chart waits for).
 */
function useShownRows(count: number): number {
  const [all, setAll] = useState(count <= FIRST_ROWS);
  useEffect(() => {
    if (all || count <= FIRST_ROWS) return;
    if (typeof requestIdleCallback !== "function") {
      const timer = setTimeout(() => setAll(true), 0);
      return () => clearTimeout(timer);
    }
    const handle = requestIdleCallback(() => setAll(true), { timeout: 500 });
    return () => cancelIdleCallback(handle);
  }, [all, count]);
  return all ? count : FIRST_ROWS;
}

function RankTable({ run }: { run: DistributedRun }) {
  const shown = useShownRows(run.ranks.length);
  const scoreTitle = run.score_source === "sync" ? "the best rank's time to reach the barrier over this rank's" : "this rank's step rate over the fastest rank's";
  return (
    // Scrolls in a box of its own: 64 ranks' rows would otherwise push the charts below the fold.
    <div class="rl-dist-table-box">
    <table class="rl-dist-table" data-testid="distributed-ranks">
      <thead>
        <tr>
          <th>rank</th>
          <th>host</th>
          <th title="this rank's clock minus the reference rank's">offset (ms)</th>
          <th title={scoreTitle}>score</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {run.ranks.slice(0, shown).map((r) => (
          <tr key={r.rank} data-rank={r.rank} class={r.straggler ? "rl-dist-late" : undefined}>
            <td>{r.rank}</td>
            <td>{r.host ?? ""}</td>
            <td data-testid="distributed-offset">{formatOffset(r)}</td>
            <td>{r.score === null ? "—" : r.score.toFixed(2)}</td>
            <td data-testid="distributed-flag">{r.straggler ? "straggler" : r.flagged ? "slow" : ""}</td>
          </tr>
        ))}
      </tbody>
    </table>
    </div>
  );
}

export function DistributedDashboard({ tick, tagFilter }: DashboardProps) {
  // Taken once, in the first render: boot.js's answer when it is already here (the page renders with it at once).
  const [early] = useState(takeFirstAnswer);
  const now = early && "now" in early ? early.now : null;
  const [runs, setRuns] = useState<DistributedRun[] | null>(now?.runs ?? null);
  // The first chart's series with the tick it was asked at: handed to that card only while the tick is the same.
  const [first, setFirst] = useState<{ body: SeriesAnswerBody | null; tick: number }>({ body: now?.first_chart ?? null, tick });
  const [error, setError] = useState<string | null>(null);
  const [chosen, setChosen] = useUrlState<string>("dist.run", "");
  const [view, setView] = useUrlState<View>("dist.view", "aggregate");
  const [statistic, setStatistic] = useUrlState<Statistic>("dist.stat", "mean");
  const [band, setBand] = useUrlState<BandKind>("dist.band", "minmax");
  const [xAxis, setXAxis] = useUrlState<XAxis>("dist.x", "step");
  const [systemOpen, setSystemOpen] = useUrlState<boolean>("dist.sys", false);
  const asked = useRef(false); // the first request asks for the first chart's series too
  const answered = useRef(now !== null);

  useEffect(() => {
    if (answered.current) {
      answered.current = false; // this tick's answer is the one the first render had
      asked.current = true;
      return;
    }
    const controller = new AbortController();
    const answer =
      !asked.current && early && "later" in early
        ? early.later
        : getJson<RunsAnswer>(
            "/api/distributed/runs",
            asked.current ? undefined : { first_chart: chosen, first_chart_points: firstChartPoints(innerWidth, devicePixelRatio) },
            { signal: controller.signal },
          );
    asked.current = true;
    answer.then(
      (answer) => {
        if (controller.signal.aborted) return;
        setRuns(answer.runs);
        if (answer.first_chart !== undefined) setFirst({ body: answer.first_chart, tick });
        setError(null);
      },
      (err: unknown) => {
        if (controller.signal.aborted || (err instanceof DOMException && err.name === "AbortError")) return;
        setError(err instanceof Error ? err.message : String(err));
      },
    );
    return () => controller.abort();
  }, [tick]);

  if (error) return <p class="rl-dist-error" role="alert">{error}</p>;
  if (!runs) return <p class="rl-tc-empty">Loading distributed runs…</p>;
  if (runs.length === 0) return <p class="rl-tc-empty">No distributed runs: runs named …/rank&#123;N&#125; (the writer's per-rank layout) form one.</p>;
  const run = runs.find((r) => r.run === chosen) ?? runs[0];
  const shown = run.tags.filter((t) => !tagFilter || tagFilter.test(t));
  const { training, system } = splitTags(shown);
  // The first card draws at once, from the series the run list brought when it is this card's.
  const chart = (tag: string, index: number) => (
    <RankChart
      key={`${run.run}:${tag}`}
      run={run.run}
      tag={tag}
      view={view}
      statistic={statistic}
      band={band}
      xAxis={xAxis}
      tick={tick}
      eager={index === 0}
      initial={first.tick === tick && first.body?.run === run.run && first.body.tag === tag ? first.body : null}
    />
  );
  return (
    <div class="rl-dist-page">
      <SettingsBar label="Distributed settings">
        {runs.length > 1 && <Select label="Run" testId="distributed-run" value={run.run} options={runs.map((r) => [r.run, r.run])} set={setChosen} />}
        <Select label="Show" testId="distributed-view" value={view} options={[["aggregate", "aggregate"], ["ranks", "every rank"]]} set={setView} />
        {view === "aggregate" ? (
          <>
            <Select label="Line" testId="distributed-stat" value={statistic} options={[["mean", "mean"], ["median", "median"], ["min", "min"], ["max", "max"]]} set={setStatistic} />
            <Select label="Band" testId="distributed-band" value={band} options={[["minmax", "min–max"], ["sigma", "± σ"], ["none", "none"]]} set={setBand} />
          </>
        ) : (
          <Select label="X axis" testId="distributed-x" value={xAxis} options={[["step", "step"], ["relative", "relative time (aligned)"]]} set={setXAxis} />
        )}
      </SettingsBar>
      <Summary run={run} />
      <RankTable run={run} />
      <div class="rl-tc-grid">{training.map(chart)}</div>
      {system.length > 0 && (
        <section class="rl-tc-group" data-group="sys">
          <h2 class="rl-tc-group-title">
            <button type="button" aria-expanded={systemOpen} data-testid="distributed-system-toggle" onClick={() => setSystemOpen(!systemOpen)}>
              <span aria-hidden="true">{systemOpen ? "▾" : "▸"}</span> system metrics <span class="rl-tc-muted">({system.length})</span>
            </button>
          </h2>
          {systemOpen && <div class="rl-tc-grid">{system.map((tag) => chart(tag, -1))}</div>}
        </section>
      )}
    </div>
  );
}
