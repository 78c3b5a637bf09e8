"""Text: a Markdown string for the text dashboard."""

from __future__ import annotations

from ridgeline.format.proto import plugins_pb2, types_pb2
from ridgeline.format.tags import TEXT_PLUGIN
from ridgeline.writer.summaries._common import Summary, TensorProto, _check_str, _metadata, _shape
from ridgeline.writer.values import check_tag


def text(tag: str, text_string: str, *, method: str = "add_text") -> Summary:
    """A string for the text dashboard (Markdown). Like torch, the tag gets "/text_summary" appended."""
    check_tag(tag, method=method)
    _check_str(text_string, method=method, argument="text_string")
    proto = TensorProto(dtype=types_pb2.DT_STRING, string_val=[text_string.encode("utf-8")], tensor_shape=_shape([1]))
    metadata = _metadata(TEXT_PLUGIN, plugins_pb2.TextPluginData(version=0).SerializeToString())
    return Summary(value=[Summary.Value(tag=tag + "/text_summary", metadata=metadata, tensor=proto)])
