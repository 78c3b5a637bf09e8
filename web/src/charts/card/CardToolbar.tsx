/**
 * A scalar card's header: its title (one tag, or two on two y axes), badges (non-finite values, a reduced series,
 * values a log axis cannot show), what the overlays add, and the actions: reset zoom, pin, expand, downloads
 * (CSV and JSON at full resolution, the server's CSV for one run, the chart as PNG and SVG) and close.
 */
import { Fragment, type RefObject } from "preact";
import type { RunInfo } from "@app/types";
import { apiUrl } from "@api/client";
import type { SeriesKey } from "@api/types";
import { ChartPictureButtons } from "../ChartPictureButtons";
import { downloadText, safeFileName, toCsv, toJson } from "../export";
import type { ChartModel } from "../lines/model";
import type { CardOverlay } from "../overlays";
import type { Plot } from "../plot";
import { fetchSeries, seriesKey } from "../series/data";

export interface CardToolbarProps {
  /** The card's id: the tag, or "A ⇄ B" for the combined card. */
  id: string;
  tag: string;
  tag2: string | null;
  runs: RunInfo[];
  /** The series the card draws (the downloads fetch them at full resolution). */
  keys: SeriesKey[];
  model: ChartModel | null;
  /** The card's plot, and whether it has drawn (the PNG and SVG downloads picture it). */
  plot: RefObject<Plot | null>;
  drawn: boolean;
  /** The chart shows a zoomed window at full resolution (not reduced). */
  zoomed: boolean;
  zoom: [number, number] | null;
  setZoom: (zoom: [number, number] | null) => void;
  overlays: readonly CardOverlay[];
  pinned: boolean;
  expanded: boolean;
  onPin?: (tag: string) => void;
  onExpand?: (id: string) => void;
  onClose?: () => void;
}

export function CardToolbar({ id, tag, tag2, runs, keys, model, plot, drawn, zoomed, zoom, setZoom, overlays, pinned, expanded, onPin, onExpand, onClose }: CardToolbarProps) {
  const nf = model?.nonfinite;
  const nfTotal = nf ? nf.nan + nf.inf + nf.ninf : 0;
  const download = async (kind: "csv" | "json") => {
    const tags = [tag, ...(tag2 ? [tag2] : [])];
    const ks = keys.filter((k) => tags.includes(k.tag));
    const m = await fetchSeries(ks, {});
    const list = ks.flatMap((k) => {
      const d = m.get(seriesKey(k.run, k.tag));
      if (!d || d instanceof Error) return [];
      return [{ run: k.run, tag: k.tag, step: d.step, wall_time: d.wall, value: Array.from(d.value, (v) => (Number.isFinite(v) ? v : null)), nonfinite: d.nonfinite }];
    });
    const name = safeFileName(tags.join("_"));
    if (kind === "csv") downloadText(toCsv(list), `${name}.csv`, "text/csv");
    else downloadText(toJson(list), `${name}.json`, "application/json");
  };

  return (
    <header class="rl-card-head">
      <h3 class="rl-card-title" title={id}>
        {tag2 ? (
          <>
            {tag} <span class="rl-muted">(left)</span> · {tag2} <span class="rl-muted">(right, dashed)</span>
          </>
        ) : (
          tag
        )}
      </h3>
      {nfTotal > 0 && (
        <span class="rl-badge rl-badge-warn" title="Non-finite values, drawn as markers on the chart's edges: ▲ +Inf at the top, ▼ -Inf and ✕ NaN at the bottom (hover one for its step)">
          {nfTotal} non-finite ({[nf!.nan && `${nf!.nan} NaN`, nf!.inf && `${nf!.inf} +Inf`, nf!.ninf && `${nf!.ninf} -Inf`].filter(Boolean).join(", ")})
        </span>
      )}
      {model?.reduced && !zoomed && (
        <span
          class="rl-badge"
          data-testid="reduced"
          title="The server reduced this series to about two points per pixel. The shaded band around the line shows the minimum and maximum of each bucket of points, so no spike is hidden. Drag across the chart to zoom in: the zoomed range is shown at full resolution."
        >
          reduced
        </span>
      )}
      {!!model?.nonPositive && (
        <span class="rl-card-note" data-testid="log-skipped" title="A logarithmic axis cannot show zero or negative values: they are left out of the chart.">
          {model.nonPositive} value{model.nonPositive === 1 ? "" : "s"} ≤ 0 not drawn (log scale)
        </span>
      )}
      {!!model?.xNonPositive && (
        <span class="rl-card-note" data-testid="log-x-skipped" title="A logarithmic x axis cannot show x ≤ 0 (such as step 0): those points are left out.">
          {model.xNonPositive} point{model.xNonPositive === 1 ? "" : "s"} at x ≤ 0 not drawn (log x)
        </span>
      )}
      {overlays.map((o, i) => (
          <Fragment key={i}>{o.legend}</Fragment>
        ))}
      {zoom && (
        <button type="button" class="rl-icon" onClick={() => setZoom(null)} title="Reset zoom (or double-click the chart)">
          Reset zoom
        </button>
      )}
      <span class="rl-card-actions">
        {onPin && (
          <button type="button" class="rl-icon" aria-pressed={pinned} aria-label={pinned ? `Unpin ${id}` : `Pin ${id} to the top`} title={pinned ? "Unpin" : "Pin to the top"} onClick={() => onPin?.(tag)}>
            {pinned ? "★" : "☆"}
          </button>
        )}
        {onExpand && (
          <button type="button" class="rl-icon" aria-pressed={expanded} aria-label={expanded ? `Shrink ${id}` : `Expand ${id} to full width`} title={expanded ? "Shrink" : "Full width"} onClick={() => onExpand?.(id)}>
            ⤢
          </button>
        )}
        <button type="button" class="rl-icon" aria-label={`Download ${id} as CSV`} title="Download CSV (full resolution)" onClick={() => void download("csv")}>
          CSV
        </button>
        <button type="button" class="rl-icon" aria-label={`Download ${id} as JSON`} title="Download JSON (full resolution)" onClick={() => void download("json")}>
          JSON
        </button>
        <ChartPictureButtons plot={plot} title={id} name={safeFileName([tag, ...(tag2 ? [tag2] : [])].join("_"))} drawn={drawn} />
        {runs.length === 1 && !tag2 && (
          <a class="rl-icon" href={apiUrl("/api/scalars.csv", { run: runs[0].run, tag })} download title="The server's CSV download">
            ⇩
          </a>
        )}
        {onClose && (
          <button type="button" class="rl-icon" aria-label="Close the combined chart" onClick={onClose}>
            ✕
          </button>
        )}
      </span>
    </header>
  );
}
