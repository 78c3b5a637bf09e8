import { describe, expect, it } from "vitest";
import { ColourAssigner, PALETTE, sequenceColours } from "./palette";

function linear(channel: number): number {
  const c = channel / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}

function rgb(hex: string): [number, number, number] {
  const n = Number.parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

function luminance(hex: string): number {
  const [r, g, b] = rgb(hex).map(linear) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** OKLab (×100), where Euclidean distance tracks perceived difference. */
function oklab(hex: string): [number, number, number] {
  const [r, g, b] = rgb(hex).map(linear) as [number, number, number];
  const l = Math.cbrt(0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b);
  const m = Math.cbrt(0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b);
  const s = Math.cbrt(0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b);
  return [
    100 * (0.2104542553 * l + 0.793617785 * m - 0.0040720468 * s),
    100 * (1.9779984951 * l - 2.428592205 * m + 0.4505937099 * s),
    100 * (0.0259040371 * l + 0.7827717662 * m - 0.808675766 * s),
  ];
}

describe("PALETTE", () => {
  it("has at least 20 distinct colours", () => {
    expect(PALETTE.length).toBeGreaterThanOrEqual(20);
    expect(new Set(PALETTE).size).toBe(PALETTE.length);
  });

  it("keeps every pair of colours apart (OKLab distance)", () => {
    let closest = Infinity;
    for (let i = 0; i < PALETTE.length; i++) {
      for (let j = i + 1; j < PALETTE.length; j++) {
        const [a, b] = [oklab(PALETTE[i]!), oklab(PALETTE[j]!)];
        closest = Math.min(closest, Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]));
      }
    }
    expect(closest).toBeGreaterThan(8);
  });

  it.each([
    ["light", "#ffffff"],
    ["dark", "#16181d"],
  ])("is readable on the %s background (3:1 for lines)", (_, background) => {
    for (const colour of PALETTE) expect(contrast(colour, background)).toBeGreaterThanOrEqual(3);
  });
});

describe("ColourAssigner", () => {
  it("gives a run the same colour every time, and on every page load", () => {
    const a = new ColourAssigner();
    const b = new ColourAssigner();
    a.assign(["run-1", "run-2", "run-3"]);
    b.assign(["run-3", "run-1", "run-2"]);
    for (const run of ["run-1", "run-2", "run-3"]) {
      expect(a.colourFor(run)).toBe(a.colourFor(run));
      expect(a.colourFor(run)).toBe(b.colourFor(run));
    }
  });

  it("never repeats a colour within the palette's size, whatever the names", () => {
    const assigner = new ColourAssigner();
    const runs = Array.from({ length: PALETTE.length }, (_, i) => `sweep/lr=${10 ** -(i % 5)}/seed=${i}`);
    assigner.assign(runs);
    expect(new Set(runs.map((r) => assigner.colourFor(r))).size).toBe(PALETTE.length);
  });

  it("keeps existing colours when runs are added", () => {
    const assigner = new ColourAssigner();
    assigner.assign(["b", "d"]);
    const before = [assigner.colourFor("b"), assigner.colourFor("d")];
    assigner.assign(["a", "b", "c", "d", "e"]);
    expect([assigner.colourFor("b"), assigner.colourFor("d")]).toEqual(before);
  });

  it("still answers past the palette's size", () => {
    const assigner = new ColourAssigner();
    const runs = Array.from({ length: 1000 }, (_, i) => `run${i}`);
    assigner.assign(runs);
    for (const run of runs) expect(PALETTE).toContain(assigner.colourFor(run));
  });

  it("gives runs the palette in the run list's order, so a handful of runs get its most distinct colours", () => {
    const assigner = new ColourAssigner();
    const runs = ["adam_lr0.1", "adam_lr0.001", "adam_lr0.01", "adam_lr0.0001"];
    assigner.assign(runs);
    expect(["adam_lr0.0001", "adam_lr0.001", "adam_lr0.01", "adam_lr0.1"].map((r) => assigner.colourFor(r))).toEqual(
      PALETTE.slice(0, 4),
    );
  });
});

describe("sequenceColours", () => {
  it("colours labels in their own sequence, whatever colours the runs took", () => {
    const colour = sequenceColours(["lr=0.0001", "lr=0.001", "lr=0.0001"]);
    expect([colour("lr=0.0001"), colour("lr=0.001")]).toEqual([PALETTE[0], PALETTE[1]]);
  });
});

describe("colours kept in a link", () => {
  it("gives a link's runs the sender's colours, whatever the receiver's runs", () => {
    const sender = new ColourAssigner();
    sender.assign(["a", "c"]);
    sender.assign(["a", "b", "c"]); // b appeared later: the third colour
    const receiver = new ColourAssigner();
    receiver.seed(sender.encode());
    receiver.assign(["a", "b", "c", "0-new"]);
    for (const run of ["a", "b", "c"]) expect(receiver.colourFor(run)).toBe(sender.colourFor(run));
    expect(receiver.colourFor("0-new")).toBe(PALETTE[3]);
  });

  it("lets other runs take the positions of a link's runs that are not here", () => {
    const sender = new ColourAssigner();
    sender.assign(["a", "b", "c"]);
    const receiver = new ColourAssigner();
    receiver.seed(sender.encode());
    receiver.assign(["c", "x"]);
    expect([receiver.colourFor("x"), receiver.colourFor("c")]).toEqual([PALETTE[0], PALETTE[2]]);
  });

  it("ignores a link's malformed text", () => {
    const assigner = new ColourAssigner();
    assigner.seed("..%%..");
    assigner.assign(["a", "b"]);
    expect([assigner.colourFor("a"), assigner.colourFor("b")]).toEqual(PALETTE.slice(0, 2));
  });
});
