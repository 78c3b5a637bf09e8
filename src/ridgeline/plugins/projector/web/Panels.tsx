/**
 * The projector's side panels: the chosen point with its nearest neighbours (in the original space, with their
 * distances and thumbnails), the ranking of the points whose neighbourhoods changed most between two steps, and
 * named bookmarks of the view.
 */
import { useEffect, useState } from "preact/hooks";
import * as api from "./api";
import type { EmbeddingId } from "./api";
import { metadataRow, pointLabel, spriteOffset, type Bookmark, type EmbeddingInfo, type JobState, type Metadata, type Neighbours } from "./model";

/** A point's image from the sprite, scaled to `size` px. */
export function Thumb({ id, info, index, size = 32 }: { id: EmbeddingId; info: EmbeddingInfo; index: number; size?: number }) {
  const sprite = info.sprite;
  if (!sprite) return null;
  const [w, h] = sprite.single_image_dim;
  const scale = size / Math.max(w, h);
  const { x, y } = spriteOffset(index, sprite.per_row, sprite.single_image_dim);
  return (
    <span
      class="rl-proj-thumb"
      data-testid="projector-thumb"
      style={{
        width: `${w * scale}px`,
        height: `${h * scale}px`,
        backgroundImage: `url("${api.spriteUrl(id)}")`,
        backgroundPosition: `-${x * scale}px -${y * scale}px`,
        backgroundSize: `${sprite.width * scale}px ${sprite.height * scale}px`,
      }}
    />
  );
}

interface PointProps {
  id: EmbeddingId;
  info: EmbeddingInfo;
  metadata: Metadata | null;
  labelColumn: string;
  point: number;
  neighbours: Neighbours | null;
  error: string | null;
  k: number;
  metric: string;
  onK(k: number): void;
  onMetric(metric: "cosine" | "euclidean"): void;
  onChoose(index: number): void;
  onClear(): void;
}

