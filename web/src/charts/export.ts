/**
 * Client-side downloads of what a card shows: CSV (run,tag,step,wall_time,value with nan/inf spelled out,
 * matching the server's CSV download) and JSON (one object per series, columnar); pictures (PNG, SVG) are
 * ./picture's, saved with downloadBlob.
 */

export interface ExportSeries {
  run: string;
  tag: string;
  step: ArrayLike<number>;
  wall_time: ArrayLike<number>;
  value: ArrayLike<number | null>;
  nonfinite?: { step: number; value: string }[];
}

function csvField(s: string): string {
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** A value as the CSV spells it: nan, inf, -inf, or the shortest round-trip decimal. */
function csvValue(v: number | null, step: number, nonfinite: Map<number, string> | null): string {
  if (v === null) return nonfinite?.get(step) ?? "nan";
  if (Number.isNaN(v)) return "nan";
  if (v === Infinity) return "inf";
  if (v === -Infinity) return "-inf";
  return String(v);
}

export function toCsv(series: ExportSeries[]): string {
  const lines = ["run,tag,step,wall_time,value"];
  for (const s of series) {
    const nf = s.nonfinite?.length ? new Map(s.nonfinite.map((p) => [p.step, p.value])) : null;
    const prefix = `${csvField(s.run)},${csvField(s.tag)},`;
    for (let i = 0; i < s.step.length; i++) {
      lines.push(`${prefix}${s.step[i]},${s.wall_time[i]},${csvValue(s.value[i], s.step[i], nf)}`);
    }
  }
  return lines.join("\n") + "\n";
}

export function toJson(series: ExportSeries[]): string {
  return JSON.stringify(
    series.map((s) => {
      const nf = s.nonfinite?.length ? new Map(s.nonfinite.map((p) => [p.step, p.value])) : null;
      return {
        run: s.run,
        tag: s.tag,
        step: Array.from(s.step),
        wall_time: Array.from(s.wall_time),
        // JSON has no NaN/Inf: non-finite values are written as the strings the API uses.
        value: Array.from(s.value, (v, i) =>
          v === null || !Number.isFinite(v) ? csvValue(v, s.step[i], nf) : v,
        ),
      };
    }),
  );
}

/** A file name safe on every OS for a tag ("Loss/训练" -> "Loss_训练"). */
export function safeFileName(name: string): string {
  return name.replace(/[\\/:*?"<>|\s]+/g, "_").replace(/^_+|_+$/g, "") || "scalars";
}

/** Starts a browser download of `text` as `filename`. */
export function downloadText(text: string, filename: string, mime: string): void {
  downloadBlob(new Blob([text], { type: mime }), filename);
}

/** Starts a browser download of `blob` (a PNG, say) as `filename`. */
export function downloadBlob(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = filename;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
