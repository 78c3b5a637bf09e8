/**
 * The projection's settings: method (PCA, UMAP, t-SNE, custom) and its parameters, 2D or 3D, PCA's components
 * with the variance each explains, alignment across steps, colouring and labels by a metadata column, and a
 * sample (only when asked for: every point is drawn otherwise).
 */
import { useEffect, useState } from "preact/hooks";
import type { ColumnInfo, JobState, ViewState } from "./model";

interface Props {
  view: ViewState;
  columns: ColumnInfo[];
  dimensions: number;
  points: number;
  steps: number;
  job: JobState | null;
  onView(view: ViewState): void;
}

/** A number field that commits on change (Enter or leaving it), not on every keystroke. */
function NumberField(props: { label: string; value: number; min: number; max: number; step: number; testid: string; onChange(v: number): void }) {
  const [text, setText] = useState(String(props.value));
  useEffect(() => setText(String(props.value)), [props.value]);
  return (
    <label class="rl-proj-field">
      <span>{props.label}</span>
      <input
        type="number"
        min={props.min}
        max={props.max}
        step={props.step}
        value={text}
        data-testid={props.testid}
        onInput={(e) => setText(e.currentTarget.value)}
        onChange={(e) => {
          const v = Number(e.currentTarget.value);
          if (Number.isFinite(v) && v >= props.min && v <= props.max) props.onChange(v);
          else setText(String(props.value));
        }}
      />
    </label>
  );
}

export function Controls({ view, columns, dimensions, points, steps, job, onView }: Props) {
  const set = (patch: Partial<ViewState>) => onView({ ...view, ...patch });
  const components = Math.min(10, dimensions);
  const variance = job?.method === "pca" ? job.info.total_variance : undefined;
  const axes = view.dims === 3 ? ["x", "y", "z"] : ["x", "y"];
  const [custom, setCustom] = useState(view.custom);
  useEffect(() => setCustom(view.custom), [view.custom.join("\u0000")]);
  const colourable = columns.filter((c) => c.kind !== "text");
  return (
    <div class="rl-proj-controls" role="group" aria-label="Projection">
      <label class="rl-proj-field">
        <span>Projection</span>
        <select data-testid="projector-method" value={view.method} onChange={(e) => set({ method: e.currentTarget.value as ViewState["method"] })}>
          <option value="pca">PCA</option>
          <option value="umap">UMAP</option>
          <option value="tsne">t-SNE</option>
          <option value="custom" disabled={columns.length === 0}>
            Custom
          </option>
        </select>
      </label>
      {view.method !== "custom" && (
        <div class="rl-proj-segmented" role="radiogroup" aria-label="Dimensions">
          {([2, 3] as const).map((d) => (
            <button
              key={d}
              type="button"
              role="radio"
              aria-checked={view.dims === d}
              data-testid={`projector-dims-${d}`}
              class={view.dims === d ? "rl-proj-on" : ""}
              disabled={d === 3 && dimensions < 3 && view.method === "pca"}
              onClick={() => set({ dims: d })}
            >
              {d}D
            </button>
          ))}
        </div>
      )}
      {view.method === "pca" &&
        axes.map((axis, i) => (
          <label class="rl-proj-field" key={axis}>
            <span>{axis}</span>
            <select
              data-testid={`projector-pc-${axis}`}
              value={String(view.components[i] ?? i)}
              onChange={(e) => {
                const next = [...view.components];
                next[i] = Number(e.currentTarget.value);
                set({ components: next });
              }}
            >
              {Array.from({ length: components }, (_, c) => (
                <option key={c} value={String(c)}>
                  PC{c + 1}
                  {variance?.[c] !== undefined ? ` (${(variance[c]! * 100).toFixed(1)}%)` : ""}
                </option>
              ))}
            </select>
          </label>
        ))}
      {view.method === "umap" && (
        <>
          <NumberField label="neighbours" testid="projector-umap-neighbours" value={view.nNeighbors} min={2} max={200} step={1} onChange={(v) => set({ nNeighbors: Math.round(v) })} />
          <NumberField label="min dist" testid="projector-umap-min-dist" value={view.minDist} min={0} max={1} step={0.05} onChange={(v) => set({ minDist: v })} />
        </>
      )}
      {view.method === "tsne" && (
        <NumberField label="perplexity" testid="projector-tsne-perplexity" value={view.perplexity} min={2} max={200} step={1} onChange={(v) => set({ perplexity: v })} />
      )}
      {view.method === "custom" && (
        <form
          class="rl-proj-custom"
          onSubmit={(e) => {
            e.preventDefault();
            set({ custom: custom });
          }}
        >
          {(["x: left", "x: right", "y: down", "y: up"] as const).map((label, i) => (
            <label class="rl-proj-field" key={label}>
              <span>{label}</span>
              <input
                type="text"
                value={custom[i]}
                placeholder="meta:pattern"
                data-testid={`projector-custom-${i}`}
                onInput={(e) => {
                  const next = [...custom] as ViewState["custom"];
                  next[i] = e.currentTarget.value;
                  setCustom(next);
                }}
              />
            </label>
          ))}
          <button type="submit" data-testid="projector-custom-apply">
            Project
          </button>
        </form>
      )}
      {steps > 1 && (
        <label class="rl-proj-field rl-proj-check" title="Keep points in place from step to step (Procrustes; UMAP/t-SNE start from the previous step)">
          <input type="checkbox" checked={view.align} data-testid="projector-align" onChange={(e) => set({ align: e.currentTarget.checked })} />
          <span>align steps</span>
        </label>
      )}
      <label class="rl-proj-field">
        <span>Colour by</span>
        <select data-testid="projector-colour" value={view.colour} onChange={(e) => set({ colour: e.currentTarget.value })} disabled={colourable.length === 0}>
          <option value="">(none)</option>
          {colourable.map((c) => (
            <option key={c.name} value={c.name}>
              {c.name} ({c.kind === "numeric" ? "numeric" : `${c.distinct} values`})
            </option>
          ))}
        </select>
      </label>
      <label class="rl-proj-field">
        <span>Label by</span>
        <select data-testid="projector-label" value={view.label} onChange={(e) => set({ label: e.currentTarget.value })} disabled={columns.length === 0}>
          <option value="">(index)</option>
          {columns.map((c) => (
            <option key={c.name} value={c.name}>
              {c.name}
            </option>
          ))}
        </select>
      </label>
      <label class="rl-proj-field" title="Draw a stratified sample instead of every point (by the colour column when there is one)">
        <span>Sample</span>
        <select data-testid="projector-sample" value={String(view.sample)} onChange={(e) => set({ sample: Number(e.currentTarget.value) })}>
          <option value="0">all {points.toLocaleString()} points</option>
          {[100, 1000, 10_000, 100_000].filter((n) => n < points).map((n) => (
            <option key={n} value={String(n)}>
              {n.toLocaleString()}
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}
