/** What the confusion matrix card computes from a step of `/api/confusion_matrix`: row shares and cell details. */
import type { StepEntry } from "@app/cards";

/** One step as the route answers it: class names and counts (rows: true class), or an error. */
export interface MatrixStep extends StepEntry {
  class_names?: string[];
  counts?: number[][];
}

export interface Matrix {
  names: string[];
  counts: number[][];
  /** Each true class's number of samples (the row sums). */
  rowTotals: number[];
}

/** The matrix of a step, or a message naming what is wrong with it (a step that is not an n×n matrix). */
export function matrixOf(entry: MatrixStep): Matrix | string {
  if (entry.error !== undefined) return entry.error;
  const names = entry.class_names ?? [];
  const counts = entry.counts ?? [];
  const n = names.length;
  if (n === 0 || counts.length !== n || counts.some((row) => !Array.isArray(row) || row.length !== n)) {
    const shape = `[${counts.length}, ${counts[0]?.length ?? 0}]`;
    return `this confusion matrix has shape ${shape}, not [${n}, ${n}] as its ${n} class names say`;
  }
  return { names, counts, rowTotals: counts.map((row) => row.reduce((a, b) => a + b, 0)) };
}

/** The share of true class `row` predicted as `col` (0..1), or null when the class has no sample. */
export function rowShare(m: Matrix, row: number, col: number): number | null {
  const total = m.rowTotals[row];
  return total > 0 ? m.counts[row][col] / total : null;
}

/** A share as a percentage with one decimal ("12.5%"), "–" when there is none. */
export function formatShare(share: number | null): string {
  return share === null ? "–" : `${(share * 100).toFixed(1)}%`;
}

/** What a cell shows: its count, or its row share. */
export function cellText(m: Matrix, row: number, col: number, normalised: boolean): string {
  return normalised ? formatShare(rowShare(m, row, col)) : String(m.counts[row][col]);
}

/** How dark a cell is drawn (0..1): its row share, so each true class reads on its own scale. */
export function cellShade(m: Matrix, row: number, col: number): number {
  return rowShare(m, row, col) ?? 0;
}

export interface CellDetails {
  trueClass: string;
  predictedClass: string;
  count: number;
  rowTotal: number;
  rowShare: string;
}

export function cellDetails(m: Matrix, row: number, col: number): CellDetails {
  return {
    trueClass: m.names[row],
    predictedClass: m.names[col],
    count: m.counts[row][col],
    rowTotal: m.rowTotals[row],
    rowShare: formatShare(rowShare(m, row, col)),
  };
}
