/**
 * Time Series (TensorBoard's default view since 2.10): one page with a card per tag of every kind the selected
 * runs have — scalars (the scalars dashboard's Card, with its settings under the same "s." keys), histograms
 * (the histograms dashboard's card, offset mode) and images (the images dashboard's card per run, step slider,
 * lazily loaded) — filtered by the shell's tag regex, grouped by tag prefix, with pinned cards on top
 * (kept in the URL under "ts.pinned"). Which kinds are shown is kept under "ts.kinds". Overlay cards draw a
 * scalar, a histogram's percentile bands and tick marks at an image tag's and an embedding tag's steps on one
 * step axis ("ts.overlay": [scalar, histogram, image tag, embedding tag, "1" for the step time], "" for a part
 * left out; entries saved before embeddings existed have three parts, before step times four). The step time is
 * that of the profiled steps of runs with PyTorch profiler traces, on the right axis instead of a histogram.
 */
import { useCallback, useEffect, useMemo, useState } from "preact/hooks";
import { getJson } from "@api/client";
import type { DashboardProps, RunInfo } from "@app/types";
import { colourFor } from "@app/palette";
import { navigate, useUrlState } from "@app/state";
import { HistogramCard } from "@charts/histograms/HistogramCard";
import { ImageCard, type View } from "@media/ImageCard";
import { Card } from "@charts/card/ScalarCard";
import { CurveControls } from "@charts/lines/CurveControls";
import { useSettings, type Settings } from "@charts/lines/settings";
import { KINDS, pinnedItems, planItems, runsWith, type Item, type Kind } from "./items";
import { OverlayCard, type MarkRun } from "./OverlayCard";
import type { Answer } from "@api/types";
import { SettingsBar } from "@app/SettingsBar";

/** GET /api/embeddings: per run, the embeddings add_embedding wrote (step null when the config has none). */
interface EmbeddingListing {
  runs: Record<string, { tag: string; step: number | null }[]>;
}

type Overlay = [string, string, string, string, string];
const NO_MARKS: MarkRun[] = [];

/** With this many cards or fewer, every card loads at once. */
const EAGER_CARDS = 12;
const KIND_LABEL: Record<Kind, string> = { scalars: "scalar", histograms: "histogram", images: "images" };