export function PointPanel(props: PointProps) {
  const { id, info, metadata, point, neighbours } = props;
  return (
    <section class="rl-proj-panel" data-testid="projector-point" aria-label="The chosen point">
      <header class="rl-proj-panel-head">
        <h3>
          Point {point}: {pointLabel(metadata, props.labelColumn, point)}
        </h3>
        <button type="button" onClick={props.onClear} aria-label="Clear the chosen point">
          ✕
        </button>
      </header>
      <div class="rl-proj-point">
        <Thumb id={id} info={info} index={point} size={64} />
        <table class="rl-proj-row">
          <tbody>
            {metadataRow(metadata, point).map(([name, value]) => (
              <tr key={name}>
                <th>{name}</th>
                <td>{value}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div class="rl-proj-inline">
        <label>
          Nearest{" "}
          <input
            type="number"
            min={1}
            max={1000}
            value={props.k}
            data-testid="projector-k"
            onChange={(e) => props.onK(Math.max(1, Math.min(1000, Number(e.currentTarget.value) || 20)))}
          />
        </label>
        <label>
          by{" "}
          <select data-testid="projector-metric" value={props.metric} onChange={(e) => props.onMetric(e.currentTarget.value as "cosine" | "euclidean")}>
            <option value="cosine">cosine distance</option>
            <option value="euclidean">euclidean distance</option>
          </select>
        </label>
      </div>
      <p class="rl-muted rl-proj-note">
        In the original {info.dimensions}-dimensional space (the vectors as logged, not normalised beyond what the {props.metric}{" "}
        distance is), exact.
      </p>
      {props.error && (
        <p class="rl-proj-error" role="alert">
          {props.error}
        </p>
      )}
      {neighbours && (
        <ol class="rl-proj-neighbours" data-testid="projector-neighbours" data-metric={neighbours.metric}>
          {neighbours.neighbours.map((n) => (
            <li key={n.index} data-index={n.index} data-distance={n.distance}>
              <button type="button" onClick={() => props.onChoose(n.index)}>
                <Thumb id={id} info={info} index={n.index} size={24} />
                <span class="rl-proj-name">{pointLabel(metadata, props.labelColumn, n.index)}</span>
                <span class="rl-proj-distance">{n.distance.toPrecision(4)}</span>
              </button>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

interface ChangesProps {
  id: EmbeddingId;
  info: EmbeddingInfo;
  metadata: Metadata | null;
  labelColumn: string;
  onChoose(index: number): void;
}

/** "Which points' neighbourhoods changed most between two steps": a background job, then a clickable ranking. */
export function ChangesPanel({ id, info, metadata, labelColumn, onChoose }: ChangesProps) {
  const steps = info.aligned_steps;
  const here = Math.max(0, steps.indexOf(id.step));
  // The step shown against the one before it (the first step: against the next).
  const [before, setBefore] = useState<number | null>(steps[here > 0 ? here - 1 : 0] ?? null);
  const [after, setAfter] = useState<number | null>(steps[here > 0 ? here : 1] ?? id.step);
  const [k, setK] = useState(10);
  const [state, setState] = useState<JobState | null>(null);
  const [result, setResult] = useState<{ points: { index: number; overlap: number }[]; ranked: number } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [controller, setController] = useState<AbortController | null>(null);
  useEffect(() => () => controller?.abort(), [controller]);

  const start = () => {
    controller?.abort();
    const next = new AbortController();
    setController(next);
    setError(null);
    setResult(null);
    api
      .startChanges(id.run, id.tag, before, after, k, "cosine")
      .then((job) => api.follow(job, setState, next.signal))
      .then(async (done) => {
        if (done.state === "done") setResult(await api.ranking(done.key, 50));
        else if (done.state === "failed") setError(done.error ?? "the comparison failed");
      })
      .catch((err: unknown) => {
        if (!(err instanceof DOMException && err.name === "AbortError")) setError(err instanceof Error ? err.message : String(err));
      });
  };
  const stepOption = (s: number | null) => (
    <option key={String(s)} value={s === null ? "" : String(s)}>
      {s === null ? "(no step)" : s}
    </option>
  );
  const parse = (v: string) => (v === "" ? null : Number(v));
  const running = state !== null && (state.state === "queued" || state.state === "running");
  return (
    <section class="rl-proj-panel" data-testid="projector-changes" aria-label="Neighbourhoods that changed">
      <header class="rl-proj-panel-head">
        <h3>Neighbourhoods that changed</h3>
      </header>
      <div class="rl-proj-inline">
        <label>
          from <select value={before === null ? "" : String(before)} onChange={(e) => setBefore(parse(e.currentTarget.value))}>{steps.map(stepOption)}</select>
        </label>
        <label>
          to <select value={after === null ? "" : String(after)} onChange={(e) => setAfter(parse(e.currentTarget.value))}>{steps.map(stepOption)}</select>
        </label>
        <label>
          k <input type="number" min={1} max={200} value={k} onChange={(e) => setK(Math.max(1, Math.min(200, Number(e.currentTarget.value) || 10)))} />
        </label>
        <button type="button" data-testid="projector-changes-start" disabled={running || before === after} onClick={start}>
          Compare
        </button>
        {running && state && (
          <button type="button" onClick={() => void api.cancel(state.key)}>
            Cancel
          </button>
        )}
      </div>
      {running && state && <Progress state={state} />}
      {error && (
        <p class="rl-proj-error" role="alert">
          {error}
        </p>
      )}
      {result && (
        <>
          <p class="rl-muted rl-proj-note">
            {result.ranked.toLocaleString()} points ranked by the share of their {k} nearest neighbours (cosine) kept from step {String(before)} to {String(after)}:
          </p>
          <ol class="rl-proj-neighbours" data-testid="projector-changes-list">
            {result.points.map((p) => (
              <li key={p.index} data-index={p.index}>
                <button type="button" onClick={() => onChoose(p.index)}>
                  <Thumb id={id} info={info} index={p.index} size={24} />
                  <span class="rl-proj-name">{pointLabel(metadata, labelColumn, p.index)}</span>
                  <span class="rl-proj-distance">{Math.round(p.overlap * 100)}% kept</span>
                </button>
              </li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}

export function Progress({ state }: { state: JobState }) {
  return (
    <div class="rl-proj-progress" role="status" data-testid="projector-progress" data-state={state.state}>
      <progress max={1} value={state.progress} />
      <span>
        {Math.round(state.progress * 100)}% · {state.message || state.state}
      </span>
    </div>
  );
}

interface BookmarkProps {
  bookmarks: Bookmark[];
  onSave(name: string): void;
  onApply(bookmark: Bookmark): void;
  onDelete(name: string): void;
}

export function BookmarksPanel({ bookmarks, onSave, onApply, onDelete }: BookmarkProps) {
  const [name, setName] = useState("");
  return (
    <section class="rl-proj-panel" data-testid="projector-bookmarks" aria-label="Bookmarks">
      <header class="rl-proj-panel-head">
        <h3>Bookmarks</h3>
      </header>
      <form
        class="rl-proj-inline"
        onSubmit={(e) => {
          e.preventDefault();
          if (name.trim()) onSave(name.trim());
          setName("");
        }}
      >
        <input type="text" placeholder="name this view" value={name} aria-label="Bookmark name" data-testid="projector-bookmark-name" onInput={(e) => setName(e.currentTarget.value)} />
        <button type="submit" disabled={!name.trim()}>
          Save
        </button>
      </form>
      <ul class="rl-proj-bookmarks">
        {bookmarks.map((b) => (
          <li key={b.name}>
            <button type="button" onClick={() => onApply(b)} data-testid="projector-bookmark">
              {b.name}
            </button>
            <button type="button" aria-label={`Delete the bookmark ${b.name}`} onClick={() => onDelete(b.name)}>
              ✕
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
