import { describe, expect, it } from "vitest";
import {
  brushFilter,
  cellValue,
  colourBy,
  columnsOf,
  compareCells,
  defaultHidden,
  distinctValues,
  filterMarks,
  filterSpan,
  formatCell,
  formatMetric,
  passes,
  scaleFor,
  sortTrials,
  type Table,
  type Trial,
} from "./model";

function trial(run: string, hparams: Trial["hparams"], acc: number | string | null, loss = 1): Trial {
  return {
    run,
    hparams,
    metrics: {
      "hparam/acc": acc === null ? null : { final: acc, final_step: 0, best: typeof acc === "number" ? acc : null, best_step: 0, points: 1 },
      "hparam/loss": { final: loss, final_step: 3, best: loss / 2, best_step: 1, points: 4 },
    },
    status: "success",
    start_time: null,
    end_time: null,
    group_name: "",
    related_runs: [run],
  };
}

const table: Table = {
  hparams: [
    { name: "lr", display_name: "lr", description: "", type: "number", declared_type: "float64", domain: null },
    { name: "batch", display_name: "batch", description: "", type: "mixed", declared_type: null, domain: null },
    { name: "aug", display_name: "aug", description: "", type: "bool", declared_type: "bool", domain: null },
  ],
  metrics: [
    { id: "hparam/acc", group: "", tag: "hparam/acc", display_name: "hparam/acc", description: "", dataset_type: null, goal: "max" },
    { id: "hparam/loss", group: "", tag: "hparam/loss", display_name: "hparam/loss", description: "", dataset_type: null, goal: "min" },
  ],
  metrics_source: "experiment",
  experiments: [],
  trials: [
    trial("b", { lr: 0.01, batch: 32, aug: true }, 0.6000000238418579, 0.5),
    trial("a", { lr: 0.1, batch: "auto", aug: false }, "NaN", 2),
    trial("c", { lr: 0.001, batch: 64 }, null, 1),
  ],
};
const cols = columnsOf(table);
const col = (id: string) => cols.find((c) => c.id === id)!;

describe("columns and cells", () => {
  it("has one column per hparam, final + best per metric, one column where they agree for every trial", () => {
    expect(cols.map((c) => c.id)).toEqual([
      "h:lr",
      "h:batch",
      "h:aug",
      "m:hparam/acc:final",
      "m:hparam/loss:final",
      "m:hparam/loss:best",
    ]);
    expect(col("m:hparam/loss:best").label).toContain("best ↓");
    expect(col("m:hparam/loss:final").label).toBe("hparam/loss (final)");
    expect(col("m:hparam/acc:final").label).toBe("hparam/acc"); // one value per run: no "final" or "best"
  });
  it("keeps final and best apart when they differ for one trial only", () => {
    const metrics = (final: number, best: number) => ({ "hparam/acc": { final, final_step: 9, best, best_step: 3, points: 10 } });
    const agreeing = { ...table, trials: [{ ...table.trials[0], metrics: metrics(0.5, 0.5) }] };
    expect(columnsOf(agreeing).filter((c) => c.name === "hparam/acc")).toHaveLength(1);
    const one = { ...table.trials[0], run: "x", metrics: metrics(0.5, 0.7) };
    const differing = { ...table, trials: [...agreeing.trials, one] };
    expect(columnsOf(differing).filter((c) => c.name === "hparam/acc").map((c) => c.which)).toEqual(["final", "best"]);
  });
  it("formats values as written", () => {
    expect(formatCell(32, col("h:batch"))).toBe("32");
    expect(formatCell(0.001, col("h:lr"))).toBe("0.001");
    expect(formatCell(1e-7, col("h:lr"))).toBe("1e-7");
    expect(formatCell(true, col("h:aug"))).toBe("true");
    expect(formatCell(false, col("h:aug"))).toBe("false");
    expect(formatCell(null, col("h:aug"))).toBe("–");
    expect(formatMetric(0.6000000238418579)).toBe("0.6");
    expect(formatMetric(NaN)).toBe("NaN");
    expect(formatMetric(123456789)).toBe("1.234568e8");
  });
  it("reads non-finite metric values", () => {
    expect(cellValue(table.trials[1], col("m:hparam/acc:final"))).toBeNaN();
    expect(cellValue(table.trials[2], col("m:hparam/acc:final"))).toBeNull();
    expect(cellValue(table.trials[0], col("m:hparam/loss:best"))).toBe(0.25);
  });
  it("hides most metrics by default only when there are many", () => {
    expect(defaultHidden(cols)).toEqual([]);
    const many: Table = {
      ...table,
      metrics: Array.from({ length: 10 }, (_, i) => ({ ...table.metrics[0], id: `m${i}`, display_name: `m${i}` })),
    };
    const hidden = defaultHidden(columnsOf(many)); // one column each (no trial has two values): the first 4 shown
    expect(hidden).toHaveLength(6);
    expect(hidden).not.toContain("m:m0:final");
  });
});

