/**
 * The trials table as a file: CSV, JSON or a LaTeX tabular (what TensorBoard's hparams dashboard offers), with the
 * rows and columns the table shows — filtered, sorted, hidden columns left out. Values are as written: numbers
 * with every digit (CSV, JSON), metrics as the table prints them (LaTeX); NaN and infinities as text.
 */
import { cellValue, formatCell, type Cell, type Column, type Trial } from "./model";

export type TableFormat = "csv" | "json" | "tex";

function csvField(s: string): string {
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function rawText(v: Cell): string {
  if (v === null) return "";
  if (typeof v === "number") return Number.isNaN(v) ? "NaN" : v === Infinity ? "Infinity" : v === -Infinity ? "-Infinity" : String(v);
  return String(v);
}

export function tableCsv(trials: readonly Trial[], columns: readonly Column[]): string {
  const lines = [["run", ...columns.map((c) => c.label)].map(csvField).join(",")];
  for (const t of trials) lines.push([t.run, ...columns.map((c) => rawText(cellValue(t, c)))].map(csvField).join(","));
  return lines.join("\n") + "\n";
}

export function tableJson(trials: readonly Trial[], columns: readonly Column[]): string {
  const rows = trials.map((t) => {
    const row: Record<string, unknown> = { run: t.run };
    for (const c of columns) {
      const v = cellValue(t, c);
      row[c.label] = typeof v === "number" && !Number.isFinite(v) ? rawText(v) : v; // JSON has no NaN
    }
    return row;
  });
  return JSON.stringify(rows, null, 2) + "\n";
}

const LATEX_SPECIAL: Record<string, string> = {
  "\\": "\\textbackslash{}",
  "&": "\\&",
  "%": "\\%",
  $: "\\$",
  "#": "\\#",
  _: "\\_",
  "{": "\\{",
  "}": "\\}",
  "~": "\\textasciitilde{}",
  "^": "\\textasciicircum{}",
};

export function latexEscape(text: string): string {
  return text.replace(/[\\&%$#_{}~^]/g, (ch) => LATEX_SPECIAL[ch]!);
}

export function tableLatex(trials: readonly Trial[], columns: readonly Column[]): string {
  const align = ["l", ...columns.map((c) => (c.type === "number" ? "r" : "l"))].join("");
  const row = (cells: string[]) => `${cells.map(latexEscape).join(" & ")} \\\\`;
  return [
    `\\begin{tabular}{${align}}`,
    "\\hline",
    row(["run", ...columns.map((c) => c.label)]),
    "\\hline",
    ...trials.map((t) => row([t.run, ...columns.map((c) => formatCell(cellValue(t, c), c))])),
    "\\hline",
    "\\end{tabular}",
    "",
  ].join("\n");
}

export const TABLE_FORMATS: { format: TableFormat; label: string; mime: string; write: typeof tableCsv }[] = [
  { format: "csv", label: "CSV", mime: "text/csv", write: tableCsv },
  { format: "json", label: "JSON", mime: "application/json", write: tableJson },
  { format: "tex", label: "LaTeX", mime: "application/x-tex", write: tableLatex },
];
