/** The distributions dashboard: percentile bands of every histogram tag, a card per tag, a plot per run. */
import { useMemo } from "preact/hooks";
import type { DashboardProps } from "@app/types";
import { TagSections } from "@app/cards";
import { EAGER_CARDS } from "@charts/histograms/cards";
import { histogramTags, runsWithTag } from "@charts/histograms/data";
import { DistributionCard } from "./DistributionCard";

export function DistributionsDashboard({ runs, tagFilter, tick, theme }: DashboardProps) {
  const tags = useMemo(() => histogramTags(runs), [runs]);
  return (
    <div class="rl-scalars rl-hist-page">
      <TagSections
        stateKey="d.collapsed"
        what="histograms"
        tags={tags}
        tagFilter={tagFilter}
        eagerCards={EAGER_CARDS}
        card={(tag, eager) => <DistributionCard key={tag} tag={tag} runs={runsWithTag(runs, tag)} tick={tick} theme={theme} eager={eager} />}
      />
    </div>
  );
}
