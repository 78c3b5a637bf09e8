import { describe, expect, it } from "vitest";
import { compileFilter, exactRunsPattern, filterByName } from "./filters";

const runs = ["alpha/lr_0.1", "alpha/lr_0.01", "beta/lr_0.1", "Baseline", "acc(top-1)[val]", "Loss/训练"];

describe("compileFilter", () => {
  it("matches everything for an empty pattern", () => {
    expect(compileFilter("")).toEqual({ regex: null, error: null });
    expect(compileFilter("   ")).toEqual({ regex: null, error: null });
    expect(filterByName(runs, null, (r) => r)).toEqual(runs);
  });

  it("filters run names by regex, case-insensitively like TensorBoard", () => {
    const { regex, error } = compileFilter("^alpha/");
    expect(error).toBeNull();
    expect(filterByName(runs, regex, (r) => r)).toEqual(["alpha/lr_0.1", "alpha/lr_0.01"]);
    expect(filterByName(runs, compileFilter("baseline").regex, (r) => r)).toEqual(["Baseline"]);
    expect(filterByName(runs, compileFilter("lr_0\\.1$").regex, (r) => r)).toEqual(["alpha/lr_0.1", "beta/lr_0.1"]);
  });

  it("handles names with regex metacharacters and non-ASCII text", () => {
    expect(filterByName(runs, compileFilter("\\(top-1\\)\\[val\\]").regex, (r) => r)).toEqual(["acc(top-1)[val]"]);
    expect(filterByName(runs, compileFilter("训练").regex, (r) => r)).toEqual(["Loss/训练"]);
  });

  it("reports an invalid pattern instead of throwing", () => {
    for (const pattern of ["alpha/(lr", "[val", "*", "a{2,1}"]) {
      const { regex, error } = compileFilter(pattern);
      expect(regex).toBeNull();
      expect(error).toBeTruthy();
    }
  });

  it("gives a stateless RegExp that can be reused for every name", () => {
    const { regex } = compileFilter("loss");
    expect([regex!.test("train/loss"), regex!.test("val/loss"), regex!.test("val/loss")]).toEqual([true, true, true]);
  });
});

it("builds an exact run pattern", () => {
  const re = new RegExp(exactRunsPattern(["lr_0.1/1795.5", "."]), "i");
  expect(re.test("lr_0.1/1795.5")).toBe(true);
  expect(re.test(".")).toBe(true);
  expect(re.test("lr_011/1795.5")).toBe(false);
  expect(re.test("x")).toBe(false);
});
