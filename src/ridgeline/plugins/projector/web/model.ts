/**
 * The projector's pure half: the server's answers as types, coordinates scaled for drawing, colours from a
 * metadata column, stratified sampling (only when the user asks), point sizes that adapt to density, and the
 * view's state as it travels in the URL and in bookmarks.
 */

/** GET /api/embeddings: per run, the embeddings add_embedding wrote. */
export interface Listing {
  runs: Record<string, { name: string; tag: string; step: number | null; shape: number[]; metadata: boolean; sprite: boolean }[]>;
  errors: Record<string, string>;
}

export interface ColumnInfo {
  name: string;
  kind: "categorical" | "numeric" | "text";
  distinct: number;
}

/** GET /api/projector/embedding */
export interface EmbeddingInfo {
  run: string;
  tag: string;
  step: number | null;
  name: string;
  points: number;
  dimensions: number;
  digest: string;
  steps: (number | null)[];
  aligned_steps: (number | null)[];
  finite: number;
  columns: ColumnInfo[];
  sprite: { width: number; height: number; single_image_dim: [number, number]; per_row: number } | null;
  bookmarks: boolean;
  problems: string[];
  metrics: string[];
}

/** GET /api/projector/metadata */
export interface MetadataColumn {
  name: string;
  kind: ColumnInfo["kind"];
  values: string[];
  codes: number[];
  numbers?: (number | null)[];
}
export interface Metadata {
  points: number;
  columns: MetadataColumn[];
}

/** A projection job (POST /api/projector/projection, GET /api/projector/job). */
export interface JobState {
  key: string;
  method: string;
  state: "queued" | "running" | "done" | "failed" | "cancelled";
  progress: number;
  message: string;
  error: string | null;
  info: {
    bounds?: [number, number][];
    variance?: number[];
    total_variance?: number[];
    steps?: (number | null)[];
    aligned_to?: number | null;
    seconds?: number;
  };
  position?: number;
}

export interface Neighbours {
  index: number;
  metric: string;
  exact: boolean;
  neighbours: { index: number; distance: number }[];
}

export type Method = "pca" | "umap" | "tsne" | "custom";

/** Everything that decides what the plot shows: kept in the URL ("p.view") and in bookmarks. */
export interface ViewState {
  method: Method;
  dims: 2 | 3;
  components: number[];
  align: boolean;
  nNeighbors: number;
  minDist: number;
  perplexity: number;
  metric: "cosine" | "euclidean";
  custom: [string, string, string, string];
  colour: string;
  label: string;
  sample: number;
  sampleBy: string;
}

export const DEFAULT_VIEW: ViewState = {
  method: "pca",
  dims: 2,
  components: [0, 1, 2],
  align: true,
  nNeighbors: 15,
  minDist: 0.1,
  perplexity: 30,
  metric: "cosine",
  custom: ["", "", "", ""],
  colour: "",
  label: "",
  sample: 0,
  sampleBy: "",
};

/** A view read back from the URL or a bookmark: unknown or ill-typed fields fall back to the defaults. */
export function readView(raw: unknown): ViewState {
  const view: ViewState = { ...DEFAULT_VIEW, custom: [...DEFAULT_VIEW.custom] };
  if (!raw || typeof raw !== "object") return view;
  const r = raw as Record<string, unknown>;
  if (r.method === "pca" || r.method === "umap" || r.method === "tsne" || r.method === "custom") view.method = r.method;
  if (r.dims === 2 || r.dims === 3) view.dims = r.dims;
  if (Array.isArray(r.components) && r.components.every((c) => Number.isInteger(c) && c >= 0 && c < 10)) {
    view.components = (r.components as number[]).slice(0, 3);
  }
  if (typeof r.align === "boolean") view.align = r.align;
  if (typeof r.nNeighbors === "number" && r.nNeighbors >= 2) view.nNeighbors = Math.round(r.nNeighbors);
  if (typeof r.minDist === "number" && r.minDist >= 0 && r.minDist <= 1) view.minDist = r.minDist;
  if (typeof r.perplexity === "number" && r.perplexity > 1) view.perplexity = r.perplexity;
  if (r.metric === "cosine" || r.metric === "euclidean") view.metric = r.metric;
  if (Array.isArray(r.custom) && r.custom.length === 4 && r.custom.every((q) => typeof q === "string")) {
    view.custom = r.custom as [string, string, string, string];
  }
  for (const key of ["colour", "label", "sampleBy"] as const) if (typeof r[key] === "string") view[key] = r[key] as string;
  if (typeof r.sample === "number" && r.sample >= 0) view.sample = Math.round(r.sample);
  return view;
}

