"""The pattern language over a log directory written by torch's and ridgeline's writers (tests/search/search_logs.py):
the documented examples, field scoping, AND/OR/NOT, case, limits, RE2's rejections and adversarial patterns."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import ridgeline
from ridgeline.search import Hit, Searcher, SearchError

TRIALS = ("resnet-a/", "resnet-b/", "vgg-c/")


def trial(searcher: Searcher, parent: str) -> str:
    """The sub-run torch's add_hparams wrote under ``parent`` (named after a timestamp)."""
    (name,) = [run for run in searcher.logdir.runs() if run.startswith(parent + "/")]
    return name


def kinds(hits: list[Hit]) -> set[str]:
    return {hit.kind for hit in hits}


def test_documented_hparams_example(searcher: Searcher) -> None:
    result = searcher.search("(lr=0.001|batch_size=64).*(dropout=0.2)")
    # lr=0.001 batch_size=64 dropout=0.2 (resnet-a's trial, in the order add_hparams was given them); resnet-b has
    # dropout=0.2 but batch_size=32 and lr=0.003, vgg-c batch_size=64 but dropout=0.5.
    assert result.mode == "pattern"
    assert [(hit.kind, hit.run, hit.text) for hit in result.hits] == [
        ("hparam", trial(searcher, "resnet-a"), "lr=0.001 batch_size=64 dropout=0.2")
    ]
    assert result.runs == [trial(searcher, "resnet-a")]
    assert result.total == 1 and not result.truncated


def test_hparams_are_key_value_lines_with_values_as_written(searcher: Searcher) -> None:
    lines = {hit.run: hit.text for hit in searcher.search("hparam:.", limit=None).hits}
    assert lines == {
        trial(searcher, "resnet-a"): "lr=0.001 batch_size=64 dropout=0.2",
        trial(searcher, "resnet-b"): "lr=0.003 batch_size=32 dropout=0.2",
        trial(searcher, "vgg-c"): "lr=0.01 batch_size=64 dropout=0.5",
        "ridge": "augment=true lr=0.0005 optimizer=adam",  # no experiment record: alphabetical
    }


def test_hparams_keep_the_order_add_hparams_was_given(tmp_path: Path) -> None:
    # Alphabetically this trial reads "batch_size=32 dropout=0.2 lr=0.001", where lr comes after dropout and the
    # documented pattern would miss it; torch's experiment record keeps the order the user wrote.
    from torch.utils.tensorboard import SummaryWriter

    with SummaryWriter(str(tmp_path / "sweep")) as writer:
        writer.add_hparams({"lr": 0.001, "batch_size": 32, "dropout": 0.2}, {"hparam/acc": 0.5})
    result = Searcher(ridgeline.open(tmp_path, cache=False)).search("(lr=0.001|batch_size=64).*(dropout=0.2)")
    assert [hit.text for hit in result.hits] == ["lr=0.001 batch_size=32 dropout=0.2"]


def test_documented_dates_example(searcher: Searcher) -> None:
    result = searcher.search("202411[0-9]{2}[0-9]{4}")
    assert [(hit.kind, hit.run, hit.tag, hit.text) for hit in result.hits] == [
        ("date", "resnet-a", "start", "20241105143000"),
        ("date", "resnet-a", "end", "20241105143002"),
        ("date", "ridge", "start", "20241120080000"),
    ]
    assert result.runs == ["resnet-a", "ridge"]


def test_iso_dates_and_date_prefix(searcher: Searcher) -> None:
    assert searcher.search("date:^2024-12-01T09").runs == ["resnet-b"]
    assert searcher.search("date:202411").runs == ["resnet-a", "ridge"]
    ends = searcher.search("date:^2025-01-15T18:45:02$").hits
    assert [(hit.run, hit.tag) for hit in ends] == [("vgg-c", "end")]


def test_tag_scope_anchors_each_tag(searcher: Searcher) -> None:
    result = searcher.search("tag:^train_", limit=None)
    assert kinds(result.hits) == {"tag"}
    assert sorted((hit.run, hit.tag) for hit in result.hits) == [
        ("resnet-a", "train_acc"),
        ("resnet-a", "train_loss"),
        ("resnet-b", "train_loss"),
        ("vgg-c", "train_loss"),
    ]
    assert all(hit.text == hit.tag and hit.step is None for hit in result.hits)
    assert searcher.search("tag:^val/acc$").runs == ["resnet-a", "ridge"]


