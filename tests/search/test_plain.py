"""Plain-language questions: their translation (the query text shown to the user) and the runs it selects,
over runs written by ridgeline's and torch's writers; expected runs come from run_logs.MODEL, not the code."""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable
from pathlib import Path

import pytest

import ridgeline
from ridgeline.api import LogDir
from ridgeline.search.plain import looks_like_question, suggestion, translate
from ridgeline.search.query import evaluate, looks_structured, parse
from tests.search.run_logs import DAY, MODEL, NOW, PATTERNS, RunModel, expected, finite_max, finite_min, logs, ranked


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> LogDir:
    return ridgeline.open(logs(tmp_path_factory.mktemp("plain")), cache=False)


def _val_loss(run: RunModel) -> list[float] | None:
    return run.values("val/loss") or run.values("loss/val")


def _val_acc(run: RunModel) -> list[float] | None:
    return run.values("val/acc") or run.values("acc/val")


def _below(values: list[float] | None, bound: float) -> bool:
    low = finite_min(values)
    return low is not None and low < bound


def _today() -> float:
    return dt.datetime.combine(dt.date.today(), dt.time()).timestamp()


# (question, translation with the log directory, the runs it should select)
QUESTIONS: list[tuple[str, str, Callable[[], list[str]]]] = [
    (
        "runs with lr 0.001 and val loss below 0.3",
        'hparams.lr == 0.001 and metric("val/loss", "loss/val").min < 0.3',
        lambda: expected(lambda n, r: r.hparams.get("lr") == 0.001 and _below(_val_loss(r), 0.3)),
    ),
    (
        "best 5 runs by val/acc",
        'order by metric("val/acc").max desc limit 5',
        lambda: ranked(lambda n, r: finite_max(r.values("val/acc")), desc=True, limit=5),
    ),
    (
        "runs started last week",
        "started >= now - 7d",
        lambda: expected(lambda n, r: r.started is not None and r.started >= NOW - 7 * DAY),
    ),
    (
        "which runs have nan",
        "has_nan",
        lambda: expected(lambda n, r: any(math.isnan(v) for vs in r.scalars.values() for v in vs)),
    ),
    (
        "Which runs have NaN?",
        "has_nan",
        lambda: expected(lambda n, r: any(math.isnan(v) for vs in r.scalars.values() for v in vs)),
    ),
    (
        "lowest val loss",
        'order by metric("val/loss", "loss/val").min limit 1',
        lambda: ranked(lambda n, r: finite_min(_val_loss(r)), desc=False, limit=1),
    ),
    (
        "which run has the lowest val loss?",
        'order by metric("val/loss", "loss/val").min limit 1',
        lambda: ranked(lambda n, r: finite_min(_val_loss(r)), desc=False, limit=1),
    ),
    (
        "runs where batch size is 64",
        "hparams.batch_size == 64",
        lambda: expected(lambda n, r: r.hparams.get("batch_size") == 64),
    ),
    (
        "runs where batch size is at least 64",
        "hparams.batch_size >= 64",
        lambda: expected(lambda n, r: isinstance(r.hparams.get("batch_size"), int) and r.hparams["batch_size"] >= 64),
    ),
    (
        "val loss under 0.5",
        'metric("val/loss", "loss/val").min < 0.5',
        lambda: expected(lambda n, r: _below(_val_loss(r), 0.5)),
    ),
    (
        "top 3 runs by validation accuracy",
        'order by metric("val/acc", "acc/val").max desc limit 3',
        lambda: ranked(lambda n, r: finite_max(_val_acc(r)), desc=True, limit=3),
    ),
    (
        "worst 2 runs by val loss",
        'order by metric("val/loss", "loss/val").min desc limit 2',
        lambda: ranked(lambda n, r: finite_min(_val_loss(r)), desc=True, limit=2),
    ),
    (
        "best 2 runs by val loss with batch size 64",
        'hparams.batch_size == 64 order by metric("val/loss", "loss/val").min limit 2',
        lambda: [
            n
            for n in ranked(lambda n, r: finite_min(_val_loss(r)), False, None)
            if MODEL[n].hparams.get("batch_size") == 64
        ][:2],
    ),
    (
        "val acc above 0.85",
        'metric("val/acc", "acc/val").max > 0.85',
        lambda: expected(lambda n, r: (finite_max(_val_acc(r)) or 0) > 0.85),
    ),
    (
        "runs with final val acc above 0.8",
        'metric("val/acc", "acc/val").last > 0.8',
        lambda: expected(lambda n, r: bool(_val_acc(r)) and (_val_acc(r) or [0])[-1] > 0.8),
    ),
    (
        "runs with optimizer adam and learning rate below 0.001",
        'hparams.optimizer == "adam" and hparams.lr < 0.001',
        lambda: expected(lambda n, r: r.hparams.get("optimizer") == "adam" and r.hparams["lr"] < 0.001),
    ),
    (
        "runs with augment true",
        "hparams.augment == true",
        lambda: expected(lambda n, r: r.hparams.get("augment") is True),
    ),
    (
        "runs that diverged",
        "has_nan or has_inf",
        lambda: expected(lambda n, r: any(not math.isfinite(v) for vs in r.scalars.values() for v in vs)),
    ),
    (
        "runs that diverged and lr 0.001",
        "(has_nan or has_inf) and hparams.lr == 0.001",
        lambda: expected(
            lambda n, r: (
                r.hparams.get("lr") == 0.001 and any(not math.isfinite(v) for vs in r.scalars.values() for v in vs)
            )
        ),
    ),
    (
        "runs without nan",
        "not has_nan",
        lambda: expected(lambda n, r: not any(math.isnan(v) for vs in r.scalars.values() for v in vs)),
    ),
    (
        "runs with nan in train loss",
        'metric("train/loss").nan',
        lambda: expected(lambda n, r: any(math.isnan(v) for v in r.values("train/loss") or [])),
    ),
    ("runs named resnet", 'run =~ "resnet"', lambda: expected(lambda n, r: "resnet" in n)),
    ("last 3 runs", "order by started desc limit 3", lambda: ranked(lambda n, r: r.started, desc=True, limit=3)),
    (
        "oldest run with optimizer adam",
        'hparams.optimizer == "adam" order by started limit 1',
        lambda: [n for n in ranked(lambda n, r: r.started, desc=False) if MODEL[n].hparams.get("optimizer") == "adam"][
            :1
        ],
    ),
    (
        "runs started yesterday",
        "started >= today - 1d and started < today",
        lambda: expected(lambda n, r: r.started is not None and _today() - DAY <= r.started < _today()),
    ),
    (
        "runs started in the last 6 days",
        "started >= now - 6d",
        lambda: expected(lambda n, r: r.started is not None and r.started >= NOW - 6 * DAY),
    ),
    (
        "runs with val/acc",
        'metric("val/acc").count > 0',
        lambda: expected(lambda n, r: r.values("val/acc") is not None),
    ),
    (
        "runs with lr 0.001 or lr 0.01",
        "hparams.lr == 0.001 or hparams.lr == 0.01",
        lambda: expected(lambda n, r: r.hparams.get("lr") in (0.001, 0.01)),
    ),
    (
        "show me runs with batch size 16 and lr < 0.01",  # torch add_hparams trials
        "hparams.batch_size == 16 and hparams.lr < 0.01",
        lambda: expected(lambda n, r: r.hparams.get("batch_size") == 16 and r.hparams["lr"] < 0.01),
    ),
]