/** Coordinates (points × dims, row by row, NaN for left-out points) as columns scaled into [-1, 1] with
 * `bounds` (one scale for both axes in 2D, so distances are not distorted); `visible` marks finite points. */
export interface Scaled {
  x: Float32Array;
  y: Float32Array;
  z: Float32Array;
  visible: Uint8Array;
  count: number;
}

export function scaleCoordinates(flat: Float32Array, dims: number, bounds: [number, number][]): Scaled {
  const n = Math.floor(flat.length / Math.max(dims, 1));
  const x = new Float32Array(n);
  const y = new Float32Array(n);
  const z = new Float32Array(n);
  const visible = new Uint8Array(n);
  const centres = [0, 1, 2].map((d) => (bounds[d] ? (bounds[d]![0] + bounds[d]![1]) / 2 : 0));
  const spans = [0, 1, 2].map((d) => (bounds[d] ? bounds[d]![1] - bounds[d]![0] : 0));
  const half = Math.max(...spans.slice(0, dims), 1e-12) / 2 / 0.95; // a margin around the points
  let count = 0;
  for (let i = 0; i < n; i++) {
    const px = flat[i * dims]!;
    const py = dims > 1 ? flat[i * dims + 1]! : 0;
    const pz = dims > 2 ? flat[i * dims + 2]! : 0;
    if (!Number.isFinite(px) || !Number.isFinite(py) || !Number.isFinite(pz)) {
      x[i] = y[i] = z[i] = 0;
      continue;
    }
    x[i] = (px - centres[0]!) / half;
    y[i] = dims > 1 ? (py - centres[1]!) / half : 0;
    z[i] = dims > 2 ? (pz - centres[2]!) / half : 0;
    visible[i] = 1;
    count++;
  }
  return { x, y, z, visible, count };
}

/** The union of two sets of bounds (a series keeps one scale while the slider moves). */
export function unionBounds(a: [number, number][] | null, b: [number, number][]): [number, number][] {
  if (!a || a.length !== b.length) return b.map(([lo, hi]) => [lo, hi]);
  return b.map(([lo, hi], i) => [Math.min(lo, a[i]![0]), Math.max(hi, a[i]![1])]);
}

/** A categorical palette: distinct hues, readable on both themes (the run palette's idea, for many classes). */
export const CATEGORY_COLOURS: readonly string[] = [
  "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
  "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94", "#f7b6d2", "#c7c7c7", "#dbdb8d", "#9edae5",
];

/** A perceptually ordered ramp (viridis' stops) for numeric columns. */
const RAMP_STOPS = ["#440154", "#482878", "#3e4989", "#31688e", "#26828e", "#1f9e89", "#35b779", "#6ece58", "#b5de2b", "#fde725"];
export const RAMP_SIZE = 64;

function hexToRgb(hex: string): [number, number, number] {
  const v = parseInt(hex.slice(1), 16);
  return [(v >> 16) & 255, (v >> 8) & 255, v & 255];
}

export function rgbToHex([r, g, b]: [number, number, number]): string {
  return `#${[r, g, b].map((c) => Math.round(c).toString(16).padStart(2, "0")).join("")}`;
}

/** The ramp as `size` colours (linear interpolation between the stops). */
export function ramp(size = RAMP_SIZE): string[] {
  const stops = RAMP_STOPS.map(hexToRgb);
  const out: string[] = [];
  for (let i = 0; i < size; i++) {
    const t = (i / (size - 1)) * (stops.length - 1);
    const a = Math.floor(t);
    const b = Math.min(a + 1, stops.length - 1);
    const f = t - a;
    out.push(rgbToHex([0, 1, 2].map((c) => stops[a]![c]! * (1 - f) + stops[b]![c]! * f) as [number, number, number]));
  }
  return out;
}

/** How points are coloured: per point an index into `palette`, and a legend. */
export interface Colouring {
  palette: string[];
  index: Uint16Array;
  legend: { label: string; colour: string; count: number }[];
  kind: "none" | "categorical" | "numeric";
  range?: [number, number];
}