def test_hparam_scope(searcher: Searcher) -> None:
    result = searcher.search(r"hparam:lr=0\.00[1-5]")
    assert result.runs == [trial(searcher, "resnet-a"), trial(searcher, "resnet-b")]  # not ridge's lr=0.0005
    assert kinds(result.hits) == {"hparam"}


def test_text_scope_with_a_space_in_the_pattern(searcher: Searcher) -> None:
    result = searcher.search("text:nan detected")
    assert [(h.kind, h.run, h.tag, h.text, h.step) for h in result.hits] == [
        ("text", "resnet-a", "notes/text_summary", "nan detected at step 7", 2)
    ]
    assert searcher.search('text:"nan detected"').hits == result.hits


def test_run_scope_and_unscoped(searcher: Searcher) -> None:
    scoped = searcher.search("run:resnet")
    assert kinds(scoped.hits) == {"run"}
    assert scoped.runs == ["resnet-a", trial(searcher, "resnet-a"), "resnet-b", trial(searcher, "resnet-b")]
    anywhere = searcher.search("nan", limit=None)  # the run names hold no "nan": the text line does
    assert [(hit.kind, hit.run) for hit in anywhere.hits] == [("text", "resnet-a")]


def test_annotation_and_metadata(searcher: Searcher) -> None:
    notes = searcher.search("annotation:dropped").hits
    assert [(h.kind, h.run, h.tag, h.text, h.step) for h in notes] == [
        ("annotation", "ridge", None, "learning rate dropped to 1e-4", 50)
    ]
    meta = searcher.search("metadata:^host=", limit=None)
    assert meta.runs == ["ridge"]  # torch records no run metadata
    assert searcher.search("meta:^python=3").runs == ["ridge"]


def test_boolean_operators_select_runs(searcher: Searcher) -> None:
    assert searcher.search("run:resnet AND NOT text:nan").runs == [
        trial(searcher, "resnet-a"),
        "resnet-b",
        trial(searcher, "resnet-b"),
    ]
    either = searcher.search("run:vgg OR annotation:dropped")
    assert either.runs == ["ridge", "vgg-c", trial(searcher, "vgg-c")]
    assert kinds(either.hits) == {"run", "annotation"}
    grouped = searcher.search("(run:vgg OR run:ridge) AND tag:^val")
    assert grouped.runs == ["ridge"]  # vgg-c has no val tag
    assert sorted((hit.kind, hit.text) for hit in grouped.hits) == [("run", "ridge"), ("tag", "val/acc")]


def test_terms_side_by_side_are_anded(searcher: Searcher) -> None:
    implicit = searcher.search("run:resnet tag:^val/")
    explicit = searcher.search("run:resnet AND tag:^val/")
    assert implicit.hits == explicit.hits and implicit.runs == ["resnet-a", "resnet-b"]
    assert implicit.query == "run:resnet AND tag:^val/"


def test_not_alone_lists_the_runs(searcher: Searcher) -> None:
    result = searcher.search("NOT run:/")
    assert result.runs == ["resnet-a", "resnet-b", "ridge", "vgg-c"]
    assert [(hit.kind, hit.run) for hit in result.hits] == [("run", run) for run in result.runs]


def test_parentheses_in_a_regex_are_not_a_group(searcher: Searcher) -> None:
    assert searcher.search("tag:(train|val)_loss").runs == ["resnet-a", "resnet-b", "vgg-c"]
    assert searcher.search("(train|val)_loss").runs == ["resnet-a", "resnet-b", "vgg-c"]
    assert searcher.search("tag:^(val)/acc$ OR tag:^[v]al/loss$").runs == ["resnet-a", "resnet-b", "ridge"]


