/**
 * The images dashboard: a card per (run, image tag) with a step slider and the step's images (a batch as a
 * grid), fitted to the card or at native size, with brightness and contrast (CSS filters, kept in the URL
 * under "i."); a click opens the image at native resolution in an overlay (with a link to open it in a tab).
 * Cards load when scrolled into view; images load lazily from the blob route. A value that cannot be shown
 * (no bytes, zero size, corrupt) shows a placeholder in its card.
 */
import { useEffect, useState } from "preact/hooks";
import type { DashboardProps } from "@app/types";
import { useUrlState } from "@app/state";
import { ImageCard, type View } from "@media/ImageCard";
import { MediaSections } from "@media/MediaSections";
import { SettingsBar } from "@app/SettingsBar";

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
      <SettingsBar label="Image settings">
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
      </SettingsBar>
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