export function TimeSeriesDashboard({ runs, tagFilter, tick, theme }: DashboardProps) {
  const { settings, set } = useSettings();
  const [pinnedRaw, setPinned] = useUrlState<string[]>("ts.pinned", []);
  const [kindsRaw, setKinds] = useUrlState<string[]>("ts.kinds", [...KINDS]);
  const [collapsedRaw, setCollapsed] = useUrlState<string[]>("ts.collapsed", []);
  const [, setTab] = useUrlState("tab", "");
  // The projector's link keys (docs/projector.md): a click on an embedding mark opens that embedding at that step.
  const [, setProjectorRun] = useUrlState("p.run", "");
  const [, setProjectorTag] = useUrlState("p.tag", "");
  const [, setProjectorStep] = useUrlState("p.step", "");
  const openEmbedding = useCallback((run: string, tag: string, step: number) => {
    setProjectorRun(run);
    setProjectorTag(tag);
    setProjectorStep(String(step));
    setTab("projector");
  }, []);
  const [overlayRaw, setOverlay] = useUrlState<string[][]>("ts.overlay", []);
  const overlays = (Array.isArray(overlayRaw) ? overlayRaw : [])
    .filter((p) => Array.isArray(p) && p.length >= 2 && p.length <= 5 && p.every((t) => typeof t === "string"))
    .map((p) => [p[0], p[1], p[2] ?? "", p[3] ?? "", p[4] ?? ""] as Overlay);
  const [pickScalar, setPickScalar] = useState("");
  const [pickHistogram, setPickHistogram] = useState("");
  const [pickImages, setPickImages] = useState("");
  const [pickEmbeddings, setPickEmbeddings] = useState("");
  const [pickStepTime, setPickStepTime] = useState(false);
  // Runs with profiler traces (/api/runs lists their files under the kind "profile"): their step time can be overlaid.
  const traced = runs.some((r) => (r.tags.profile ?? []).length > 0);
  // Embeddings are not in the event files (no /api/runs kind): their listing is asked for on each reload.
  const [embeddingListing, setEmbeddingListing] = useState<EmbeddingListing["runs"]>({});
  useEffect(() => {
    let live = true;
    getJson<Answer<"/api/embeddings", EmbeddingListing>>("/api/embeddings").then(
      (body) => live && setEmbeddingListing(body.runs),
      () => undefined, // no listing: no embedding marks to offer
    );
    return () => {
      live = false;
    };
  }, [tick]);
  const sameOverlay = (p: string[], q: string[]) => p.every((t, i) => t === q[i]);
  const tagsOf = (kind: Kind) => [...new Set(runs.flatMap((r) => r.tags[kind] ?? []))].sort();
  const scalarTags = useMemo(() => tagsOf("scalars"), [runs]);
  const histogramTags = useMemo(() => tagsOf("histograms"), [runs]);
  const imageTags = useMemo(() => tagsOf("images"), [runs]);
  const embeddingTags = useMemo(
    () => [...new Set(runs.flatMap((r) => (embeddingListing[r.run] ?? []).filter((e) => e.step !== null).map((e) => e.tag)))].sort(),
    [runs, embeddingListing],
  );
  // One stable array per overlaid embedding tag, so an overlay card redraws only when its marks change.
  const overlaidEmbeddings = overlays.map((p) => p[3]).join("\u0000");
  const embeddingMarks = useMemo(() => {
    const byTag = new Map<string, MarkRun[]>();
    for (const tag of new Set(overlaidEmbeddings.split("\u0000"))) {
      const marks = runs.flatMap((r) => {
        const steps = (embeddingListing[r.run] ?? []).filter((e) => e.tag === tag && e.step !== null).map((e) => e.step as number);
        return steps.length ? [{ run: r.run, colour: r.colour, steps, kind: "embeddings" as const, tag }] : [];
      });
      byTag.set(tag, tag ? marks : []);
    }
    return byTag;
  }, [runs, embeddingListing, overlaidEmbeddings]);
  const pinned = Array.isArray(pinnedRaw) ? pinnedRaw : [];
  const kinds = KINDS.filter((k) => (Array.isArray(kindsRaw) ? kindsRaw : KINDS).includes(k));
  const collapsed = new Set(Array.isArray(collapsedRaw) ? collapsedRaw : []);

  const pinnedSet = useMemo(() => new Set(pinned), [pinned.join("\u0000")]);
  const sections = useMemo(() => planItems(runs, kinds, tagFilter, pinnedSet), [runs, kinds.join(), tagFilter, pinnedSet]);
  const pins = useMemo(() => pinnedItems(runs, pinned).filter((i) => kinds.includes(i.kind)), [runs, pinned.join("\u0000"), kinds.join()]);
  const total = pins.length + sections.reduce((n, s) => n + s.items.length, 0);
  const eager = total <= EAGER_CARDS;
  const togglePin = useCallback(
    (id: string) => setPinned(pinned.includes(id) ? pinned.filter((p) => p !== id) : [...pinned, id]),
    [pinned.join("\u0000"), setPinned],
  );
  const toggleKind = (k: Kind) => setKinds(kinds.includes(k) ? kinds.filter((x) => x !== k) : [...kinds, k]);
  const toggleSection = (name: string) =>
    setCollapsed(collapsed.has(name) ? [...collapsed].filter((n) => n !== name) : [...collapsed, name]);

  const card = (item: Item) => (
    <TimeSeriesCard
      key={item.id}
      item={item}
      runs={runs}
      settings={settings}
      tick={tick}
      theme={theme}
      pinned={pinnedSet.has(item.id)}
      eager={eager}
      onPin={togglePin}
      openTab={(tab: string) => navigate({ tab })}
    />
  );

  return (
    <div class="rl-scalars rl-time-series">
      <SettingsBar label="Time series settings">
        <fieldset class="rl-field rl-ts-kinds">
          <legend>Show</legend>
          {KINDS.map((k) => (
            <label class="rl-check" key={k}>
              <input type="checkbox" data-testid={`ts-kind-${k}`} checked={kinds.includes(k)} onChange={() => toggleKind(k)} />
              <span>{k}</span>
            </label>
          ))}
        </fieldset>
        <CurveControls settings={settings} set={set} />
        {scalarTags.length > 0 && (histogramTags.length > 0 || imageTags.length > 0 || embeddingTags.length > 0 || traced) && (
          <fieldset class="rl-field rl-combine">
            <legend>Overlay a scalar with a histogram and image or embedding steps</legend>
            <select aria-label="Overlay scalar" data-testid="ts-overlay-scalar" value={pickScalar} onChange={(e) => setPickScalar(e.currentTarget.value)}>
              <option value="">(scalar)</option>
              {scalarTags.map((t) => (
                <option value={t}>{t}</option>
              ))}
            </select>
            <select aria-label="Overlay histogram" data-testid="ts-overlay-histogram" value={pickStepTime ? "" : pickHistogram} disabled={pickStepTime} onChange={(e) => setPickHistogram(e.currentTarget.value)}>
              <option value="">(histogram)</option>
              {histogramTags.map((t) => (
                <option value={t}>{t}</option>
              ))}
            </select>
            <select aria-label="Overlay image steps" data-testid="ts-overlay-images" value={pickImages} onChange={(e) => setPickImages(e.currentTarget.value)}>
              <option value="">(image steps)</option>
              {imageTags.map((t) => (
                <option value={t}>{t}</option>
              ))}
            </select>
            {embeddingTags.length > 0 && (
              <select aria-label="Overlay embedding steps" data-testid="ts-overlay-embeddings" value={pickEmbeddings} onChange={(e) => setPickEmbeddings(e.currentTarget.value)}>
                <option value="">(embedding steps)</option>
                {embeddingTags.map((t) => (
                  <option value={t}>{t}</option>
                ))}
              </select>
            )}
            {traced && (
              <label class="rl-check" title="The step time of each profiled step (PyTorch profiler traces) on the right axis, instead of a histogram">
                <input type="checkbox" data-testid="ts-overlay-step-time" checked={pickStepTime} onChange={(e) => setPickStepTime(e.currentTarget.checked)} />
                <span>step time</span>
              </label>
            )}
            <button
              type="button"
              data-testid="ts-overlay-add"
              disabled={!pickScalar || (!pickHistogram && !pickImages && !pickEmbeddings && !pickStepTime)}
              onClick={() => {
                const next: Overlay = [pickScalar, pickStepTime ? "" : pickHistogram, pickImages, pickEmbeddings, pickStepTime ? "1" : ""];
                setOverlay([...overlays.filter((p) => !sameOverlay(p, next)), next]);
              }}
            >
              Overlay
            </button>
          </fieldset>
        )}
      </SettingsBar>

      {overlays.length > 0 && (
        <section class="rl-group" aria-label="Overlays" data-group="(overlays)">
          <h2 class="rl-group-title">Overlays</h2>
          <div class="rl-grid">
            {overlays.map((p) => (
              <OverlayCard
                key={p.join("\u0000")}
                scalar={p[0]}
                histogram={p[1]}
                images={p[2]}
                embeddings={p[3]}
                stepTime={p[4] === "1"}
                embeddingMarks={embeddingMarks.get(p[3]) ?? NO_MARKS}
                onOpenEmbedding={openEmbedding}
                runs={runs}
                settings={settings}
                tick={tick}
                onClose={() => setOverlay(overlays.filter((q) => !sameOverlay(q, p)))}
              />
            ))}
          </div>
        </section>
      )}

      {total === 0 && overlays.length === 0 && <p class="rl-empty">{tagFilter ? "No tag matches the tag filter." : "The selected runs have no scalars, histograms or images."}</p>}

      {pins.length > 0 && (
        <section class="rl-group" aria-label="Pinned" data-group="(pinned)">
          <h2 class="rl-group-title">Pinned</h2>
          <div class="rl-grid">{pins.map(card)}</div>
        </section>
      )}

      {sections.map((s) => {
        const open = !collapsed.has(s.name);
        const id = `rl-ts-group-${s.name || "_"}`;
        return (
          <section class="rl-group" key={s.name} aria-labelledby={id} data-group={s.name}>
            <h2 class="rl-group-title">
              <button type="button" id={id} aria-expanded={open} onClick={() => toggleSection(s.name)}>
                <span aria-hidden="true">{open ? "▾" : "▸"}</span> {s.name || "(no prefix)"} <span class="rl-muted">({s.items.length})</span>
              </button>
            </h2>
            {open && <div class="rl-grid">{s.items.map(card)}</div>}
          </section>
        );
      })}
    </div>
  );
}

