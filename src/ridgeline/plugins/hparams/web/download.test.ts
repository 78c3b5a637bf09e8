import { describe, expect, it } from "vitest";
import { latexEscape, tableCsv, tableJson, tableLatex } from "./download";
import type { Column, Trial } from "./model";

const columns: Column[] = [
  { id: "h:lr", kind: "hparam", label: "lr", description: "", type: "number", name: "lr" },
  { id: "h:opt", kind: "hparam", label: "opt, name", description: "", type: "string", name: "opt" },
  { id: "m:loss:final", kind: "metric", label: "loss (final)", description: "", type: "number", name: "loss", which: "final" },
];
const trial = (run: string, lr: number, opt: string, loss: number | string): Trial => ({
  run,
  hparams: { lr, opt },
  metrics: { loss: { final: loss, final_step: 1, best: null, best_step: null, points: 1 } },
  status: null,
  start_time: null,
  end_time: null,
  group_name: "",
  related_runs: [run],
});
const trials = [trial("adam_lr0.01", 0.01, "adam", 0.25), trial("sgd_lr0.1", 0.1, 'sgd "m"', "NaN")];

describe("table downloads", () => {
  it("writes CSV with every digit, quoting what needs it", () => {
    expect(tableCsv(trials, columns)).toBe(
      'run,lr,"opt, name",loss (final)\nadam_lr0.01,0.01,adam,0.25\nsgd_lr0.1,0.1,"sgd ""m""",NaN\n',
    );
  });

  it("writes JSON with non-finite values as text", () => {
    expect(JSON.parse(tableJson(trials, columns))).toEqual([
      { run: "adam_lr0.01", lr: 0.01, "opt, name": "adam", "loss (final)": 0.25 },
      { run: "sgd_lr0.1", lr: 0.1, "opt, name": 'sgd "m"', "loss (final)": "NaN" },
    ]);
  });

  it("writes a LaTeX tabular with its special characters escaped", () => {
    expect(latexEscape("lr_0.1 & 50% {x}")).toBe("lr\\_0.1 \\& 50\\% \\{x\\}");
    const tex = tableLatex(trials, columns);
    expect(tex.split("\n")[0]).toBe("\\begin{tabular}{lrlr}");
    expect(tex).toContain("adam\\_lr0.01 & 0.01 & adam & 0.25 \\\\");
  });
});
