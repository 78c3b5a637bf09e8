import { describe, expect, it } from "vitest";
import {
  expectedRange,
  FOCUS_KEY,
  focusNames,
  alertX,
  checkedWithoutFindings,
  countKinds,
  exactPattern,
  filterAlerts,
  focusRange,
  forecastEnd,
  formatAlertValue,
  formatRange,
  groupFindings,
  mergeAlerts,
  notificationText,
  phaseAt,
  phaseBands,
  scalarsLink,
  sortAlerts,
  spotLink,
  spotText,
  type Alert,
  type Checked,
  type Finding,
  type Forecast,
} from "./model";

const alert = (over: Partial<Alert>): Alert => ({
  run: "a",
  tag: "loss",
  step: 1,
  wall_time: 100,
  kind: "outlier",
  value: 1,
  expected_low: 0,
  expected_high: 0.5,
  ...over,
});
const fmt = (x: number) => String(x);

describe("mergeAlerts", () => {
  it("appends only alerts it has not seen, in arrival order", () => {
    const a = alert({ step: 1 });
    const b = alert({ step: 2 });
    const c = alert({ step: 2, kind: "spike" });
    const first = mergeAlerts([], [a, b]);
    expect(first.added).toEqual([a, b]);
    const second = mergeAlerts(first.alerts, [b, c, c]);
    expect(second.added).toEqual([c]);
    expect(second.alerts).toEqual([a, b, c]);
  });
});

describe("sortAlerts", () => {
  const list = [
    alert({ run: "r10", step: 5, value: 3 }),
    alert({ run: "r2", step: 9, value: null, kind: "nan" }),
    alert({ run: "r1", step: 1, value: -2 }),
  ];
  it("sorts runs naturally and steps numerically, both directions", () => {
    expect(sortAlerts(list, "run").map((a) => a.run)).toEqual(["r1", "r2", "r10"]);
    expect(sortAlerts(list, "step", true).map((a) => a.step)).toEqual([9, 5, 1]);
  });
  it("keeps values without a number last in either direction", () => {
    expect(sortAlerts(list, "value").map((a) => a.value)).toEqual([-2, 3, null]);
    expect(sortAlerts(list, "value", true).map((a) => a.value)).toEqual([3, -2, null]);
  });
});

describe("filterAlerts and countKinds", () => {
  const list = [alert({ run: "a", tag: "train/loss" }), alert({ run: "b", tag: "val/loss", kind: "nan" }), alert({ run: "a", tag: "lr", kind: "spike" })];
  it("filters on runs, the tag regex and kinds", () => {
    expect(filterAlerts(list, new Set(["a"]), null, []).length).toBe(2);
    expect(filterAlerts(list, new Set(["a", "b"]), /loss/i, []).length).toBe(2);
    expect(filterAlerts(list, new Set(["a", "b"]), null, ["nan", "spike"]).map((a) => a.kind)).toEqual(["nan", "spike"]);
  });
  it("counts every kind", () => {
    expect(countKinds(list)).toEqual({ outlier: 1, nan: 1, inf: 0, spike: 1, stalled: 0 });
  });
});

describe("formatting", () => {
  it("formats expected ranges, open on either side", () => {
    expect(formatRange(0, 1, fmt)).toBe("0 – 1");
    expect(formatRange(0, null, fmt)).toBe("≥ 0");
    expect(formatRange(null, 1, fmt)).toBe("≤ 1");
    expect(formatRange(null, null, fmt)).toBe("");
  });
  it("names non-finite values", () => {
    expect(formatAlertValue(alert({ kind: "nan", value: null }), fmt)).toBe("NaN");
    expect(formatAlertValue(alert({ kind: "inf", value: -Infinity }), fmt)).toBe("-Inf");
    expect(formatAlertValue(alert({ kind: "stalled", value: null }), fmt)).toBe("—");
    expect(formatAlertValue(alert({ value: 2.5 }), fmt)).toBe("2.5");
  });
  it("writes a notification for new alerts", () => {
    const n = notificationText([alert({ step: 7, value: 9 })], fmt);
    expect(n.title).toBe("ridgeline: 1 new alert");
    expect(n.body).toBe("outlier on loss (a) at step 7: 9, expected 0 – 0.5");
    const many = notificationText(Array.from({ length: 6 }, (_, i) => alert({ step: i })), fmt);
    expect(many.title).toBe("ridgeline: 6 new alerts");
    expect(many.body.split("\n").at(-1)).toBe("and 2 more");
  });
});