export function colouring(column: MetadataColumn | undefined, points: number, base: string): Colouring {
  if (!column || column.kind === "text") {
    return { palette: [base], index: new Uint16Array(points), legend: [], kind: "none" };
  }
  if (column.kind === "numeric" && column.numbers) {
    const numbers = column.numbers;
    let lo = Infinity;
    let hi = -Infinity;
    for (const v of numbers) if (v !== null) ((lo = Math.min(lo, v)), (hi = Math.max(hi, v)));
    const palette = [...ramp(), "#9a9a9a"]; // the last: a point without a number
    const index = new Uint16Array(points);
    const span = hi > lo ? hi - lo : 1;
    for (let i = 0; i < points; i++) {
      const v = numbers[column.codes[i]!];
      index[i] = v === null || v === undefined ? RAMP_SIZE : Math.round(((v - lo) / span) * (RAMP_SIZE - 1));
    }
    return { palette, index, legend: [], kind: "numeric", range: [lo, hi] };
  }
  const counts = new Array<number>(column.values.length).fill(0);
  for (const code of column.codes) counts[code]!++;
  const palette = column.values.map((_, i) => CATEGORY_COLOURS[i % CATEGORY_COLOURS.length]!);
  const index = Uint16Array.from(column.codes);
  const legend = column.values.map((label, i) => ({ label: label || "(empty)", colour: palette[i]!, count: counts[i]! }));
  legend.sort((a, b) => a.label.localeCompare(b.label, undefined, { numeric: true }));
  return { palette, index, legend, kind: "categorical" };
}

/**
 * A sample of `size` of the `visible` points, stratified by `strata` (each stratum keeps its share, at least one
 * point), deterministic (a fixed-seed shuffle): what "sample" draws when the user asks for it.
 */
export function stratifiedSample(visible: Uint8Array, size: number, strata: ArrayLike<number> | null): Uint32Array {
  const groups = new Map<number, number[]>();
  let total = 0;
  for (let i = 0; i < visible.length; i++) {
    if (!visible[i]) continue;
    const g = strata ? strata[i]! : 0;
    let list = groups.get(g);
    if (!list) groups.set(g, (list = []));
    list.push(i);
    total++;
  }
  if (size >= total) return Uint32Array.from([...groups.values()].flat().sort((a, b) => a - b));
  let seed = 12345;
  const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const chosen: number[] = [];
  for (const list of groups.values()) {
    const take = Math.max(1, Math.round((list.length / total) * size));
    for (let i = 0; i < Math.min(take, list.length); i++) {
      const j = i + Math.floor(random() * (list.length - i));
      [list[i], list[j]] = [list[j]!, list[i]!];
      chosen.push(list[i]!);
    }
  }
  return Uint32Array.from(chosen.sort((a, b) => a - b));
}

/** Point size (px) and opacity that keep a dense plot readable: big and opaque for a few hundred points, small
 * and translucent for a million. */
export function pointStyle(points: number, area = 900 * 600): { size: number; opacity: number } {
  const perPoint = area / Math.max(points, 1);
  const size = Math.max(1.5, Math.min(8, Math.sqrt(perPoint) * 0.5));
  const opacity = Math.max(0.15, Math.min(1, Math.sqrt(perPoint) / 6));
  return { size: Math.round(size * 2) / 2, opacity: Math.round(opacity * 100) / 100 };
}

/** Where point `index`'s image is in a sprite of `perRow` images of `dim` pixels: the CSS background offset. */
export function spriteOffset(index: number, perRow: number, dim: [number, number]): { x: number; y: number } {
  return { x: (index % perRow) * dim[0], y: Math.floor(index / perRow) * dim[1] };
}

/** A named bookmark (kept in local storage per embedding): the view, the selection and the camera. */
export interface Bookmark {
  name: string;
  view: ViewState;
  selected: number[];
  camera: number[] | null;
  step: number | null;
}

export function readBookmarks(raw: string | null): Bookmark[] {
  if (!raw) return [];
  try {
    const parsed: unknown = JSON.parse(raw);
    if (!Array.isArray(parsed)) return [];
    return parsed.flatMap((b: unknown) => {
      if (!b || typeof b !== "object") return [];
      const r = b as Record<string, unknown>;
      if (typeof r.name !== "string") return [];
      const selected = Array.isArray(r.selected) ? r.selected.filter((i): i is number => Number.isInteger(i) && i >= 0) : [];
      const camera = Array.isArray(r.camera) && r.camera.every((v) => typeof v === "number") ? (r.camera as number[]) : null;
      const step = typeof r.step === "number" ? r.step : null;
      return [{ name: r.name, view: readView(r.view), selected, camera, step }];
    });
  } catch {
    return [];
  }
}

/** The row of metadata for point `index`, as [column, value] pairs. */
export function metadataRow(metadata: Metadata | null, index: number): [string, string][] {
  if (!metadata) return [];
  return metadata.columns.map((c) => [c.name, c.values[c.codes[index]!] ?? ""]);
}

/** A point's label: its value in the label column (or the first column), else its index. */
export function pointLabel(metadata: Metadata | null, column: string, index: number): string {
  const chosen = metadata?.columns.find((c) => c.name === column) ?? metadata?.columns[0];
  const value = chosen ? chosen.values[chosen.codes[index]!] : undefined;
  return value !== undefined && value !== "" ? value : `#${index}`;
}