@pytest.mark.parametrize(("question", "query", "runs"), QUESTIONS, ids=[q[0] for q in QUESTIONS])
def test_question_translates_and_selects(
    logdir: LogDir, question: str, query: str, runs: Callable[[], list[str]]
) -> None:
    assert looks_like_question(question)
    assert not looks_structured(question)
    translated = translate(question, logdir)
    assert translated == query
    assert evaluate(parse(translated), logdir) == runs()


@pytest.mark.parametrize(
    ("question", "query"),
    [
        ("runs with lr 0.001 and val loss below 0.3", 'hparams.lr == 0.001 and metric("val/loss").min < 0.3'),
        ("best 5 runs by val/acc", 'order by metric("val/acc").max desc limit 5'),
        ("lowest val loss", 'order by metric("val/loss").min limit 1'),
        ("runs with learning rate 0.001", "hparams.learning_rate == 0.001"),
        ("runs where dropout is 0.2", "hparams.dropout == 0.2"),
        ("failed runs", 'status == "failure"'),
        ("runs started since 2026-11-01", 'started >= "2026-11-01"'),
        ("loss under 0.5", 'metric("loss").min < 0.5'),
    ],
)
def test_without_a_log_directory_names_are_guessed(question: str, query: str) -> None:
    assert translate(question) == query


