"""The index's building blocks on hand-made entries: distinct texts, the three ways of finding matching texts
(RE2 scan, jumps to a required literal, bytes.find for plain strings) agreeing, dead entries and compaction."""

from __future__ import annotations

import numpy as np
import pytest

from ridgeline.search import Searcher
from ridgeline.search.entries import format_value, hparams_line
from ridgeline.search.fields import FieldIndex
from ridgeline.search.index import Index
from ridgeline.search.patterns import Term, compile_literal, compile_pattern, exact_literal, required_literal

TEXTS = ["train_loss", "val/train_loss", "train_acc", "xtrain_", "train_", "lr", "train_loss", "über train_x"]


def field_of(texts: list[str]) -> FieldIndex:
    field = FieldIndex("tag")
    for run, text in enumerate(texts):
        field.add(run, text)
    return field


def texts_found(field: FieldIndex, pattern: str, how: str) -> list[str]:
    program = compile_pattern(Term("tag", pattern, 0), ignore_case=False)
    if how == "scan":
        values = field.scan(program)
    elif how == "literal":
        literal = required_literal(pattern)
        assert literal is not None
        values = field.scan(program, compile_literal(literal))
    else:
        exact = exact_literal(pattern)
        assert exact is not None
        buffer, starts = field.buffer()
        values = field._find_all(buffer, starts, *exact)
    return [field.values[value] for value in values.tolist()]


@pytest.mark.parametrize("how", ["scan", "literal", "exact"])
@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("^train_", ["train_loss", "train_acc", "train_"]),
        ("train_", ["train_loss", "val/train_loss", "train_acc", "xtrain_", "train_", "über train_x"]),
        ("train_loss", ["train_loss", "val/train_loss"]),
        ("^lr", ["lr"]),
        ("nothing", []),
        ("über", ["über train_x"]),
    ],
)
def test_finding_texts_three_ways(pattern: str, expected: list[str], how: str) -> None:
    field = field_of(TEXTS)
    assert field.values == ["train_loss", "val/train_loss", "train_acc", "xtrain_", "train_", "lr", "über train_x"]
    if how == "literal" and required_literal(pattern) is None:
        pytest.skip("no literal of 3 bytes")
    assert texts_found(field, pattern, how) == expected


def test_many_texts_agree_between_the_ways() -> None:
    rng = np.random.default_rng(1)
    words = ["alpha", "beta", "gamma", "delta", "lr=0.001", "lr=0.01"]
    texts = [" ".join(rng.choice(words, size=3).tolist()) + f" {i}" for i in range(3000)]
    field = field_of(texts)
    cases = [
        ("^alpha", "alpha", True),
        ("gamma delta", "gamma delta", False),
        ("lr=0\\.001", "lr=0.001", False),
        ("^beta beta", "beta beta", True),
        ("delta 29", "delta 29", False),
    ]
    for pattern, plain, anchored in cases:
        unique = dict.fromkeys(texts)
        expected = [text for text in unique if (text.startswith(plain) if anchored else plain in text)]
        assert expected
        for how in ("scan", "literal", "exact"):
            assert texts_found(field, pattern, how) == expected, (pattern, how)


def test_entries_of_masks_dead_entries_and_dropped_runs() -> None:
    index = Index()
    first, second = index.add_run("a"), index.add_run("b")
    kept = index.add(first, "text", "same line", "t", 1)
    dead = index.add(second, "text", "same line", "t", 2)
    index.fields["text"].kill([dead])
    result = Searcher(None, index=index).search("text:same", limit=None)
    assert [(hit.run, hit.step) for hit in result.hits] == [("a", 1)]
    index.drop_run("a")
    assert Searcher(None, index=index).search("text:same").hits == []
    assert kept == 0


def test_compaction_keeps_live_entries() -> None:
    field = field_of(["a", "b", "c", "b"])
    field.kill([1, 2])
    moved = field.compact()
    assert moved == {0: 0, 3: 1}
    assert field.values == ["a", "b"] and list(field.entry_run) == [0, 3]


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (64.0, "64"),
        (0.001, "0.001"),
        (1e-5, "1e-05"),
        (True, "true"),
        (False, "false"),
        ("adam", "adam"),
        (None, "null"),
        (3, "3"),
        (float("nan"), "nan"),
        (2.5, "2.5"),
    ],
)
def test_hparam_values_as_written(value: object, text: str) -> None:
    assert format_value(value) == text


def test_hparams_line_is_alphabetical() -> None:
    assert hparams_line({"lr": 0.001, "batch_size": 64.0, "dropout": 0.2}) == "batch_size=64 dropout=0.2 lr=0.001"


def test_hparams_line_follows_the_written_order_then_the_alphabet() -> None:
    hparams = {"lr": 0.001, "batch_size": 64.0, "dropout": 0.2, "seed": 1.0, "arch": "vgg"}
    order = ["lr", "batch_size", "momentum", "dropout"]  # as an experiment lists them; momentum was not set
    assert hparams_line(hparams, order) == "lr=0.001 batch_size=64 dropout=0.2 arch=vgg seed=1"
