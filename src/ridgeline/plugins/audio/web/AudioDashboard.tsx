/**
 * The audio dashboard: a card per (run, audio tag) with a step slider, the step's clips as `<audio controls>`
 * players (fetched from the blob route only when played or scrolled near), their labels and sample rate.
 * A value that cannot be played shows a placeholder in its card.
 */
import { useRef, useState } from "preact/hooks";
import type { DashboardProps, RunInfo } from "@app/types";
import { StepSlider } from "@media/StepSlider";
import { useReadyFlag } from "@charts/lazyCard";
import { blobUrl, useMediaCard } from "@media/media";
import { MediaHead, MediaSections, Placeholder } from "@media/MediaSections";

export function AudioDashboard({ runs, tagFilter, tick }: DashboardProps) {
  return (
    <div class="rl-media">
      <MediaSections
        kind="audio"
        runs={runs}
        tagFilter={tagFilter}
        card={(run, tag, eager) => <AudioCard key={`${run.run}\u0000${tag}`} run={run} tag={tag} eager={eager} tick={tick} />}
      />
    </div>
  );
}

function AudioCard({ run, tag, eager, tick }: { run: RunInfo; tag: string; eager: boolean; tick: number }) {
  const ref = useRef<HTMLDivElement>(null);
  const { id, listing, stepNumbers, index, setIndex, current } = useMediaCard(ref, "audio", run.run, tag, eager, tick);
  const [failed, setFailed] = useState<string[]>([]);
  useReadyFlag(id, listing.steps !== null || listing.error !== null);
  const rate = current?.sample_rate;

  return (
    <div
      ref={ref}
      class="rl-card rl-media-card"
      data-testid="audio-card"
      data-tag={tag}
      data-run={run.run}
      data-ready={listing.steps !== null || listing.error !== null ? "true" : "false"}
      data-step={current?.step}
      data-count={current?.count}
    >
      <MediaHead run={run} tag={tag} />
      {listing.steps === null ? (
        listing.error ? <Placeholder>Cannot list the clips: {listing.error}</Placeholder> : <p class="rl-muted">Loading…</p>
      ) : current === undefined ? (
        <Placeholder>No clip at any step.</Placeholder>
      ) : (
        <>
          <StepSlider steps={stepNumbers} index={index} onChange={setIndex} wallTime={current.wall_time} />
          <div class="rl-media-meta rl-muted" data-testid="audio-meta">
            {rate ? `${rate.toLocaleString("en-US")} Hz` : "sample rate unknown"}
            {current.content_type ? ` · ${current.content_type}` : ""}
            {current.count > 1 ? ` · ${current.count} clips` : ""}
          </div>
          {current.error ? (
            <Placeholder>Step {current.step}: {current.error}</Placeholder>
          ) : (
            Array.from({ length: current.count }, (_, i) => {
              const url = blobUrl("audio", run.run, tag, current, i);
              const label = current.labels?.[i] ?? "";
              return (
                <div class="rl-clip" key={url}>
                  {label ? (
                    <div class="rl-clip-label" data-testid="audio-label">
                      {label}
                    </div>
                  ) : null}
                  {failed.includes(url) ? (
                    <Placeholder>Clip {i + 1} of step {current.step} cannot be played (a corrupt or unsupported file).</Placeholder>
                  ) : (
                    <audio
                      controls
                      preload="metadata"
                      src={url}
                      aria-label={`${tag} at step ${current.step}${label ? `: ${label}` : ""}`}
                      onError={() => setFailed((old) => [...old, url])}
                    />
                  )}
                </div>
              );
            })
          )}
        </>
      )}
    </div>
  );
}