def test_names_resolve_to_the_tags_and_hparams_that_exist(logdir: LogDir) -> None:
    # "learning rate" is the hparam lr here, "validation loss" both spellings the runs use, most common first
    assert translate("runs with learning rate 0.001", logdir) == "hparams.lr == 0.001"
    assert translate("validation loss below 0.3", logdir) == 'metric("val/loss", "loss/val").min < 0.3'
    # "loss" alone: no tag is just "loss"; the most common group of tags with one more word wins
    assert translate("loss under 0.5", logdir) == 'metric("val/loss", "loss/val").min < 0.5'
    assert translate("runs where model/depth is 12", logdir) == 'hparams["model/depth"] == 12'


@pytest.mark.parametrize(
    "question",
    ["how are you", "which runs are good", "runs started on a rainy day", "best runs", "what is the meaning of life?"],
)
def test_untranslatable_questions_give_none(logdir: LogDir, question: str) -> None:
    assert looks_like_question(question)
    assert translate(question, logdir) is None
    message = suggestion(question)
    assert question in message and "hparams.lr < 0.01" in message
    example = message.split("e.g. ")[1].split(" (see")[0]
    parse(example)  # the suggested query form is a real query


@pytest.mark.parametrize(
    "text",
    [
        *PATTERNS,
        'hparams.lr < 0.01 and metric("val/loss").min < 0.3 and run =~ "resnet"',
        "has_nan",
        "order by run limit 3",
    ],
)
def test_patterns_and_queries_are_not_questions(text: str) -> None:
    assert not looks_like_question(text)


def _documented_questions() -> list[tuple[str, str]]:
    """(question, query) of every row of docs/search.md's question table ("a / b" cells pair up)."""
    text = (Path(__file__).parents[2] / "docs" / "search.md").read_text()
    section = text.split("## Questions", 1)[1]
    pairs = []
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 2 and cells[1].startswith("`"):
            questions = cells[0].split(" / ")
            queries = [query.strip().strip("`") for query in cells[1].split(" / ")]
            if len(queries) == 1:
                queries *= len(questions)
            pairs += zip(questions, queries, strict=True)
    return pairs


def test_the_documented_questions_translate_as_documented() -> None:
    pairs = _documented_questions()
    assert len(pairs) >= 18
    for question, query in pairs:
        assert translate(question) == query, question


@pytest.mark.parametrize(
    ("question", "query"),
    [
        ("lr < 0.01", "hparams.lr < 0.01"),
        ("val loss <= 0.3", 'metric("val/loss").min <= 0.3'),
        ("runs with lr=0.001 and batch size = 64", "hparams.lr == 0.001 and hparams.batch_size == 64"),
    ],
)
def test_a_query_without_its_field_syntax_is_a_question(question: str, query: str) -> None:
    assert looks_like_question(question) and not looks_structured(question)
    assert translate(question) == query
