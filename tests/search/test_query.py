"""Run queries over runs written by ridgeline's and torch's writers; expectations come from run_logs.MODEL."""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import ridgeline
from ridgeline.api import LogDir
from ridgeline.search.errors import SearchError
from ridgeline.search.query import evaluate, looks_structured, parse
from tests.search.run_logs import DAY, MODEL, NOW, PATTERNS, RunModel, expected, finite_max, finite_min, logs, ranked


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> LogDir:
    return ridgeline.open(logs(tmp_path_factory.mktemp("query")), cache=False)


def test_the_log_directory_holds_the_model(logdir: LogDir) -> None:
    assert logdir.runs() == sorted(MODEL)
    assert sum(name.startswith("sweep/") for name in MODEL) == 2


def _hp(run: RunModel, name: str) -> Any:
    return run.hparams.get(name)


def _num(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _lt(value: float | None, bound: float) -> bool:
    return value is not None and not math.isnan(value) and value < bound


CASES: list[tuple[str, Callable[[str, RunModel], bool]]] = [
    (
        'hparams.lr < 0.01 and metric("val/loss").min < 0.3 and run =~ "resnet"',
        lambda n, r: (
            _num(_hp(r, "lr"))
            and r.hparams["lr"] < 0.01
            and _lt(finite_min(r.values("val/loss")), 0.3)
            and "resnet" in n
        ),
    ),
    ("hparams.lr == 0.001", lambda n, r: _hp(r, "lr") == 0.001),
    ("hparams.batch_size >= 64", lambda n, r: _num(_hp(r, "batch_size")) and r.hparams["batch_size"] >= 64),
    ('hparams.batch_size == "auto"', lambda n, r: _hp(r, "batch_size") == "auto"),
    ('hparams.optimizer in ["adam", "adamw"]', lambda n, r: _hp(r, "optimizer") in ("adam", "adamw")),
    ('hparams.optimizer not in ["adam"]', lambda n, r: _hp(r, "optimizer") not in (None, "adam")),
    ('not hparams.optimizer == "adam"', lambda n, r: _hp(r, "optimizer") != "adam"),
    ('hparams["model/depth"] > 10', lambda n, r: _num(_hp(r, "model/depth")) and r.hparams["model/depth"] > 10),
    ("hparams.augment", lambda n, r: _hp(r, "augment") is True),
    ("hparams.augment == false", lambda n, r: _hp(r, "augment") is False),
    (
        "hparams.batch_size == 16 and hparams.lr < 0.01",
        lambda n, r: _hp(r, "batch_size") == 16 and r.hparams["lr"] < 0.01,
    ),
    ('metric("val/loss").last < 0.5', lambda n, r: _lt((r.values("val/loss") or [None])[-1], 0.5)),
    (
        'metric("val/loss", "loss/val").min < 0.3',
        lambda n, r: _lt(finite_min(r.values("val/loss") or r.values("loss/val")), 0.3),
    ),
    ('metric("val/acc").max > 0.85', lambda n, r: _lt(-(finite_max(r.values("val/acc")) or -math.inf), -0.85)),
    (
        'metric("train/loss").mean > 0.3',
        lambda n, r: (
            r.values("train/loss") is not None
            and sum(v for v in r.values("train/loss") or [] if not math.isnan(v))
            / sum(1 for v in r.values("train/loss") or [] if not math.isnan(v))
            > 0.3
        ),
    ),
    ('metric("val/loss").first >= 1', lambda n, r: (r.values("val/loss") or [0.0])[0] >= 1),
    (
        'metric("val/loss").count == 20 and metric("val/loss").step == 95',
        lambda n, r: len(r.values("val/loss") or []) == 20,
    ),
    ('metric("hparam/acc").last > 0.65', lambda n, r: (r.values("hparam/acc") or [0.0])[-1] > 0.65),
    ('metric("train/loss").nan', lambda n, r: any(math.isnan(v) for v in r.scalars.get("train/loss", []))),
    ("has_nan", lambda n, r: any(math.isnan(v) for vs in r.scalars.values() for v in vs)),
    ("has_inf", lambda n, r: any(math.isinf(v) for vs in r.scalars.values() for v in vs)),
    ("has_nan or has_inf", lambda n, r: any(not math.isfinite(v) for vs in r.scalars.values() for v in vs)),
    ('run =~ "^vit"', lambda n, r: n.startswith("vit")),
    ('run !~ "^(vit|resnet)"', lambda n, r: re.match("vit|resnet", n) is None),
    ('run == "mlp" or (run =~ "RES" and hparams.lr > 0.005)', lambda n, r: n == "mlp"),
    ('run =~ "(?i)RES" and hparams.lr > 0.005', lambda n, r: n == "resnet-b"),
    ("started > now - 7d", lambda n, r: r.started is not None and r.started > NOW - 7 * DAY),
    (
        "started < now - 1w and started >= now - 3 * 7d",
        lambda n, r: r.started is not None and NOW - 21 * DAY <= r.started < NOW - 7 * DAY,
    ),
    ('hparams.nonexistent < 1 or metric("no/such/tag").max > 0', lambda n, r: False),
    ('not metric("no/such/tag").max > 0', lambda n, r: True),
    ("hparams.__class__ == 1", lambda n, r: False),
]


@pytest.mark.parametrize(("text", "predicate"), CASES, ids=[case[0] for case in CASES])
def test_query_selects_the_runs_the_model_says(
    logdir: LogDir, text: str, predicate: Callable[[str, RunModel], bool]
) -> None:
    want = expected(predicate)
    assert evaluate(parse(text), logdir) == want
    assert evaluate(text, logdir) == want  # the query text straight away, and again from the cache


def test_dates_as_strings_are_local_dates(logdir: LogDir) -> None:
    since = dt.datetime.fromtimestamp(NOW - 10 * DAY).date()
    got = evaluate(f'started >= "{since.isoformat()}"', logdir)
    cutoff = dt.datetime.combine(since, dt.time()).timestamp()
    assert got == expected(lambda n, r: r.started is not None and r.started >= cutoff)
    assert "baseline" not in got and "resnet-a" in got


def test_duration_is_from_the_first_to_the_last_record(logdir: LogDir) -> None:
    # Runs without hparams=: 20 points written one minute apart, so 19 minutes. (ridgeline's hparams= record is
    # written when the writer opens, now, which makes those runs end now.)
    assert evaluate("duration > 18m and duration < 20m", logdir) == ["baseline", "sweep"]


def test_order_by_and_limit(logdir: LogDir) -> None:
    best_acc = ranked(lambda n, r: finite_max(r.values("val/acc")), desc=True, limit=5)
    assert evaluate('order by metric("val/acc").max desc limit 5', logdir) == best_acc
    assert "baseline" not in evaluate('order by metric("val/acc").max desc', logdir)  # only NaN: cannot rank
    lowest = ranked(lambda n, r: finite_min(r.values("val/loss")), desc=False, limit=3)
    assert evaluate('order by metric("val/loss").min asc limit 3', logdir) == lowest
    by_lr = ranked(lambda n, r: r.hparams.get("lr"), desc=True)
    assert evaluate('run !~ "sweep" order by hparams.lr desc', logdir) == [n for n in by_lr if "sweep" not in n]
    assert evaluate("order by run desc limit 2", logdir) == sorted(MODEL, reverse=True)[:2]
    assert evaluate("has_nan limit 0", logdir) == []


def test_a_query_sees_new_points_after_reload(tmp_path: Path) -> None:
    with ridgeline.SummaryWriter(tmp_path / "live", record_run_metadata=False) as writer:
        for step, value in enumerate([1.0, 0.9, 0.8]):
            writer.add_scalar("val/loss", value, step)
    logdir = ridgeline.open(tmp_path, cache=False)
    query = parse('metric("val/loss").min < 0.5')
    assert evaluate(query, logdir) == []
    with ridgeline.SummaryWriter(tmp_path / "live", record_run_metadata=False) as writer:
        writer.add_scalar("val/loss", 0.25, 3)
    logdir.reload()
    assert evaluate(query, logdir) == ["live"]
    assert evaluate('metric("val/loss").count == 4', logdir) == ["live"]


ERRORS = [
    ("__import__('os')", 0, "unknown field '__import__'"),
    ('__import__("os").system("ls")', 0, "unknown field"),
    ("run.__class__", 3, "expected 'and', 'or'"),
    ("hparams.lr <", 12, "expected a value"),
    ("hparams.lr < 0.01 and", 21, "expected a value"),
    ("hparams.lr < 1 < 2", 15, "expected 'and', 'or'"),
    ('run =~ "(a"', 7, "invalid regular expression: missing )"),
    ('metric("val/loss").median < 1', 19, "unknown statistic 'median'"),
    ("metric(val/loss).min < 1", 7, "expected a quoted tag name"),
    ('metric("val/loss") < 1', 19, "expected a statistic"),
    ("run == 3", 4, "cannot compare a string with a number"),
    ("run", 0, "expected a condition"),
    ("run and has_nan", 0, "expected a condition"),
    ('started > "last tuesday"', 10, 'expected a date like "2026-11-22"'),
    ("lr < 0.1", 0, "a hyperparameter is hparams.lr"),
    ('run =~ "a', 7, "unterminated string"),
    ("hparams.lr @ 2", 11, "unexpected character '@'"),
    ("(has_nan", 8, "expected ')'"),
    ("order metric", 6, "expected 'by'"),
    ("has_nan limit 2.5", 14, "whole number"),
    ("has_nan limit 1d", 14, "whole number"),
    ("order by has_nan", 9, "order by needs a value"),
    ("", 0, "empty query"),
]


@pytest.mark.parametrize(("text", "position", "message"), ERRORS, ids=[e[0] or "empty" for e in ERRORS])
def test_errors_point_at_the_problem(text: str, position: int, message: str) -> None:
    with pytest.raises(SearchError) as caught:
        parse(text)
    assert message in caught.value.message
    assert caught.value.position == position
    assert caught.value.caret(text).splitlines()[-1] == "  " + " " * position + "^"


@pytest.mark.parametrize("text", [case[0] for case in CASES])
def test_the_shown_query_parses_back_to_itself(text: str) -> None:
    shown = str(parse(text))
    assert str(parse(shown)) == shown


def test_shown_query_is_canonical() -> None:
    assert str(parse('NOT (run=~"a" OR hparams.x.y==3)  and hparams["a/b"]>1')) == (
        'not (run =~ "a" or hparams.x.y == 3) and hparams["a/b"] > 1'
    )
    assert str(parse("order by metric('v').max DESC limit 5")) == 'order by metric("v").max desc limit 5'


@pytest.mark.parametrize(
    "text",
    [
        'hparams.lr < 0.01 and metric("val/loss").min < 0.3 and run =~ "resnet"',
        "has_nan",
        'run =~ "resnet"',
        "started > now - 7d",
        "hparams.lr <",  # a broken query is still a query: it gets the parser's error, not a pattern search
        'metric("x").foo',
        'started > "yesterday"',
        "order by hparams.lr",
    ],
)
def test_looks_structured(text: str) -> None:
    assert looks_structured(text)


@pytest.mark.parametrize("text", [*PATTERNS, "run"])
def test_patterns_do_not_look_structured(text: str) -> None:
    assert not looks_structured(text)


def test_the_documented_queries_parse_and_run(logdir: LogDir) -> None:
    text = (Path(__file__).parents[2] / "docs" / "search.md").read_text()
    block = text.split("## Run queries", 1)[1].split("```\n", 2)[1]
    queries = [line for line in block.splitlines() if line.strip()]
    assert len(queries) == 5
    for query in queries:
        assert str(parse(query)) == query
        evaluate(query, logdir)
