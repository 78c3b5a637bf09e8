import { describe, expect, it } from "vitest";
import {
  caretLine,
  exactRegex,
  groupHits,
  highlight,
  highlightTerms,
  looksLikeSearchQuery,
  orderedHits,
  searchFailure,
  type SearchHit,
} from "./search";

const hit = (kind: string, run: string, text: string, tag: string | null = null): SearchHit => ({
  kind,
  run,
  tag,
  text,
  step: null,
});

describe("groupHits", () => {
  it("groups by kind in the panel's order, keeping the server's order inside a group", () => {
    const hits = [
      hit("hparam", "b", "lr=0.001"),
      hit("tag", "a", "train/loss", "train/loss"),
      hit("hparam", "a", "lr=0.001"),
      hit("run", "a", "a"),
      hit("mystery", "a", "?"),
    ];
    const groups = groupHits(hits);
    expect(groups.map((g) => g.kind)).toEqual(["run", "tag", "hparam", "mystery"]);
    expect(groups.map((g) => g.title)).toEqual(["Runs", "Tags", "Hyperparameters", "Mystery"]);
    expect(groups[2]!.hits.map((h) => h.hit.run)).toEqual(["b", "a"]);
    // The flat index numbers hits in display order, which is what up/down walk.
    expect(groups.flatMap((g) => g.hits.map((h) => h.index))).toEqual([0, 1, 2, 3, 4]);
    expect(orderedHits(groups).map((h) => h.kind)).toEqual(["run", "tag", "hparam", "hparam", "mystery"]);
  });

  it("gives no group for no hits", () => {
    expect(groupHits([])).toEqual([]);
  });

  it("titles notes and console lines, and takes note: and log: as search queries", () => {
    const groups = groupHits([hit("log", "a", "CUDA out of memory", "stderr"), hit("note", "a", "baseline")]);
    expect(groups.map((g) => g.title)).toEqual(["Notes", "Logs"]);
    expect(looksLikeSearchQuery("note:baseline")).toBe(true);
    expect(looksLikeSearchQuery("log:(?i)nan")).toBe(true);
  });
});

describe("highlight", () => {
  const marked = (text: string, kind: string, query: string, ignoreCase = false) =>
    highlight(text, kind, highlightTerms(query, ignoreCase))
      .filter((s) => s.match)
      .map((s) => s.text);

  it("marks what a field-scoped pattern matches, in hits of that field only", () => {
    expect(marked("lr=0.001 batch_size=64", "hparam", "hparam:lr=0\\.001")).toEqual(["lr=0.001"]);
    expect(marked("lr=0.001", "run", "hparam:lr=0\\.001")).toEqual([]);
    expect(marked("train_loss", "tag", "tag:^train_")).toEqual(["train_"]);
  });

  it("marks every part of an AND/OR combination and merges overlaps", () => {
    const text = "lr=0.001 batch_size=64 dropout=0.2";
    expect(marked(text, "hparam", "(lr=0.001|batch_size=64).*(dropout=0.2)")).toEqual([text]);
    expect(marked(text, "hparam", "hparam:lr AND hparam:dropout")).toEqual(["lr", "dropout"]);
    // Terms side by side are ANDed: a field prefix after a space starts the next term.
    expect(marked(text, "hparam", "hparam:lr=0\\.001 hparam:dropout=0\\.2")).toEqual(["lr=0.001", "dropout=0.2"]);
    expect(marked("train/loss", "tag", "run:x tag:loss")).toEqual(["loss"]);
    expect(marked("nan detected at step 5", "text", "text:nan detected OR run:x")).toEqual(["nan detected"]);
  });

  it("leaves negated parts out and honours (?i) and the ignore-case flag", () => {
    expect(marked("ResNet", "run", "run:resnet")).toEqual([]);
    expect(marked("ResNet", "run", "run:(?i)resnet")).toEqual(["ResNet"]);
    expect(marked("ResNet", "run", "resnet", true)).toEqual(["ResNet"]);
    expect(marked("resnet", "run", "NOT run:resnet")).toEqual([]);
    expect(marked("resnet", "run", "run:res NOT run:net")).toEqual(["res"]);
  });

  it("keeps the text whole when nothing matches or the pattern is not JavaScript", () => {
    expect(highlight("abc", "run", highlightTerms("(?P<x>a"))).toEqual([{ text: "abc", match: false }]);
    expect(highlight("", "run", highlightTerms("a"))).toEqual([]);
    // Zero-length matches do not loop forever.
    expect(marked("aaa", "run", "x*")).toEqual([]);
  });

  it("cuts the text into segments that join back to it", () => {
    const segments = highlight("step 10 loss nan", "text", highlightTerms("text:nan|loss"));
    expect(segments.map((s) => s.text).join("")).toBe("step 10 loss nan");
    expect(segments.filter((s) => s.match).map((s) => s.text)).toEqual(["loss", "nan"]);
  });
});

describe("caretLine", () => {
  it("puts ^ under the position, clamped to the query", () => {
    expect(caretLine("hparam:lr=(", 10)).toBe("          ^");
    expect(caretLine("abc", 99)).toBe("   ^");
    expect(caretLine("abc", -3)).toBe("^");
    expect(caretLine("abc", null)).toBeNull();
  });
});

describe("searchFailure", () => {
  it("reads the 400 body, and falls back to a message", () => {
    expect(searchFailure({ error: "missing )", position: 4 }, "x")).toEqual({ message: "missing )", position: 4 });
    expect(searchFailure({ error: "bad", position: null }, "x")).toEqual({ message: "bad", position: null });
    expect(searchFailure("<html>", "the server answered 500")).toEqual({
      message: "the server answered 500",
      position: null,
    });
  });
});

describe("looksLikeSearchQuery", () => {
  it.each([
    "hparam:batch_size=64",
    "tag:^train_",
    "run:resnet AND hparam:lr=0\\.1",
    "NOT run:baseline",
    "(tag:loss OR text:nan)",
    'hparams.lr < 0.01 and metric("val/loss").min < 0.3',
    'run =~ "resnet"',
    "hparams.dropout >= 0.2",
    'hparams["lr"] == 0.1',
    "tag:loss hparam:lr=0\\.1",
    'order by metric("val/acc").max desc',
    'run in ("a", "b")',
    "run:a NOT tag:b",
    "runs with lr 0.001 and val loss below 0.3",
    "best 5 runs by val/acc",
    "runs started last week",
    "which runs have nan",
    "did any run diverge?",
    "lr < 0.01",
    "val/loss<0.3",
    "trials with dropout 0.2",
    "lr below 0.01 and loss under 0.3",
    "Which runs diverged",
  ])("sends %s to the server", (text) => {
    expect(looksLikeSearchQuery(text)).toBe(true);
  });

  it.each([
    "",
    "  ",
    "resnet",
    "lr=0\\.1|baseline",
    "^(lr_0\\.001|lr_0\\.001/1700000002\\.0)$",
    "run_\\d+",
    "a?",
    "seed=(1|2)",
    "2024-11-05T10:00",
    "hparams",
    "runs",
    "best_run",
    "lr_0.1",
    "order_by",
  ])("keeps %s a local regex", (text) => {
    expect(looksLikeSearchQuery(text)).toBe(false);
  });
});

describe("exactRegex", () => {
  it("matches exactly the text, case and metacharacters included", () => {
    for (const tag of ["train/loss", "a.b(c)*", "x|y", "lr=[0.1]", "^$"]) {
      const regex = new RegExp(exactRegex(tag), "i");
      expect(regex.test(tag)).toBe(true);
      expect(regex.test(`${tag}x`)).toBe(false);
    }
  });
});
