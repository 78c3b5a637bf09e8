/**
 * The stragglers of the distributed runs among the selected runs (GET /api/distributed/runs, the distributed
 * plugin's report; docs/distributed.md), as a short panel above the diagnosis. Nothing when there is none, or
 * when the server serves no distributed plugin. Only the route is shared: this dashboard imports nothing of the
 * distributed one.
 */
import { useEffect, useState } from "preact/hooks";
import { getJson } from "@api/client";
import type { Answer } from "@api/types";

interface Straggler {
  run: string;
  rank: number;
  rankRun: string;
  score: number | null;
  costS: number;
}

type RunsAnswer = Answer<
  "/api/distributed/runs",
  { runs: { run: string; ranks: { rank: number; run: string; score: number | null }[]; straggler: { rank: number; cost_s: number } | null }[] }
>;

export function StragglersPanel({ tick, runs }: { tick: number; runs: string[] }) {
  const [found, setFound] = useState<Straggler[]>([]);
  useEffect(() => {
    const controller = new AbortController();
    getJson<RunsAnswer>("/api/distributed/runs", undefined, { signal: controller.signal }).then(
      (answer) => {
        const out: Straggler[] = [];
        for (const job of answer.runs) {
          if (!job.straggler) continue;
          const late = job.ranks.find((r) => r.rank === job.straggler!.rank);
          out.push({ run: job.run, rank: job.straggler.rank, rankRun: late?.run ?? "", score: late?.score ?? null, costS: job.straggler.cost_s });
        }
        setFound(out);
      },
      () => setFound([]), // no distributed plugin, or not reachable: the other panels say so
    );
    return () => controller.abort();
  }, [tick]);
  const selected = new Set(runs);
  const shown = found.filter((s) => selected.has(s.rankRun));
  if (shown.length === 0) return null;
  return (
    <section class="rl-insights-panel" data-testid="insights-stragglers" aria-label="Stragglers">
      <h2>Stragglers</h2>
      <ul>
        {shown.map((s) => (
          <li key={s.run}>
            <strong>{s.run}</strong>: rank {s.rank} keeps the others waiting
            {s.score === null ? "" : ` (score ${s.score.toFixed(2)})`}, {s.costS.toFixed(3)} s of their time.
          </li>
        ))}
      </ul>
    </section>
  );
}
