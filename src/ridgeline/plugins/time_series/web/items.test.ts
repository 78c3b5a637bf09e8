import { describe, expect, it } from "vitest";
import type { RunInfo } from "@app/types";
import { itemId, pinnedItems, planItems } from "./items";

const run = (name: string, tags: Record<string, string[]>): RunInfo => ({ run: name, colour: "#000000", tags, last_step: null, last_wall_time: null, annotations: 0 });

const runs = [
  run("a", { scalars: ["train/loss", "lr"], histograms: ["train/loss", "weights/w1"], images: ["samples/x"] }),
  run("b", { scalars: ["train/loss", "val/loss"], text: ["notes"] }),
];

describe("time series items", () => {
  it("lists a card per kind and tag, in sections by prefix, scalar before histogram", () => {
    const sections = planItems(runs, ["scalars", "histograms", "images"], null, new Set());
    expect(sections.map((s) => s.name)).toEqual(["", "samples", "train", "val", "weights"]);
    expect(sections[2].items.map((i) => i.id)).toEqual(["scalars:train/loss", "histograms:train/loss"]);
    expect(sections[1].items).toEqual([{ kind: "images", tag: "samples/x", id: "images:samples/x" }]);
  });

  it("filters by tag regex and by the kinds shown, and leaves pinned cards out", () => {
    const sections = planItems(runs, ["scalars"], /loss/, new Set([itemId("scalars", "val/loss")]));
    expect(sections.flatMap((s) => s.items.map((i) => i.id))).toEqual(["scalars:train/loss"]);
  });

  it("keeps pins of tags the selected runs have, in pinning order", () => {
    const pins = ["histograms:weights/w1", "scalars:gone", "bogus:x", "scalars:lr"];
    expect(pinnedItems(runs, pins).map((i) => i.id)).toEqual(["histograms:weights/w1", "scalars:lr"]);
    expect(pinnedItems([runs[1]], pins)).toEqual([]);
  });
});