describe("links", () => {
  it("matches names exactly, special characters escaped", () => {
    const re = new RegExp(exactPattern(["run.1", "b(2)"]), "i");
    expect(re.test("run.1")).toBe(true);
    expect(re.test("runx1")).toBe(false);
    expect(re.test("b(2)")).toBe(true);
    expect(re.test("run.10")).toBe(false);
  });
  it("opens the scalars dashboard on a run, a tag and a step, keeping other settings", () => {
    const q = new URLSearchParams(scalarsLink("?theme=dark&runs=%5B%5D&tab=insights", ["r1"], ["train/loss"], 40));
    expect(q.get("tab")).toBe("scalars");
    expect(q.get("theme")).toBe("dark");
    expect(q.get("runs")).toBeNull();
    expect(q.get("runFilter")).toBe("^r1$");
    expect(q.get("tagFilter")).toBe("^train/loss$");
    expect(JSON.parse(q.get("s.focus")!)).toEqual(["train/loss", 40]);
    expect(new URLSearchParams(scalarsLink("?s.focus=x", ["r1"], ["a", "b"], null)).get("s.focus")).toBeNull();
  });
  it("opens a spot's chart: scalars zoomed onto its step, or the histograms of its run and tag", () => {
    const spot = { run: "exp/validation", tag: "epoch_loss", step: 850, what: "validation at its best (0.3)", chart: "scalars" as const };
    const q = new URLSearchParams(spotLink("?tab=insights&theme=dark", spot));
    expect([q.get("tab"), q.get("runFilter"), q.get("tagFilter"), q.get("theme")]).toEqual([
      "scalars",
      "^exp/validation$",
      "^epoch_loss$",
      "dark",
    ]);
    expect(JSON.parse(q.get("s.focus")!)).toEqual(["epoch_loss", 850]);
    const h = new URLSearchParams(spotLink("?tab=insights&s.focus=x", { ...spot, tag: "fc1.weight", chart: "histograms" }));
    expect([h.get("tab"), h.get("tagFilter"), h.get("s.focus")]).toEqual(["histograms", "^fc1\\.weight$", null]);
    expect(spotText(spot, String)).toBe("validation at its best (0.3): epoch_loss at step 850");
  });
  it("says what was checked for the shown runs whose group has no finding", () => {
    const checked: Checked[] = [
      { run: "a/train", runs: ["a/train", "a/validation"], checked: ["Training loss epoch_loss: ..."] },
      { run: "b", runs: ["b"], checked: ["Training loss loss: ..."] },
    ];
    const findings = [{ run: "b", kind: "plateau" } as Finding];
    expect(checkedWithoutFindings(checked, findings, ["a/validation", "b", "c"])).toEqual([
      { run: "a/validation", checked: ["Training loss epoch_loss: ..."] },
    ]);
  });
  it("centres a focus range on the step", () => {
    expect(focusRange(50, 0, 100)).toEqual([40, 60]);
    expect(focusRange(5, 0, 10)).toEqual([3, 7]);
  });
});

describe("chart overlays", () => {
  it("gives each run a lane of phase bands and skips bad segments", () => {
    const bands = phaseBands([
      { run: "a", segments: [{ phase: "warmup", start_step: 0, end_step: 10 }, { phase: "descent", start_step: 10, end_step: 50 }] },
      { run: "b", segments: [{ phase: "convergence", start_step: 60, end_step: 20 }, { phase: "bogus" as never, start_step: 0, end_step: 1 }] },
    ]);
    expect(bands.map((b) => [b.run, b.phase, b.lane, b.lanes])).toEqual([
      ["a", "warmup", 0, 2],
      ["a", "descent", 0, 2],
    ]);
    expect(phaseAt(bands, "a", 30)).toBe("descent");
    expect(phaseAt(bands, "b", 30)).toBeNull();
  });
  it("finds the last step forecasts reach", () => {
    const f: Forecast = { model: "power", step: [10, 20], value: [1, 0.9], low: [0.8, 0.7], high: [1.2, 1.1], final: { step: 25, value: 0.9, low: 0.7, high: 1.1 } };
    expect(forecastEnd([{ forecast: f }])).toBe(25);
    expect(forecastEnd([])).toBe(-Infinity);
  });
  it("places alerts on step, wall and relative axes", () => {
    const a = alert({ step: 5, wall_time: 130 });
    expect(alertX(a, "step", 100)).toBe(5);
    expect(alertX(a, "wall", 100)).toBe(130);
    expect(alertX(a, "relative", 100)).toBe(30);
    expect(alertX(a, "tag", 100)).toBeNull();
    expect(alertX(alert({ wall_time: null }), "wall", 0)).toBeNull();
  });
});

describe("groupFindings", () => {
  it("groups per run in run order, most confident first", () => {
    const f = (run: string, kind: string, confidence: number): Finding => ({ run, kind, confidence, step: null, tags: [], evidence: {}, message: "" });
    const g = groupFindings([f("b", "plateau", 0.4), f("a", "overfitting", 0.5), f("b", "lr_too_high", 0.9)], ["a", "b"]);
    expect(g.map(([run, list]) => [run, list.map((x) => x.kind)])).toEqual([
      ["a", ["overfitting"]],
      ["b", ["lr_too_high", "plateau"]],
    ]);
  });
});

describe("drill-downs show the evidence", () => {
  it("clips an expected range to the metric's natural bounds", () => {
    expect(expectedRange({ tag: "train/loss", expected_low: -0.47, expected_high: 0.69 })).toEqual([0, 0.69]);
    expect(expectedRange({ tag: "val/acc", expected_low: 0.72, expected_high: 1.22 })).toEqual([0.72, 1]);
    expect(expectedRange({ tag: "grad_norm", expected_low: -2, expected_high: 3 })).toEqual([-2, 3]);
  });

  it("zooms every tag a finding cites, with outlier clipping and smoothing off", () => {
    const params = new URLSearchParams(scalarsLink("", ["run"], ["train/loss", "val/loss"], 40));
    const focus = JSON.parse(params.get(FOCUS_KEY)!);
    expect(focusNames(focus, "train/loss") && focusNames(focus, "val/loss")).toBe(true);
    expect(focusNames(focus, "val/acc")).toBe(false);
    expect(focusNames(["train/loss", 40], "train/loss")).toBe(true); // links written before stay valid
    expect(params.get("s.outliers")).toBe("0");
    expect(params.get("s.smooth")).toBe("0");
  });
});