def test_case(searcher: Searcher) -> None:
    assert searcher.search("text:NaN").runs == ["vgg-c"]
    assert searcher.search("text:nan", ignore_case=True).runs == ["resnet-a", "vgg-c"]
    assert searcher.search("text:(?i)NAN").runs == ["resnet-a", "vgg-c"]
    # An unknown prefix (field names are lower case) is just pattern text, which no entry holds; as a field it hits.
    assert searcher.search("TAG:x").total == 0
    assert searcher.search("tag:x").total > 0
    assert searcher.search("tag:TRAIN_").total == 0
    assert searcher.search("tag:TRAIN_", ignore_case=True).total == 4


def test_a_match_never_spans_two_entries(searcher: Searcher) -> None:
    # [^x] and \s match a newline in RE2; the entries are joined by newlines in one buffer.
    assert searcher.search(r"text:fine\snan").total == 0
    assert searcher.search(r"text:fine[^x]nan").total == 0
    assert searcher.search(r"tag:acc.train").total == 0


def test_limit_total_truncated(searcher: Searcher) -> None:
    everything = searcher.search("tag:.", limit=None)
    first = searcher.search("tag:.", limit=3)
    logdir = searcher.logdir
    tags = sum(len({tag for names in logdir.tags(run).values() for tag in names}) for run in logdir.runs())
    assert first.total == everything.total == tags
    assert first.truncated and not everything.truncated
    assert first.hits == everything.hits[:3]
    assert first.runs == everything.runs  # the runs of every hit, not only the shown ones
    assert searcher.search("tag:.", limit=0).hits == []


def test_hits_by_kind_then_run_order(searcher: Searcher) -> None:
    result = searcher.search("acc", limit=None)
    order = ["run", "tag", "hparam", "metadata", "date", "text", "annotation"]
    ranks = [(order.index(hit.kind), hit.run) for hit in result.hits]
    assert ranks == sorted(ranks)


def test_adversarial_patterns_answer(searcher: Searcher) -> None:
    # (a+)+$ backtracks exponentially in Python's re on "aaaa…b"; RE2 is linear (the bench times it).
    # Scoped to run names: the metadata field holds the git commit the tests run at, which may end with an a.
    assert searcher.search("run:(a+)+$").runs == ["resnet-a"]  # the run name ends with an a
    assert searcher.search("(x+x+)+y").total == 0
    assert searcher.search("(.*)*(.*)*(.*)*z{1000}").total == 0


def test_adversarial_pattern_on_a_long_entry() -> None:
    from ridgeline.search.index import Index

    index = Index()
    run = index.add_run("long")
    index.add(run, "text", "a" * 60_000 + "!", "notes", 0)
    index.add(run, "text", "a" * 30_000, "notes", 1)
    result = Searcher(None, index=index).search("text:^(a+)+$")
    assert [(hit.step, len(hit.text)) for hit in result.hits] == [(1, 30_000)]


@pytest.mark.parametrize(
    ("query", "position", "words"),
    [
        ("tag:(abc", 4, "missing )"),
        ("run:a**", 5, "bad repetition operator"),
        (r"hparam:(a)\1", 10, "invalid escape"),
        ("tag:(?=x)y", 4, "invalid perl operator"),
        ("text:x{2,1}", 6, "invalid repetition size"),
        ("date:[z-a]", 6, "invalid character class range"),
        ("run:resnet AND tag:[abc", 19, "missing ]"),
        # queries that do not parse
        ("run:resnet AND", 14, "missing"),
        ("OR tag:x", 0, "OR needs a pattern before it"),
        ("(run:a OR run:b", 0, "never closed"),
        ("run:a)", 5, "no group to close"),
        ('text:"abc', 5, "never closed"),
        ("tag:", 4, "missing after tag:"),
        ("run:a AND ()", 11, "missing before ')'"),
    ],
)
def test_errors_point_at_the_fault(searcher: Searcher, query: str, position: int, words: str) -> None:
    """Patterns RE2 rejects (the message quotes the pattern) and queries that do not parse."""
    with pytest.raises(SearchError) as caught:
        searcher.search(query)
    assert caught.value.position == position
    assert words in caught.value.message


def test_a_rejected_pattern_is_quoted(searcher: Searcher) -> None:
    with pytest.raises(SearchError, match=r"^invalid pattern 'x\{2,1\}': invalid repetition size"):
        searcher.search("run:resnet OR text:x{2,1}")


