/**
 * The curve settings the line chart dashboards (scalars, custom scalars, time series) show in their toolbars (smoothing,
 * smoother, y scale, fixed y range, ignore outliers): the same controls over the same "s." settings.
 */
import { SMOOTHERS } from "@charts/smoothing";
import type { Settings, SettingsApi } from "./settings";

export function CurveControls({ settings, set }: { settings: Settings; set: SettingsApi["set"] }) {
  return (
    <>
      <label class="rl-field">
        <span>Smoothing</span>
        <input
          type="range"
          data-testid="smoothing"
          min="0"
          max="0.999"
          step="0.001"
          value={settings.smoothing}
          aria-valuetext={settings.smoothing.toFixed(3)}
          onInput={(e) => set("smoothing", Number((e.target as HTMLInputElement).value))}
        />
        <output class="rl-num">{settings.smoothing.toFixed(3)}</output>
      </label>
      <label class="rl-field">
        <span>Smoother</span>
        <select data-testid="smoother" value={settings.smoother} onChange={(e) => set("smoother", (e.target as HTMLSelectElement).value as never)}>
          {SMOOTHERS.map((s) => (
            <option value={s.value}>{s.label}</option>
          ))}
        </select>
      </label>
      <label class="rl-field">
        <span>Y scale</span>
        <select data-testid="y-scale" value={settings.yScale} onChange={(e) => set("yScale", (e.target as HTMLSelectElement).value as never)}>
          <option value="linear">linear</option>
          <option value="log">log</option>
        </select>
      </label>
      <label class="rl-field">
        <span>Y min</span>
        <input type="text" inputMode="decimal" class="rl-short" data-testid="y-min" placeholder="auto" value={settings.yMin} onChange={(e) => set("yMin", (e.target as HTMLInputElement).value)} />
      </label>
      <label class="rl-field">
        <span>Y max</span>
        <input type="text" inputMode="decimal" class="rl-short" data-testid="y-max" placeholder="auto" value={settings.yMax} onChange={(e) => set("yMax", (e.target as HTMLInputElement).value)} />
      </label>
      <label class="rl-field rl-check">
        <input type="checkbox" data-testid="outliers" checked={settings.outliers} onChange={(e) => set("outliers", (e.target as HTMLInputElement).checked)} />
        <span>Ignore outliers</span>
      </label>
    </>
  );
}
