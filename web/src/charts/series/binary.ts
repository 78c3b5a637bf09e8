/**
 * Decoder of the binary form of `POST /api/scalars/batch?format=binary` (see docs/server.md): the magic "RLSB",
 * a uint32 LE header length H, H bytes of JSON (`{"series": [entry]}`), then per entry the float64 LE columns its
 * `arrays` names, `n` values each, every column 8-byte aligned.
 *
 * The columns become `Float64Array` views on the response's buffer: no number is parsed or copied (on the
 * little-endian machines every browser runs on; a big-endian one gets byte-swapped copies).
 */

export const MAGIC = "RLSB";

export interface BinaryEntry {
  run: string;
  tag: string;
  n: number;
  reduced?: boolean;
  total_points?: number;
  nonfinite?: { step: number; value: "nan" | "inf" | "-inf" }[];
  arrays: string[];
  error?: string;
  /** The columns named in `arrays`, as views on the buffer. */
  columns: Record<string, Float64Array>;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** True when `buffer` starts with the binary form's magic. */
export function isBinaryBatch(buffer: ArrayBuffer): boolean {
  if (buffer.byteLength < 8) return false;
  const head = new Uint8Array(buffer, 0, 4);
  return String.fromCharCode(head[0], head[1], head[2], head[3]) === MAGIC;
}

function column(buffer: ArrayBuffer, offset: number, n: number): Float64Array {
  if (LITTLE_ENDIAN) return new Float64Array(buffer, offset, n);
  const view = new DataView(buffer, offset, n * 8);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = view.getFloat64(i * 8, true);
  return out;
}

/** The entries of a binary batch answer, in request order, with their columns as zero-copy views. */
export function decodeBatch(buffer: ArrayBuffer): BinaryEntry[] {
  if (!isBinaryBatch(buffer)) throw new Error("not a binary scalars answer (bad magic)");
  const size = new DataView(buffer).getUint32(4, true);
  if (8 + size > buffer.byteLength) throw new Error("binary scalars answer: truncated header");
  const header = JSON.parse(new TextDecoder().decode(new Uint8Array(buffer, 8, size))) as {
    series: Omit<BinaryEntry, "columns">[];
  };
  let offset = 8 + size;
  if (offset % 8 !== 0) throw new Error("binary scalars answer: columns not 8-byte aligned");
  return header.series.map((entry) => {
    const columns: Record<string, Float64Array> = {};
    for (const name of entry.arrays) {
      if (offset + entry.n * 8 > buffer.byteLength) throw new Error("binary scalars answer: truncated columns");
      columns[name] = column(buffer, offset, entry.n);
      offset += entry.n * 8;
    }
    return { ...entry, columns };
  });
}
