/**
 * One (run, image tag) card: a step slider and the step's images (a batch as a grid), fitted to the card or at
 * native size, lazily loaded from the blob route; a value that cannot be shown (no bytes, zero size, corrupt)
 * shows a placeholder. The images dashboard and the time series page show it.
 */
import { useRef, useState } from "preact/hooks";
import type { RunInfo } from "@app/types";
import { useReadyFlag } from "@charts/lazyCard";
import { blobUrl, useMediaCard } from "./media";
import { MediaHead, Placeholder } from "./MediaSections";
import { StepSlider } from "./StepSlider";
import "./media.css";

/** How an image card shows its images: fitted or native, a CSS filter, and what a click opens. */
export interface View {
  fit: boolean;
  filter: string;
  open(src: string, title: string): void;
}

export function ImageCard({ run, tag, eager, tick, view }: { run: RunInfo; tag: string; eager: boolean; tick: number; view: View }) {
  const ref = useRef<HTMLDivElement>(null);
  const [settled, setSettled] = useState<Record<string, "ok" | "error">>({});
  const { id, listing, stepNumbers, index, setIndex, current } = useMediaCard(ref, "images", run.run, tag, eager, tick);
  const urls = current && !current.error ? range(current.count).map((i) => blobUrl("images", run.run, tag, current, i)) : [];
  const ready =
    (listing.error !== null && listing.steps === null) ||
    (listing.steps !== null && urls.every((url) => settled[url] !== undefined));
  useReadyFlag(id, ready);
  const settle = (url: string, state: "ok" | "error") => setSettled((old) => (old[url] === state ? old : { ...old, [url]: state }));

  return (
    <div
      ref={ref}
      class="rl-card rl-media-card"
      data-testid="image-card"
      data-tag={tag}
      data-run={run.run}
      data-ready={ready ? "true" : "false"}
      data-step={current?.step}
      data-count={urls.length}
    >
      <MediaHead run={run} tag={tag} />
      {listing.steps === null ? (
        listing.error ? <Placeholder>Cannot list the images: {listing.error}</Placeholder> : <p class="rl-muted">Loading…</p>
      ) : current === undefined ? (
        <Placeholder>No image at any step.</Placeholder>
      ) : (
        <>
          <StepSlider steps={stepNumbers} index={index} onChange={setIndex} wallTime={current.wall_time} />
          <div class="rl-media-meta rl-muted">
            {current.width && current.height ? `${current.width}×${current.height}` : ""}
            {current.count > 1 ? ` · ${current.count} images` : ""}
          </div>
          {current.error ? (
            <Placeholder>Step {current.step}: {current.error}</Placeholder>
          ) : (
            <div class={`rl-image-grid${view.fit ? " rl-fit" : " rl-native"}${urls.length > 1 ? " rl-batch" : ""}`}>
              {urls.map((url, i) =>
                settled[url] === "error" ? (
                  <Placeholder key={url}>
                    Image {i + 1} of step {current.step} cannot be decoded (a corrupt or truncated file).
                  </Placeholder>
                ) : (
                  <button
                    key={url}
                    type="button"
                    class="rl-image-button"
                    title="Open at native size"
                    onClick={() => view.open(url, `${run.run} · ${tag} · step ${current.step}${urls.length > 1 ? ` · ${i + 1}` : ""}`)}
                  >
                    <img
                      src={url}
                      loading="lazy"
                      decoding="async"
                      alt={`${tag} at step ${current.step}${urls.length > 1 ? `, image ${i + 1}` : ""}`}
                      width={current.width || undefined}
                      height={current.height || undefined}
                      style={view.filter ? { filter: view.filter } : undefined}
                      onLoad={() => settle(url, "ok")}
                      onError={() => settle(url, "error")}
                    />
                  </button>
                ),
              )}
            </div>
          )}
        </>
      )}
    </div>
  );
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}
