"""The custom scalars layout: which tags the Multiline and Margin charts of each category show."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ridgeline.format.proto import custom_scalars_pb2, types_pb2
from ridgeline.format.tags import CUSTOM_SCALARS_PLUGIN, CUSTOM_SCALARS_TAG
from ridgeline.writer.summaries._common import Summary, TensorProto, TensorShapeProto, _check_str, _metadata


def custom_scalars(layout: Mapping[str, Any], *, method: str = "add_custom_scalars") -> Summary:
    """The custom scalars layout: {category: {chart title: ["Multiline", [tag regexes]] or ["Margin", [v, lo, hi]]}}."""
    if not isinstance(layout, Mapping):
        raise TypeError(
            f"{method}: layout must be a dict of category -> {{chart title: [kind, tags]}}, got {type(layout).__name__}"
        )
    categories = []
    for category, charts in layout.items():
        _check_str(category, method=method, argument="layout key (a category title)")
        if not isinstance(charts, Mapping):
            raise TypeError(
                f"{method}: layout[{category!r}] must be a dict of chart title -> [kind, tags], "
                f"got {type(charts).__name__}"
            )
        protos = []
        for title, spec in charts.items():
            where = f"layout[{category!r}][{title!r}]"
            _check_str(title, method=method, argument=f"layout[{category!r}] key (a chart title)")
            if isinstance(spec, str) or not isinstance(spec, Sequence) or len(spec) != 2:
                raise ValueError(
                    f"{method}: {where} must be ['Multiline', [tags]] or ['Margin', [value, lower, upper]], "
                    f"got {spec!r}"
                )
            kind, tags = spec
            if isinstance(tags, str) or not isinstance(tags, Sequence) or not all(isinstance(t, str) for t in tags):
                raise TypeError(f"{method}: {where}[1] must be a list of tag strings, got {tags!r}")
            if kind == "Margin":
                if len(tags) != 3:
                    raise ValueError(
                        f"{method}: {where} is a Margin chart and needs 3 tags (value, lower, upper), got {len(tags)}"
                    )
                series = custom_scalars_pb2.MarginChartContent.Series(value=tags[0], lower=tags[1], upper=tags[2])
                chart = custom_scalars_pb2.Chart(
                    title=title, margin=custom_scalars_pb2.MarginChartContent(series=[series])
                )
            elif kind == "Multiline":
                chart = custom_scalars_pb2.Chart(
                    title=title, multiline=custom_scalars_pb2.MultilineChartContent(tag=tags)
                )
            else:
                raise ValueError(f"{method}: {where}[0] must be 'Multiline' or 'Margin', got {kind!r}")
            protos.append(chart)
        categories.append(custom_scalars_pb2.Category(title=category, chart=protos))
    encoded = custom_scalars_pb2.Layout(category=categories).SerializeToString()
    # torch sets an empty (present) tensor_shape: a scalar string tensor.
    proto = TensorProto(dtype=types_pb2.DT_STRING, string_val=[encoded], tensor_shape=TensorShapeProto())
    return Summary(
        value=[Summary.Value(tag=CUSTOM_SCALARS_TAG, tensor=proto, metadata=_metadata(CUSTOM_SCALARS_PLUGIN))]
    )