def test_empty_query_finds_nothing(searcher: Searcher) -> None:
    result = searcher.search("   ")
    assert result.hits == [] and result.total == 0 and result.runs == []


def test_negative_limit_is_an_error(searcher: Searcher) -> None:
    with pytest.raises(SearchError, match="limit"):
        searcher.search("run:x", limit=-1)


def test_every_documented_pattern_runs(searcher: Searcher) -> None:
    """The patterns in docs/search.md's examples table parse, compile and run (what each finds is tested above)."""
    from pathlib import Path

    text = (Path(__file__).parents[2] / "docs" / "search.md").read_text()
    section = text.split("### Pattern syntax", 1)[1].split("###", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    # The first cell of each row; "\|" is a | escaped for the table.
    patterns = [
        pattern.replace("\\|", "|") for row in rows for pattern in re.findall(r"`([^`]+)`", row.split(" | ")[0])
    ]
    assert len(patterns) == 12  # the table's rows, note: and log: included
    for pattern in patterns:
        searcher.search(pattern)


def test_a_run_query_selects_runs(searcher: Searcher) -> None:
    result = searcher.search("hparams.lr < 0.005")
    assert result.mode == "query" and result.query == "hparams.lr < 0.005"
    expected = [trial(searcher, "resnet-a"), trial(searcher, "resnet-b"), "ridge"]
    assert result.runs == expected
    assert [(hit.kind, hit.run, hit.text) for hit in result.hits] == [("run", run, run) for run in expected]
    assert searcher.search("hparams.lr < 0.005", limit=1).truncated


def test_a_question_is_translated_and_ranked_runs_keep_their_order(searcher: Searcher) -> None:
    result = searcher.search("best 2 runs by val/acc")
    assert result.mode == "question"
    assert result.query == 'order by metric("val/acc").max desc limit 2'
    assert len(result.runs) == 2
    ranked = searcher.search("order by hparams.lr desc")  # the query's ranking, not run order
    assert ranked.runs == [trial(searcher, "vgg-c"), trial(searcher, "resnet-b"), trial(searcher, "resnet-a"), "ridge"]
    with pytest.raises(SearchError) as caught:
        searcher.search("which runs are good")
    assert caught.value.position is None and "could not translate" in caught.value.message


def test_one_hparam_exactly_as_documented() -> None:
    from ridgeline.search.entries import hparams_line
    from ridgeline.search.index import Index

    index = Index()
    for name, hparams in [("a", {"lr": 0.001}), ("b", {"warmup_lr": 0.001}), ("c", {"lr": 0.0015, "wd": 0.1})]:
        index.add(index.add_run(name), "hparam", hparams_line(hparams))
    searcher = Searcher(None, index=index)
    assert searcher.search("hparam:lr=0\\.001").runs == ["a", "b", "c"]
    assert searcher.search("hparam:(^| )lr=0\\.001( |$)").runs == ["a"]
    assert searcher.search("hparam:\\blr=0\\.001\\b").runs == ["a"]


@pytest.mark.parametrize(
    ("query", "words"),
    [
        # Nested deeper than Python's recursion limit, within the length limit: patterns and run queries.
        ("(" * 990 + "a" + ")" * 990, "nests too deeply"),
        ("(" * 990 + "hparams.lr<1" + ")" * 990, "nests too deeply"),
        # Beyond the length limit, whatever it holds.
        ("(" * 3000 + "a" + ")" * 3000, "characters long"),
        ("hparams.lr < " + "+".join(["1"] * 1500), "characters long"),
    ],
)
def test_hostile_nesting_is_a_search_error(searcher: Searcher, query: str, words: str) -> None:
    with pytest.raises(SearchError) as caught:
        searcher.search(query)
    assert words in caught.value.message


def test_a_query_longer_than_any_person_writes_is_refused(searcher: Searcher) -> None:
    with pytest.raises(SearchError) as caught:
        searcher.search("a" * 30_000)
    assert caught.value.position == 2_000 and "30,000 characters" in caught.value.message
    assert searcher.search("a" * 2_000).total == 0  # the longest accepted
