/**
 * The projector dashboard: one embedding (run, tag, step) drawn whole in a WebGL scatter, projected on the server.
 *
 * The view (projection and its parameters, colouring, labels, sample), the chosen point, the search, the lasso
 * selection and the camera live in the URL ("p.*" keys), so a link reopens the same view; named bookmarks keep
 * it in local storage. `?tab=projector&p.run=R&p.tag=T&p.step=S` opens an embedding at a step (the Time Series
 * overlay links its embedding marks so).
 */
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import type { DashboardProps } from "@app/types";
import { useUrlState } from "@app/state";
import { registry } from "@charts/registry";
import { setTestHook } from "@web/testHooks";
import * as api from "./api";
import type { EmbeddingId } from "./api";
import { Controls } from "./Controls";
import {
  colouring,
  DEFAULT_VIEW,
  pointLabel,
  pointStyle,
  readBookmarks,
  readView,
  scaleCoordinates,
  stratifiedSample,
  unionBounds,
  type Bookmark,
  type EmbeddingInfo,
  type JobState,
  type Listing,
  type Metadata,
  type Neighbours,
  type Scaled,
  type ViewState,
} from "./model";
import { BookmarksPanel, ChangesPanel, PointPanel, Progress, Thumb } from "./Panels";
import { Plot, type Marker } from "./Plot";
import type { Scatter } from "./scatter";
import { SearchBar } from "./SearchBar";

declare module "@web/testHooks" {
  interface TestHooks {
    /** The projector's plot: what it drew and where a point is on screen (tests click points by index). */
    projector: {
      key: string;
      points: number;
      drawn: number;
      selected: number[];
      frames(): number;
      screenPosition(index: number): [number, number] | null;
      canvasBox(): DOMRect | null;
    };
  }
}

const READY_ID = "projector";
const NO_SELECTION: number[] = [];
const MAX_MARKERS = 12; // labels beside the chosen point and its nearest neighbours (more would overlap)

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

const aborted = (err: unknown) => err instanceof DOMException && err.name === "AbortError";

export function ProjectorDashboard({ runs, tagFilter, tick, theme }: DashboardProps) {
  const [listingState, setListing] = useState<Listing | null>(null);
  const [listingError, setListingError] = useState<string | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    api.listing(controller.signal).then(
      (l) => (setListing(l), setListingError(null)),
      (err: unknown) => aborted(err) || setListingError(message(err)),
    );
    return () => controller.abort();
  }, [tick]);

  useEffect(() => {
    registry.add(READY_ID);
    registry.setVisible(READY_ID, true);
    return () => registry.remove(READY_ID);
  }, []);

  const [runName, setRun] = useUrlState("p.run", "");
  const [tagName, setTag] = useUrlState("p.tag", "");
  const [stepText, setStep] = useUrlState("p.step", "");
  const withEmbeddings = runs.filter((r) => (listingState?.runs[r.run]?.length ?? 0) > 0);
  const run = withEmbeddings.find((r) => r.run === runName) ?? withEmbeddings[0];
  const entries = (run && listingState?.runs[run.run]) || [];
  const tags = [...new Set(entries.map((e) => e.tag))].filter((t) => !tagFilter || tagFilter.test(t)).sort();
  const tag = tags.includes(tagName) ? tagName : tags[0];
  const steps = entries.filter((e) => e.tag === tag).map((e) => e.step);
  const asked = stepText === "" ? undefined : stepText === "none" ? null : Number(stepText);
  const step = asked !== undefined && steps.includes(asked) ? asked : (steps.filter((s) => s !== null).sort((a, b) => a! - b!).at(-1) ?? null);
  const id: EmbeddingId | null = run && tag !== undefined ? { run: run.run, tag, step } : null;
  const idKey = id ? `${id.run}\u0000${id.tag}\u0000${id.step}` : "";
  const configErrors = runs.filter((r) => listingState?.errors[r.run]).map((r) => [r.run, listingState!.errors[r.run]!] as const);

  useEffect(() => {
    if (listingState && !id) registry.setReady(READY_ID, true);
  }, [listingState, idKey]);

  if (listingError !== null) return <p class="rl-proj-error" role="alert">The embeddings could not be listed: {listingError}</p>;
  if (!listingState) return <p class="rl-muted">Loading the embeddings…</p>;
  return (
    <div class="rl-proj-page" data-testid="projector">
      <div class="rl-proj-toolbar">
        <label class="rl-proj-field">
          <span>Run</span>
          <select data-testid="projector-run" value={run?.run ?? ""} onChange={(e) => setRun(e.currentTarget.value)}>
            {withEmbeddings.map((r) => (
              <option key={r.run} value={r.run}>
                {r.run}
              </option>
            ))}
          </select>
        </label>
        <label class="rl-proj-field">
          <span>Embedding</span>
          <select data-testid="projector-tag" value={tag ?? ""} onChange={(e) => setTag(e.currentTarget.value)}>
            {tags.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
        {steps.length > 1 && <StepSlider steps={steps} step={step} onStep={(s) => setStep(s === null ? "none" : String(s))} />}
      </div>
      {configErrors.map(([name, error]) => (
        <p key={name} class="rl-proj-error" role="alert" data-testid="projector-config-error">
          {name}: {error}
        </p>
      ))}
      {!id && <p class="rl-muted">None of the selected runs has an embedding{tagFilter ? " matching the tag filter" : ""} (write one with add_embedding).</p>}
      {id && <EmbeddingView key={`${id.run}\u0000${id.tag}`} id={id} theme={theme} />}
    </div>
  );
}