interface TimeSeriesCardProps {
  item: Item;
  runs: RunInfo[];
  settings: Settings;
  tick: number;
  theme: "light" | "dark";
  pinned: boolean;
  eager: boolean;
  onPin: (id: string) => void;
  openTab: (tab: string) => void;
}

/** One card of the page: the kind's own card under a strip naming the kind, with a pin button. */
function TimeSeriesCard({ item, runs, settings, tick, theme, pinned, eager, onPin, openTab }: TimeSeriesCardProps) {
  return (
    <div class={`rl-ts-item${pinned ? " rl-ts-pinned" : ""}`} data-testid="time_series-card" data-kind={item.kind} data-tag={item.tag}>
      <div class="rl-ts-strip">
        <span class="rl-badge" data-testid="ts-kind">
          {KIND_LABEL[item.kind]}
        </span>
        <button
          type="button"
          class="rl-icon"
          aria-pressed={pinned}
          aria-label={pinned ? `Unpin ${item.tag} (${item.kind})` : `Pin ${item.tag} (${item.kind}) to the top`}
          title={pinned ? "Unpin" : "Pin to the top"}
          onClick={() => onPin(item.id)}
        >
          {pinned ? "★" : "☆"}
        </button>
      </div>
      {item.kind === "scalars" && (
        <Card tag={item.tag} runs={runs} settings={settings} groups={null} groupColour={colourFor} tick={tick} theme={theme} pinned={pinned} expanded={false} eager={eager} />
      )}
      {item.kind === "histograms" && <HistogramCard tag={item.tag} runs={runsWith(runs, "histograms", item.tag)} mode="offset" tick={tick} theme={theme} eager={eager} />}
      {item.kind === "images" && <ImageCards tag={item.tag} runs={runsWith(runs, "images", item.tag)} tick={tick} eager={eager} openTab={openTab} />}
    </div>
  );
}

/** A click on an image opens it at native size in a new tab (the Images dashboard has the in-page viewer). */
const IMAGE_VIEW: View = { fit: true, filter: "", open: (src) => void window.open(src, "_blank", "noopener") };

/** Images: the images dashboard's card (step slider, lazily loaded) for each run that logged the tag. */
function ImageCards({ tag, runs, tick, eager, openTab }: { tag: string; runs: RunInfo[]; tick: number; eager: boolean; openTab: (tab: string) => void }) {
  return (
    <div class="rl-ts-images" data-testid="ts-images-card" data-tag={tag}>
      {runs.map((r) => (
        <ImageCard key={r.run} run={r} tag={tag} eager={eager} tick={tick} view={IMAGE_VIEW} />
      ))}
      <button type="button" class="rl-button" data-testid="ts-open-images" onClick={() => openTab("images")}>
        Open in the Images dashboard
      </button>
    </div>
  );
}
