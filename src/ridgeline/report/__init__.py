"""Training reports: ``ridgeline report --logdir DIR -o report.html`` (or ``.md``). See docs/report.md.

:func:`~ridgeline.report.collect.collect` gathers a :class:`~ridgeline.report.collect.Report` from a LogDir;
:mod:`ridgeline.report.render` writes it as self-contained HTML or as Markdown with SVG charts beside it.
"""

from __future__ import annotations

from ridgeline.report.collect import Report, collect
from ridgeline.report.render import render_html, render_markdown

__all__ = ["Report", "collect", "render_html", "render_markdown"]
