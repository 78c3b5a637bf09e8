/**
 * The custom scalars dashboard: the layouts written by `add_custom_scalars`, merged over the runs by the server
 * (GET /api/custom_scalars), one collapsible section per category with a card per chart. The chart settings
 * are the scalars dashboard's own (smoothing, y scale, x axis, ... under the same "s." URL keys), so both
 * dashboards show curves the same way; which categories are collapsed is kept under "cs.collapsed".
 */
import { useCallback, useEffect, useMemo, useState } from "preact/hooks";
import type { DashboardProps } from "@app/types";
import { getJson } from "@api/client";
import { useUrlState } from "@app/state";
import { CurveControls } from "@charts/lines/CurveControls";
import { useSettings } from "@charts/lines/settings";
import { ChartCard } from "./ChartCard";
import { chartId, chartShown, type LayoutAnswer } from "./chart";
import type { Answer } from "@api/types";
import { SettingsBar } from "@app/SettingsBar";

/** With this many charts or fewer, every card loads at once. */
const EAGER_CHARTS = 16;

export function CustomScalarsDashboard({ runs, allRuns, tagFilter, tick }: DashboardProps) {
  const { settings, set } = useSettings();
  const [layout, setLayout] = useState<LayoutAnswer | null>(null);
  const [error, setError] = useState<string | null>(null);
  // Categories the user toggled away from their initial state (a layout's `closed` starts collapsed).
  const [toggled, setToggled] = useUrlState<string[]>("cs.collapsed", []);
  const toggledSet = useMemo(() => new Set(Array.isArray(toggled) ? toggled : []), [toggled]);

  // The layout changes only when a run's layout appears or changes: refetched on every reload, it is small.
  const layoutRuns = allRuns.filter((r) => (r.tags.custom_scalars ?? []).length > 0).map((r) => r.run).join("\u0000");
  useEffect(() => {
    let live = true;
    getJson<Answer<"/api/custom_scalars", LayoutAnswer>>("/api/custom_scalars").then(
      (answer) => {
        if (!live) return;
        setLayout(answer);
        setError(null);
      },
      (e: unknown) => live && setError(e instanceof Error ? e.message : String(e)),
    );
    return () => {
      live = false;
    };
  }, [tick, layoutRuns]);

  const categories = useMemo(
    () =>
      (layout?.categories ?? [])
        .map((c) => ({ ...c, charts: c.charts.filter((chart) => chartShown(chart, tagFilter)) }))
        .filter((c) => c.charts.length > 0),
    [layout, tagFilter],
  );
  const total = categories.reduce((n, c) => n + c.charts.length, 0);
  const eager = total <= EAGER_CHARTS;
  const onToggle = useCallback(
    (title: string) => setToggled(toggledSet.has(title) ? [...toggledSet].filter((t) => t !== title) : [...toggledSet, title]),
    [toggledSet, setToggled],
  );

  return (
    <div class="rl-scalars rl-custom-scalars">
      <SettingsBar label="Custom scalar chart settings">
        <CurveControls settings={settings} set={set} />
        <label class="rl-field">
          <span>X axis</span>
          <select
            data-testid="x-axis"
            value={settings.xAxis === "tag" ? "step" : settings.xAxis}
            onChange={(e) => set("xAxis", (e.target as HTMLSelectElement).value as never)}
          >
            <option value="step">step</option>
            <option value="relative">relative time</option>
            <option value="wall">wall time</option>
          </select>
        </label>
        <span class="rl-muted rl-cs-hint">Settings shared with the Scalars dashboard. Margin charts are drawn unsmoothed.</span>
      </SettingsBar>

      {error && (
        <p class="rl-empty" role="alert">
          Could not read the custom scalars layout: {error}
        </p>
      )}
      {(layout?.problems ?? []).map((p) => (
        <p class="rl-card-note rl-cs-error" role="note" key={p.run} data-testid="custom_scalars-problem">
          The layout of run {p.run} could not be read: {p.error}
        </p>
      ))}
      {layout && layout.categories.length === 0 && (
        <p class="rl-empty" data-testid="custom_scalars-empty">
          No run has a custom scalars layout. Write one with <code>writer.add_custom_scalars(layout)</code>.
        </p>
      )}
      {layout && layout.categories.length > 0 && categories.length === 0 && <p class="rl-empty">No chart matches the tag filter.</p>}

      {categories.map((c) => {
        const open = c.closed === toggledSet.has(c.title);
        const headingId = `rl-cs-${c.title}`;
        return (
          <section class="rl-group" key={c.title} aria-labelledby={headingId} data-category={c.title}>
            <h2 class="rl-group-title">
              <button type="button" id={headingId} aria-expanded={open} onClick={() => onToggle(c.title)}>
                <span aria-hidden="true">{open ? "▾" : "▸"}</span> {c.title || "(untitled)"} <span class="rl-muted">({c.charts.length})</span>
              </button>
            </h2>
            {open && (
              <div class="rl-grid">
                {c.charts.map((chart) => (
                  <ChartCard key={chartId(c.title, chart)} category={c.title} chart={chart} runs={runs} settings={settings} tick={tick} eager={eager} />
                ))}
              </div>
            )}
          </section>
        );
      })}
    </div>
  );
}
