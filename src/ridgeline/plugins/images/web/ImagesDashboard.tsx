/**
 * The images dashboard: a card per (run, image tag) with a step slider and the step's images (a batch as a
 * grid), fitted to the card or at native size, with brightness and contrast (CSS filters, kept in the URL
 * under "i."); a click opens the image at native resolution in an overlay (with a link to open it in a tab).
 * Cards load when scrolled into view; images load lazily from the blob route. A value that cannot be shown
 * (no bytes, zero size, corrupt) shows a placeholder in its card.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { DashboardProps, RunInfo } from "@app/types";
import { useUrlState } from "@app/state";
import { StepSlider } from "@charts/StepSlider";
import { useReadyFlag } from "@charts/lazyCard";
import { blobUrl, useMediaCard } from "./media";
import { MediaHead, MediaSections, Placeholder } from "./MediaSections";

/** How an image card shows its images: fitted or native, a CSS filter, and what a click opens. */
export interface View {
  fit: boolean;
  filter: string;
  open(src: string, title: string): void;
}

interface Opened {
  src: string;
  title: string;
}

export function ImagesDashboard({ runs, tagFilter, tick }: DashboardProps) {
  const [fit, setFit] = useUrlState("i.fit", true);
  const [brightness, setBrightness] = useUrlState("i.brightness", 1);
  const [contrast, setContrast] = useUrlState("i.contrast", 1);
  const [opened, setOpened] = useState<Opened | null>(null);
  const filter = brightness === 1 && contrast === 1 ? "" : `brightness(${brightness}) contrast(${contrast})`;
  const view: View = { fit, filter, open: (src, title) => setOpened({ src, title }) };
  return (
    <div class="rl-media">
      <div class="rl-toolbar" role="toolbar" aria-label="Image settings">
        <label class="rl-field rl-check">
          <input type="checkbox" checked={fit} data-testid="image-fit" onChange={(e) => setFit(e.currentTarget.checked)} />
          <span>Fit to card</span>
        </label>
        <FactorSlider label="Brightness" testid="image-brightness" value={brightness} onChange={setBrightness} />
        <FactorSlider label="Contrast" testid="image-contrast" value={contrast} onChange={setContrast} />
        <button
          type="button"
          class="rl-button"
          disabled={brightness === 1 && contrast === 1}
          onClick={() => {
            setBrightness(1);
            setContrast(1);
          }}
        >
          Reset
        </button>
      </div>
      <MediaSections
        kind="images"
        runs={runs}
        tagFilter={tagFilter}
        card={(run, tag, eager) => <ImageCard key={`${run.run}\u0000${tag}`} run={run} tag={tag} eager={eager} tick={tick} view={view} />}
      />
      {opened ? <Overlay opened={opened} filter={filter} onClose={() => setOpened(null)} /> : null}
    </div>
  );
}

/** A CSS filter factor from 0 to 3 (1 = unchanged). */
function FactorSlider(props: { label: string; testid: string; value: number; onChange(value: number): void }) {
  return (
    <label class="rl-field">
      <span>{props.label}</span>
      <input
        type="range"
        min={0}
        max={3}
        step={0.05}
        value={props.value}
        data-testid={props.testid}
        onInput={(e) => props.onChange(Number(e.currentTarget.value))}
      />
      <span class="rl-num">{props.value.toFixed(2)}</span>
    </label>
  );
}

/** One (run, image tag) card: step slider, the step's images, lazily loaded (also used by Time Series). */
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

function Overlay({ opened, filter, onClose }: { opened: Opened; filter: string; onClose(): void }) {
  useEffect(() => {
    const key = (e: KeyboardEvent) => e.key === "Escape" && onClose();
    window.addEventListener("keydown", key);
    return () => window.removeEventListener("keydown", key);
  }, [onClose]);
  return (
    <div class="rl-overlay" role="dialog" aria-modal="true" aria-label={opened.title} data-testid="image-overlay" onClick={onClose}>
      <div class="rl-overlay-bar" onClick={(e) => e.stopPropagation()}>
        <span>{opened.title}</span>
        <a href={opened.src} target="_blank" rel="noopener">
          Open in a new tab
        </a>
        <button type="button" class="rl-button" onClick={onClose} aria-label="Close">
          Close
        </button>
      </div>
      <div class="rl-overlay-body">
        <img src={opened.src} alt={opened.title} style={filter ? { filter } : undefined} onClick={(e) => e.stopPropagation()} />
      </div>
    </div>
  );
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}