function StepSlider({ steps, step, onStep }: { steps: (number | null)[]; step: number | null; onStep(step: number | null): void }) {
  const ordered = [...steps].sort((a, b) => (a ?? -1) - (b ?? -1));
  const at = Math.max(0, ordered.indexOf(step));
  return (
    <label class="rl-proj-field rl-proj-steps">
      <span>Step</span>
      <input
        type="range"
        min={0}
        max={ordered.length - 1}
        value={at}
        data-testid="projector-step"
        aria-valuetext={String(ordered[at])}
        onInput={(e) => onStep(ordered[Number(e.currentTarget.value)] ?? null)}
      />
      <span class="rl-proj-num" data-testid="projector-step-value">
        {String(ordered[at])}
      </span>
      <span class="rl-muted">
        ({at + 1} of {ordered.length})
      </span>
    </label>
  );
}

interface Drawn {
  key: string;
  position: number;
  scaled: Scaled;
  dims: 2 | 3;
  transition: boolean;
}

function EmbeddingView({ id, theme }: { id: EmbeddingId; theme: "light" | "dark" }) {
  const [rawView, setRawView] = useUrlState<ViewState>("p.view", DEFAULT_VIEW);
  const view = useMemo(() => readView(rawView), [JSON.stringify(rawView)]);
  const setView = (next: ViewState) => setRawView(next);
  const [point, setPoint] = useUrlState("p.point", -1);
  const [lassoed, setLassoed] = useUrlState<number[]>("p.sel", NO_SELECTION);
  const [camera, setCamera] = useUrlState<number[]>("p.cam", NO_SELECTION);
  const [k, setK] = useUrlState("p.k", 20);
  const [metric, setMetric] = useUrlState("p.metric", "cosine");
  const [info, setInfo] = useState<EmbeddingInfo | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [metadata, setMetadata] = useState<Metadata | null>(null);
  const [job, setJob] = useState<JobState | null>(null);
  const [drawn, setDrawn] = useState<Drawn | null>(null);
  const [plotted, setPlotted] = useState(0);
  const [searchHits, setSearchHits] = useState<number[]>(NO_SELECTION);
  const [neighbours, setNeighbours] = useState<Neighbours | null>(null);
  const [neighbourError, setNeighbourError] = useState<string | null>(null);
  const [lasso, setLasso] = useState(false);
  const frame = useRef<{ key: string; bounds: [number, number][] } | null>(null);
  const scatterRef = useRef<Scatter | null>(null);
  const stepKey = String(id.step);

  // The embedding at this step: its description, then its metadata.
  useEffect(() => {
    const controller = new AbortController();
    setError(null);
    registry.setReady(READY_ID, false);
    api
      .embedding(id, controller.signal)
      .then(async (found) => {
        setInfo(found);
        setMetadata(found.columns.length ? await api.metadata(id, controller.signal) : null);
      })
      .catch((err: unknown) => {
        if (aborted(err)) return;
        setError(message(err));
        registry.setReady(READY_ID, true);
      });
    return () => controller.abort();
  }, [stepKey]);

  // The projection: asked of the server (PCA at once; UMAP, t-SNE as jobs followed until they end), then drawn.
  const dims: 2 | 3 = view.method === "custom" ? 2 : view.dims;
  const projectionKey = JSON.stringify([view.method, dims, view.components.slice(0, dims), view.align, view.nNeighbors, view.minDist, view.perplexity, view.custom]);
  useEffect(() => {
    if (!info || info.step !== id.step) return;
    if (info.points === 0) {
      registry.setReady(READY_ID, true);
      return;
    }
    const controller = new AbortController();
    const asked = { ...view, dims: view.method === "pca" ? (Math.min(dims, Math.max(info.dimensions, 1)) as 2 | 3) : dims };
    if (asked.dims < 2) asked.dims = 2;
    setError(null);
    api
      .project(id, asked, controller.signal)
      .then((started) => api.follow(started, setJob, controller.signal))
      .then(async (done) => {
        if (done.state === "failed") throw new Error(done.error ?? "the projection failed");
        if (done.state !== "done") return;
        const position = done.position ?? 0;
        const { flat, dims: got } = await api.coordinates(done.key, position, controller.signal);
        const seriesKey = `${projectionKey}`;
        const bounds = done.info.bounds ?? [];
        const union = frame.current?.key === seriesKey ? unionBounds(frame.current.bounds, bounds) : bounds;
        frame.current = { key: seriesKey, bounds: union };
        const scaled = scaleCoordinates(flat, got, union);
        setDrawn((previous) => ({
          key: done.key,
          position,
          scaled,
          dims: asked.dims,
          transition: previous !== null && previous.scaled.x.length === scaled.x.length && previous.dims === asked.dims,
        }));
      })
      .catch((err: unknown) => {
        if (aborted(err)) return;
        setError(message(err));
        registry.setReady(READY_ID, true);
      });
    return () => controller.abort();
  }, [info, projectionKey]);

  // Neighbours of the chosen point, on the server, in the original space.
  useEffect(() => {
    setNeighbours(null);
    setNeighbourError(null);
    if (point < 0 || !info || info.step !== id.step || point >= info.points) return;
    const controller = new AbortController();
    api.neighbours(id, point, k, metric, controller.signal).then(setNeighbours, (err: unknown) => aborted(err) || setNeighbourError(message(err)));
    return () => controller.abort();
  }, [point, k, metric, info]);

  const columns = metadata?.columns ?? [];
  const colourColumn = columns.find((c) => c.name === view.colour);
  const points = info?.points ?? 0;
  const colours = useMemo(() => {
    const found = colouring(colourColumn, points, theme === "dark" ? "#6d9bff" : "#1a54f0");
    return { ...found, palette: found.palette };
  }, [colourColumn, points, theme]);
  const sample = useMemo(() => {
    if (!drawn || view.sample <= 0 || view.sample >= drawn.scaled.count) return null;
    const strata = colourColumn && colourColumn.kind === "categorical" ? colours.index : null;
    return stratifiedSample(drawn.scaled.visible, view.sample, strata);
  }, [drawn, view.sample, colours]);
  const style = useMemo(() => pointStyle(sample ? sample.length : (drawn?.scaled.count ?? points)), [sample, drawn, points]);

  const selection = useMemo(() => {
    if (point >= 0 && point < points) return [point, ...(neighbours?.neighbours.map((n) => n.index) ?? [])];
    if (lassoed.length) return lassoed.filter((i) => i < points);
    return searchHits;
  }, [point, neighbours, lassoed, searchHits, points]);

  const labelColumn = view.label;
  const markers: Marker[] = useMemo(
    () =>
      selection.slice(0, MAX_MARKERS).map((index) => ({
        index,
        label: pointLabel(metadata, labelColumn, index),
        thumb: info?.sprite ? <Thumb id={id} info={info} index={index} size={20} /> : undefined,
      })),
    [selection, metadata, labelColumn, info],
  );

  // Commit the camera to the URL once it rests (not on every frame of a drag).
  const cameraTimer = useRef(0);
  const onCamera = (next: number[]) => {
    clearTimeout(cameraTimer.current);
    cameraTimer.current = window.setTimeout(() => setCamera(next.map((v) => Math.round(v * 1e5) / 1e5)), 400);
  };
  useEffect(() => () => clearTimeout(cameraTimer.current), []);

  const onDrawn = (scatter: Scatter) => {
    scatterRef.current = scatter;
    setPlotted((n) => n + 1);
    registry.setReady(READY_ID, true);
  };
  useEffect(() => {
    setTestHook("projector", {
      key: drawn?.key ?? "",
      points,
      drawn: plotted ? (sample ? sample.length : (drawn?.scaled.count ?? 0)) : 0,
      selected: selection,
      frames: () => scatterRef.current?.frames() ?? 0,
      screenPosition: (index) => scatterRef.current?.screenPosition(index) ?? null,
      canvasBox: () => document.querySelector("[data-testid=projector-canvas]")?.getBoundingClientRect() ?? null,
    });
  }, [plotted, drawn, selection, sample]);

  const bookmarkKey = `ridgeline.projector.bookmarks.${id.run}\u0000${id.tag}`;
  const [bookmarks, setBookmarks] = useState<Bookmark[]>(() => readBookmarks(localStorage.getItem(bookmarkKey)));
  const saveBookmarks = (next: Bookmark[]) => {
    setBookmarks(next);
    try {
      localStorage.setItem(bookmarkKey, JSON.stringify(next));
    } catch {
      // storage full or forbidden: the bookmarks last as long as the page
    }
  };

  const running = job !== null && (job.state === "queued" || job.state === "running");
  const ready = drawn !== null && plotted > 0;
  return (
    <div class="rl-proj-body">
      <div class="rl-proj-main">
        {info && (
          <Controls view={view} columns={info.columns} dimensions={info.dimensions} points={points} steps={info.aligned_steps.length} job={job} onView={setView} />
        )}
        {info && info.problems.length > 0 && (
          <ul class="rl-proj-problems" role="alert" data-testid="projector-problems">
            {info.problems.map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
        )}
        {error !== null && (
          <p class="rl-proj-error" role="alert" data-testid="projector-error">
            {error}
          </p>
        )}
        <div class="rl-proj-status">
          {running && job && (
            <>
              <Progress state={job} />
              <button type="button" data-testid="projector-cancel" onClick={() => void api.cancel(job.key)}>
                Cancel
              </button>
            </>
          )}
          {job?.state === "cancelled" && <span class="rl-muted">The {job.method.toUpperCase()} job was cancelled.</span>}
          {drawn && (
            <span class="rl-muted" data-testid="projector-summary">
              {sample
                ? `A stratified sample of ${sample.length.toLocaleString()} of ${drawn.scaled.count.toLocaleString()} points${colourColumn?.kind === "categorical" ? ` (by ${colourColumn.name})` : ""}`
                : `All ${drawn.scaled.count.toLocaleString()} points`}
              {drawn.scaled.count < points ? ` (${(points - drawn.scaled.count).toLocaleString()} with NaN/Inf left out)` : ""}
              {job?.method === "pca" && job.info.variance ? ` · variance explained: ${job.info.variance.map((v) => `${(v * 100).toFixed(1)}%`).join(", ")}` : ""}
              {job && job.method !== "pca" && job.method !== "custom" ? ` · ${describeJob(job, view)}` : ""}
            </span>
          )}
        </div>
        {(info || error === null) && <div
          class="rl-proj-view"
          data-testid="projector-view"
          data-ready={ready ? "true" : "false"}
          data-key={drawn?.key ?? ""}
          data-method={job?.method ?? ""}
          data-step={stepKey}
          data-dims={String(drawn?.dims ?? dims)}
          data-points={String(ready ? (sample ? sample.length : drawn.scaled.count) : 0)}
        >
          <Plot
            dims={drawn?.dims ?? dims}
            points={drawn?.scaled ?? null}
            transition={drawn?.transition ?? false}
            colours={colours}
            selected={selection}
            sample={sample}
            size={style.size}
            opacity={style.opacity}
            background={theme === "dark" ? "#1e2127" : "#ffffff"}
            markers={markers}
            lasso={lasso}
            camera={camera.length ? camera : null}
            tooltip={(index) => <Tooltip id={id} info={info} metadata={metadata} index={index} />}
            onClick={(index) => {
              setLassoed(NO_SELECTION);
              setPoint(index ?? -1);
            }}
            onLasso={(indices) => {
              setPoint(-1);
              setLassoed(indices.length > 2000 ? indices.slice(0, 2000) : indices);
            }}
            onCamera={onCamera}
            onDrawn={onDrawn}
            onError={setError}
          />
          <div class="rl-proj-tools">
            {(drawn?.dims ?? dims) === 2 && (
              <button type="button" class={lasso ? "rl-proj-on" : ""} aria-pressed={lasso} data-testid="projector-lasso" onClick={() => setLasso(!lasso)} title="Lasso select (or shift-drag)">
                Lasso
              </button>
            )}
            <button type="button" onClick={() => scatterRef.current?.reset()} title="Back to the whole plot">
              Fit
            </button>
          </div>
          {colours.kind === "categorical" && <Legend items={colours.legend} />}
          {colours.kind === "numeric" && colours.range && (
            <div class="rl-proj-legend rl-proj-ramp" data-testid="projector-legend">
              <span>{colours.range[0].toPrecision(3)}</span>
              <span class="rl-proj-ramp-bar" />
              <span>{colours.range[1].toPrecision(3)}</span>
            </div>
          )}
        </div>}
        {drawn && info && (
          <div class="rl-proj-export">
            Export the projected coordinates with the metadata:{" "}
            <a href={api.exportUrl(id, drawn.key, drawn.position, "csv")} download data-testid="projector-export-csv">
              CSV
            </a>{" "}
            ·{" "}
            <a href={api.exportUrl(id, drawn.key, drawn.position, "parquet")} download data-testid="projector-export-parquet">
              Parquet
            </a>
            <span class="rl-muted"> · the page's address holds this view</span>
          </div>
        )}
      </div>
      <aside class="rl-proj-side">
        {info && metadata && (
          <SearchBar id={id} columns={metadata.columns.map((c) => c.name)} hits={searchHits} onHits={(hits) => {
            setSearchHits(hits);
            if (hits.length) {
              setPoint(-1);
              setLassoed(NO_SELECTION);
            }
          }} />
        )}
        {info && point >= 0 && point < info.points && (
          <PointPanel
            id={id}
            info={info}
            metadata={metadata}
            labelColumn={labelColumn}
            point={point}
            neighbours={neighbours}
            error={neighbourError}
            k={k}
            metric={metric}
            onK={setK}
            onMetric={setMetric}
            onChoose={setPoint}
            onClear={() => setPoint(-1)}
          />
        )}
        {lassoed.length > 0 && point < 0 && (
          <section class="rl-proj-panel" data-testid="projector-selection">
            <header class="rl-proj-panel-head">
              <h3>{lassoed.length.toLocaleString()} points selected</h3>
              <button type="button" onClick={() => setLassoed(NO_SELECTION)} aria-label="Clear the selection">
                ✕
              </button>
            </header>
            <ol class="rl-proj-neighbours">
              {lassoed.slice(0, 100).map((index) => (
                <li key={index}>
                  <button type="button" onClick={() => setPoint(index)}>
                    {pointLabel(metadata, labelColumn, index)}
                  </button>
                </li>
              ))}
            </ol>
          </section>
        )}
        {info && info.aligned_steps.length > 1 && <ChangesPanel id={id} info={info} metadata={metadata} labelColumn={labelColumn} onChoose={setPoint} />}
        <BookmarksPanel
          bookmarks={bookmarks}
          onSave={(name) => saveBookmarks([...bookmarks.filter((b) => b.name !== name), { name, view, selected: selection.slice(0, 2000), camera: scatterRef.current?.camera() ?? null, step: id.step }])}
          onApply={(b) => {
            setView(b.view);
            if (b.selected.length === 1) setPoint(b.selected[0]!);
            else setLassoed(b.selected);
            if (b.camera) {
              scatterRef.current?.setCamera(b.camera);
              setCamera(b.camera);
            }
          }}
          onDelete={(name) => saveBookmarks(bookmarks.filter((b) => b.name !== name))}
        />
        {info && (
          <p class="rl-muted rl-proj-note">
            {info.points.toLocaleString()} points × {info.dimensions.toLocaleString()} dimensions · {info.name}
          </p>
        )}
      </aside>
    </div>
  );
}

/** "UMAP (15 neighbours, min dist 0.1), 12.3 s": what a background projection was computed with. */
function describeJob(job: JobState, view: ViewState): string {
  const took = job.info.seconds !== undefined ? `, ${job.info.seconds.toFixed(1)} s` : "";
  if (job.method === "umap") return `UMAP (${view.nNeighbors} neighbours, min dist ${view.minDist})${took}`;
  return `t-SNE (perplexity ${view.perplexity})${took}`;
}

function Legend({ items }: { items: { label: string; colour: string; count: number }[] }) {
  const shown = items.slice(0, 40);
  return (
    <ul class="rl-proj-legend" data-testid="projector-legend">
      {shown.map((item) => (
        <li key={item.label}>
          <span class="rl-proj-swatch" style={{ background: item.colour }} />
          {item.label} <span class="rl-muted">({item.count.toLocaleString()})</span>
        </li>
      ))}
      {items.length > shown.length && <li class="rl-muted">… {items.length - shown.length} more</li>}
    </ul>
  );
}

function Tooltip({ id, info, metadata, index }: { id: EmbeddingId; info: EmbeddingInfo | null; metadata: Metadata | null; index: number }) {
  return (
    <div class="rl-proj-tip" data-index={index}>
      {info?.sprite && <Thumb id={id} info={info} index={index} size={48} />}
      <table class="rl-proj-row">
        <tbody>
          <tr>
            <th>point</th>
            <td>{index}</td>
          </tr>
          {metadata?.columns.map((c) => (
            <tr key={c.name}>
              <th>{c.name}</th>
              <td>{c.values[c.codes[index]!]}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