describe("sorting mixed types", () => {
  it("orders numbers, then booleans, then strings, never throwing", () => {
    const cells = ["auto", 64, true, 32, null, NaN, "Adam", false];
    const sorted = [...cells].sort(compareCells);
    expect(sorted.slice(0, 3)).toEqual([32, 64, NaN]);
    expect(sorted.slice(3)).toEqual([false, true, "Adam", "auto", null]);
  });
  it("sorts trials by a mixed column both ways with missing values last", () => {
    expect(sortTrials(table.trials, col("h:batch"), "asc").map((t) => t.run)).toEqual(["b", "c", "a"]);
    expect(sortTrials(table.trials, col("h:batch"), "desc").map((t) => t.run)).toEqual(["a", "c", "b"]);
    expect(sortTrials(table.trials, col("h:aug"), "desc").map((t) => t.run)).toEqual(["b", "a", "c"]);
    expect(sortTrials(table.trials, null, "asc").map((t) => t.run)).toEqual(["a", "b", "c"]);
  });
});

describe("filters", () => {
  it("keeps numeric values in range", () => {
    const kept = table.trials.filter((t) => passes(t, cols, { "h:lr": { min: 0.005, max: null } }));
    expect(kept.map((t) => t.run)).toEqual(["b", "a"]);
  });
  it("filters a mixed column by checked values, telling 32 from '32'", () => {
    const values = distinctValues(table.trials, col("h:batch"));
    expect(values.map((v) => v.label)).toEqual(["32", "64", "auto"]);
    const kept = table.trials.filter((t) => passes(t, cols, { "h:batch": { keys: ["s:auto", "n:64"] } }));
    expect(kept.map((t) => t.run)).toEqual(["a", "c"]);
    expect(passes(trial("x", { batch: "32" }, 1), cols, { "h:batch": { keys: ["n:32"] } })).toBe(false);
  });
  it("filters on missing values as a value of their own", () => {
    const values = distinctValues(table.trials, col("h:aug"));
    expect(values.map((v) => v.key)).toEqual(["b:false", "b:true", "null"]);
  });
});

describe("scales", () => {
  it("uses a log axis for values spanning decades", () => {
    const s = scaleFor(table.trials, col("h:lr"));
    expect(s.kind).toBe("log");
    expect(s.pos(0.001)).toBeCloseTo(0);
    expect(s.pos(0.1)).toBeCloseTo(1);
    expect(s.ticks.map((t) => t.label)).toEqual(["0.001", "0.01", "0.1"]);
  });
  it("places a mixed column on a categorical axis", () => {
    const s = scaleFor(table.trials, col("h:batch"));
    expect(s.kind).toBe("category");
    expect(s.ticks.map((t) => t.label)).toEqual(["32", "64", "auto"]);
    expect(s.pos("auto")).toBe(1);
  });
  it("spans the declared domain", () => {
    const dropout = { ...col("h:lr"), domain: { min: 0, max: 0.5 } };
    const s = scaleFor(table.trials, dropout);
    expect(s.kind).toBe("linear");
    expect(s.pos(0.1)).toBeCloseTo(0.2);
    const opt = { ...col("h:batch"), domain: { values: ["auto", "max"] } };
    expect(scaleFor(table.trials, opt).ticks.map((t) => t.label)).toEqual(["32", "64", "auto", "max"]);
  });
  it("turns a brush into a filter and back", () => {
    const lr = scaleFor(table.trials, col("h:lr")); // log, 0.001 .. 0.1
    const f = brushFilter(col("h:lr"), lr, 0.4, 1);
    expect(f).toEqual({ min: 0.00631, max: null });
    expect(brushFilter(col("h:lr"), lr, 0, 0.5)).toEqual({ min: null, max: 0.01 });
    expect(table.trials.filter((t) => passes(t, cols, { "h:lr": f })).map((t) => t.run)).toEqual(["b", "a"]);
    const span = filterSpan(lr, f)!;
    expect(span[0]).toBeCloseTo(0.4, 3);
    expect(span[1]).toBeCloseTo(1);
    const batch = scaleFor(table.trials, col("h:batch")); // 32, 64, "auto"
    const g = brushFilter(col("h:batch"), batch, 0.4, 1);
    expect(g).toEqual({ keys: ["n:64", "s:auto"] });
    expect(filterSpan(batch, g)).toBeNull();
    expect(filterMarks(batch, { keys: ["n:32", "s:auto"] })).toEqual([0, 1]);
    expect(filterSpan(batch, undefined)).toBeNull();
  });
  it("colours better values brighter, by the metric's goal", () => {
    const c = colourBy(table.trials, col("m:hparam/loss:final"));
    expect(c.get("b")).toBe("rgb(253, 231, 37)"); // smallest loss
  });
});
