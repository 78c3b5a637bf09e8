import { describe, expect, it } from "vitest";
import { groupRuns, groupTags, hparamNames } from "./groups";

describe("groupTags", () => {
  it("groups by the prefix before the first slash, unprefixed tags first, and filters", () => {
    const g = groupTags(["train/loss", "eval/acc", "lr", "train/acc", "Loss/训练"], null);
    expect(g.map((x) => x.name)).toEqual(["", "eval", "Loss", "train"]);
    expect(g[3].tags).toEqual(["train/acc", "train/loss"]);
    expect(groupTags(["train/loss", "eval/acc"], /^train_|loss/).flatMap((x) => x.tags)).toEqual(["train/loss"]);
  });
});

describe("groupRuns", () => {
  const runs = ["lr=0.1,seed=1", "lr=0.1,seed=2", "lr=0.01,seed=1", "other"];
  it("groups by the regex's captures", () => {
    const { groups, error } = groupRuns(runs, "regex", "(lr=[^,]+)", {});
    expect(error).toBeNull();
    expect([...groups.entries()]).toEqual([
      ["lr=0.1", ["lr=0.1,seed=1", "lr=0.1,seed=2"]],
      ["lr=0.01", ["lr=0.01,seed=1"]],
      ["(no match)", ["other"]],
    ]);
  });
  it("reports an invalid regex", () => {
    expect(groupRuns(runs, "regex", "(", {}).error).toBeTruthy();
  });
  it("groups by a hyperparameter", () => {
    const hp = { a: { lr: 0.1 }, b: { lr: 0.1 }, c: { lr: 1 } };
    const { groups } = groupRuns(["a", "b", "c", "d"], "hparam", "lr", hp);
    expect([...groups.keys()]).toEqual(["lr=0.1", "lr=1", "lr=(none)"]);
    expect(hparamNames({ a: { lr: 1, bs: 2 }, b: { opt: "adam" } })).toEqual(["bs", "lr", "opt"]);
  });
});
