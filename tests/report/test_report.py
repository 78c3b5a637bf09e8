"""``ridgeline report`` end to end: logs written by torch's and ridgeline's writers (one run named like markup,
hyperparameters and tags with markup in them), the command run as a user runs it, the HTML and Markdown checked
for being self-contained, well formed, complete and escaped."""

from __future__ import annotations

import math
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest

import ridgeline

EVIL = '<script>alert("run")</script>'
EVIL_HPARAM = "<img src=http://example.com/x.png onerror=alert(1)>"
EVIL_TAG = "loss/<b>bold</b>"
VOID = {"meta", "br", "hr", "img", "input", "link", "col", "area", "base", "source", "wbr", "path", "rect", "line"}


def loss(step: int, rate: float) -> float:
    return 0.3 + 2.0 * math.exp(-step * rate) + 0.02 * math.sin(step * 1.7)


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from torch.utils.tensorboard import SummaryWriter as TorchWriter

    root = tmp_path_factory.mktemp("report_logs")
    torch_writer = TorchWriter(str(root / "torch_baseline"))
    for step in range(200):
        torch_writer.add_scalar("train/loss", loss(step, 0.02), step)
        torch_writer.add_scalar("train/acc", 1 - loss(step, 0.02) / 3, step)
    torch_writer.add_hparams({"lr": 0.01, "batch": 64}, {"hparam/final": 0.5}, run_name=".")
    torch_writer.close()
    ours = ridgeline.SummaryWriter(str(root / EVIL), hparams={"lr": 0.001, "note": EVIL_HPARAM})
    for step in range(0, 400, 2):
        ours.add_scalar("train/loss", loss(step, 0.01), step)
        ours.add_scalar(EVIL_TAG, loss(step, 0.005), step)
        ours.add_scalar("lr", 0.001, step)
    ours.add_scalar("train/loss", math.nan, 400)  # a NaN: an alert
    ours.close()
    return root


