/** The histograms dashboard: a mode switch (offset / overlay, kept in the URL as "h.mode"), then a card per tag. */
import { useMemo } from "preact/hooks";
import type { DashboardProps } from "@app/types";
import { useUrlState } from "@app/state";
import { TagSections } from "@app/cards";
import { EAGER_CARDS } from "@charts/histograms/cards";
import { histogramTags, runsWithTag } from "@charts/histograms/data";
import type { Mode } from "@charts/histograms/draw";
import { HistogramCard } from "@charts/histograms/HistogramCard";
import { SettingsBar } from "@app/SettingsBar";

export function HistogramsDashboard({ runs, tagFilter, tick, theme }: DashboardProps) {
  const [mode, setMode] = useUrlState<Mode>("h.mode", "offset");
  const tags = useMemo(() => histogramTags(runs), [runs]);
  return (
    <div class="rl-scalars rl-hist-page">
      <SettingsBar label="Histogram settings">
        <label class="rl-field">
          <span>Mode</span>
          <select data-testid="histogram-mode" value={mode} onChange={(e) => setMode((e.target as HTMLSelectElement).value as Mode)}>
            <option value="offset">offset</option>
            <option value="overlay">overlay</option>
          </select>
        </label>
      </SettingsBar>
      <TagSections
        stateKey="h.collapsed"
        what="histograms"
        tags={tags}
        tagFilter={tagFilter}
        eagerCards={EAGER_CARDS}
        card={(tag, eager) => <HistogramCard key={tag} tag={tag} runs={runsWithTag(runs, tag)} mode={mode} tick={tick} theme={theme} eager={eager} />}
      />
    </div>
  );
}
