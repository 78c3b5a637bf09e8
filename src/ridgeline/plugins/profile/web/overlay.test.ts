import { describe, expect, it } from "vitest";
import { byStep } from "./overlay";

describe("profiled steps", () => {
  it("groups the route's rows (one per step and trace) by step, in step order", () => {
    const answer = {
      run: "job",
      problems: [],
      steps: [
        { step: 4, time: 30, trace: "rank1.pt.trace.json", worker: "rank1" },
        { step: 2, time: 10, trace: "rank0.pt.trace.json", worker: "rank0" },
        { step: 2, time: 12, trace: "rank1.pt.trace.json", worker: "rank1" },
      ],
    };
    expect(byStep(answer)).toEqual([
      { step: 2, times: [{ worker: "rank0", time: 10 }, { worker: "rank1", time: 12 }] },
      { step: 4, times: [{ worker: "rank1", time: 30 }] },
    ]);
  });
});