def run_report(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ridgeline.cli", "report", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


class Structure(HTMLParser):
    """Checks tags are balanced and collects every tag with its attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.errors: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID and (not self.stack or self.stack[-1] != tag):
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
        else:
            self.stack.pop()


@pytest.fixture(scope="module")
def html_report(logdir: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    out = tmp_path_factory.mktemp("html") / "report.html"
    done = run_report("--logdir", str(logdir), "-o", str(out), "--no-cache")
    assert done.returncode == 0, done.stderr
    assert "wrote" in done.stderr
    return out.read_text(encoding="utf-8")


def test_html_is_well_formed_and_self_contained(html_report: str) -> None:
    parser = Structure()
    parser.feed(html_report)
    parser.close()
    assert parser.errors == [] and parser.stack == []
    assert html_report.startswith("<!doctype html>")
    for tag, attrs in parser.tags:
        assert tag not in ("script", "link", "iframe", "object", "embed", "img"), tag
        for name in ("src", "href", "xlink:href"):
            value = attrs.get(name) or ""
            assert not re.match(r"\s*(https?:)?//", value), f"<{tag} {name}={value!r}>"
    assert not re.search(r"<script[^>]*\bsrc=", html_report, re.IGNORECASE)
    assert "@import" not in html_report and "url(http" not in html_report
    # Every chart is well-formed SVG.
    charts = re.findall(r"<svg.*?</svg>", html_report, re.DOTALL)
    assert len(charts) >= 3
    for chart in charts:
        ET.fromstring(chart)


def test_html_has_runs_hparams_charts_and_analysis(html_report: str) -> None:
    for text in ("torch_baseline", "train/loss", "train/acc", "lr", "0.001", "batch", "64"):
        assert text in html_report
    for section in ("Runs", "Hyperparameters", "Charts", "Diagnosis", "Alerts", "Forecasts", "Phases", "Environment"):
        assert f"<h2>{section}</h2>" in html_report
    assert "stroke-dasharray" in html_report  # a forecast drawn dashed
    assert "convergence" in html_report and "nan" in html_report  # phases; the NaN alert
    assert "python" in html_report and sys.version.split()[0] in html_report  # the writer's run metadata


def test_html_escapes_text_from_the_logs(html_report: str) -> None:
    assert "<script" not in html_report.lower()
    assert EVIL not in html_report and EVIL_HPARAM not in html_report and "<b>bold</b>" not in html_report
    assert "&lt;script&gt;alert(&quot;run&quot;)&lt;/script&gt;" in html_report
    assert "&lt;img src=http://example.com/x.png onerror=alert(1)&gt;" in html_report
    assert "loss/&lt;b&gt;bold&lt;/b&gt;" in html_report


def test_markdown_with_chart_files(logdir: Path, tmp_path: Path) -> None:
    out = tmp_path / "out" / "report.md"
    done = run_report("--logdir", str(logdir), "-o", str(out), "--run", "torch|script", "--no-cache")
    assert done.returncode == 0, done.stderr
    text = out.read_text(encoding="utf-8")
    assert "| run |" in text and "torch_baseline" in text and "## Forecasts" in text
    assert "<script" not in text and "&lt;script&gt;" in text
    charts = sorted((tmp_path / "out" / "report_charts").glob("*.svg"))
    assert charts and all(f"report_charts/{chart.name}" in text for chart in charts)
    for chart in charts:
        root = ET.parse(chart).getroot()
        assert root.tag == "{http://www.w3.org/2000/svg}svg"
    # Again with fewer runs and charts: the earlier report's charts are replaced, not left beside the new ones.
    (out.parent / "report_charts" / "99-old.svg").write_text("<svg/>")
    assert run_report("--logdir", str(logdir), "-o", str(out), "--run", "^torch").returncode == 0
    again = sorted((tmp_path / "out" / "report_charts").glob("*.svg"))
    assert len(again) == 2 and all(f"report_charts/{chart.name}" in out.read_text() for chart in again)


def test_run_filter_and_no_charts(logdir: Path, tmp_path: Path) -> None:
    out = tmp_path / "only.md"
    assert run_report("--logdir", str(logdir), "-o", str(out), "--run", "^torch", "--no-charts").returncode == 0
    text = out.read_text(encoding="utf-8")
    assert "torch_baseline" in text and "alert" not in text.split("## Alerts")[0]
    assert not (tmp_path / "only_charts").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--run", "("], "--run"),
        (["--run", "^nothing$"], "no run matches"),
        (["-o", "report.pdf"], ".html or .md"),
    ],
)
def test_bad_arguments_are_usage_errors(logdir: Path, tmp_path: Path, args: list[str], message: str) -> None:
    output = ["-o", str(tmp_path / "r.html")] if "-o" not in args else []
    done = run_report("--logdir", str(logdir), *output, *args)
    assert done.returncode == 2
    assert message in done.stderr and "Traceback" not in done.stderr


def test_missing_logdir_is_a_usage_error(tmp_path: Path) -> None:
    done = run_report("--logdir", str(tmp_path / "nope"), "-o", str(tmp_path / "r.html"))
    assert done.returncode == 2 and "--logdir" in done.stderr and "Traceback" not in done.stderr


def test_an_empty_logdir_says_so(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    done = run_report("--logdir", str(tmp_path / "empty"), "-o", str(tmp_path / "r.html"))
    assert done.returncode == 2 and "holds no runs" in done.stderr and "--run" not in done.stderr


def test_a_tag_without_a_finite_value_gets_a_note_not_an_empty_chart(tmp_path: Path) -> None:
    with ridgeline.SummaryWriter(tmp_path / "logs" / "run") as writer:
        for step in range(20):
            writer.add_scalar("train/loss", 1.0 / (step + 1), step)
            writer.add_scalar("val/loss", math.nan, step)
    done = run_report("--logdir", str(tmp_path / "logs"), "-o", str(tmp_path / "r.html"))
    assert done.returncode == 0, done.stderr
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert html.count("<svg") == 1 and "val/loss: no finite value to chart" in html


def test_a_run_without_run_metadata_still_says_when_it_started(tmp_path: Path) -> None:
    from torch.utils.tensorboard import SummaryWriter as TorchWriter

    start = 1_700_000_000.0  # 2023-11-14 22:13 UTC
    writer = TorchWriter(str(tmp_path / "logs" / "torch_run"))
    for step in range(20):
        writer.add_scalar("train/loss", 1.0 / (step + 1), step, walltime=start + step)
    writer.close()
    done = run_report("--logdir", str(tmp_path / "logs"), "-o", str(tmp_path / "r.html"))
    assert done.returncode == 0, done.stderr
    assert "2023-11-14 22:13 UTC" in (tmp_path / "r.html").read_text(encoding="utf-8")
