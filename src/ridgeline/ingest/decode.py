"""Event -> typed records: which kind each summary value is, and its payload decoded on demand.

Classification (:class:`EventDecoder`, one per run) follows TensorBoard's read path (``data_compat``, then
``dataclass_compat`` and the plugin event accumulator):

- ``simple_value`` -> scalars; legacy ``histo`` -> histograms; ``image`` -> images; ``audio`` -> audio.
  These define the kind by themselves (TensorBoard converts them to tensors of those plugins).
- ``tensor`` values -> by the ``plugin_name`` of the tag's *first* SummaryMetadata in the run (TF2/Keras write
  it with the first value of a tag only): scalars, histograms, images, audio, text, pr_curves, hparams,
  custom_scalars, mesh -> meshes, graphs / graph_run_metadata / graph_run_metadata_graph / graph_keras_model /
  graph_tagged_run_metadata -> graphs; ridgeline_confusion_matrix -> confusion_matrices; any other plugin, or
  none -> tensors.
- a value with no payload at all counts only for the hparams plugin (whose data is its metadata);
  ``obsolete_old_style_histogram`` is ignored, as TensorBoard does.
- ``graph_def`` -> graphs under GRAPH_TAG; ``meta_graph_def`` -> graphs under META_GRAPH_TAG;
  ``tagged_run_metadata`` -> graphs under RUN_METADATA_PREFIX + its tag (TensorBoard keys those by the bare
  tag; the prefix keeps them apart from summary tags). Their value_index is -1.
- a value's tag is ``tag``, or ``node_name`` when the tag is empty (summaries of TF1's plugin-asset era).

Scalars are decoded at once (``DecodedValue.scalar``); everything else stays in the file until
:func:`ridgeline.ingest.payload_decode.decode_value`; the checks of each kind's dtype and shape are that module's,
run here too so that every value classified decodes. Nothing here raises on bad input: ``decode`` reports problems.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field

from ridgeline.format import tags
from ridgeline.format.proto import event_pb2, plugins_pb2, summary_pb2
from ridgeline.format.tags import GRAPH_TAG, META_GRAPH_TAG, RUN_METADATA_PREFIX
from ridgeline.ingest.hparams import hparams_from_content
from ridgeline.ingest.payload_decode import check_tensor, legacy_histogram, tensor_scalar
from ridgeline.store.base import Kind
from ridgeline.store.payloads import DecodeError, check_image_size

__all__ = [
    "SHOWN_WHEN_MALFORMED",
    "DecodedEvent",
    "DecodedValue",
    "EventDecoder",
    "kind_of_plugin",
]

SummaryMetadata = summary_pb2.SummaryMetadata
_PLUGIN_KINDS: dict[str, Kind] = {
    tags.SCALARS_PLUGIN: "scalars",
    tags.HISTOGRAMS_PLUGIN: "histograms",
    tags.IMAGES_PLUGIN: "images",
    tags.AUDIO_PLUGIN: "audio",
    tags.TEXT_PLUGIN: "text",
    tags.RUN_METADATA_PLUGIN: "text",
    tags.PR_CURVES_PLUGIN: "pr_curves",
    tags.HPARAMS_PLUGIN: "hparams",
    tags.CUSTOM_SCALARS_PLUGIN: "custom_scalars",
    tags.MESH_PLUGIN: "meshes",
    tags.GRAPHS_PLUGIN: "graphs",
    tags.GRAPH_RUN_METADATA_PLUGIN: "graphs",
    tags.GRAPH_RUN_METADATA_GRAPH_PLUGIN: "graphs",
    tags.GRAPH_KERAS_MODEL_PLUGIN: "graphs",
    tags.GRAPH_TAGGED_RUN_METADATA_PLUGIN: "graphs",
    tags.CONFUSION_MATRIX_PLUGIN: "confusion_matrices",
}
# What data_compat gives legacy values: (plugin name, plugin content).
_LEGACY: dict[str, tuple[Kind, str, bytes]] = {
    "simple_value": ("scalars", tags.SCALARS_PLUGIN, b""),
    "histo": ("histograms", tags.HISTOGRAMS_PLUGIN, b""),
    "image": ("images", tags.IMAGES_PLUGIN, plugins_pb2.ImagePluginData(converted_to_tensor=True).SerializeToString()),
    "audio": (
        "audio",
        tags.AUDIO_PLUGIN,
        plugins_pb2.AudioPluginData(
            encoding=plugins_pb2.AudioPluginData.WAV, converted_to_tensor=True
        ).SerializeToString(),
    ),
}


def kind_of_plugin(plugin_name: str) -> Kind:
    """The kind of tensor values of ``plugin_name`` (tensors for unknown plugins and for none)."""
    return _PLUGIN_KINDS.get(plugin_name, "tensors")


@dataclass(frozen=True, slots=True)
class DecodedValue:
    """One summary value: its kind, tag, index in ``summary.value`` (-1: graph_def, meta_graph_def,
    tagged_run_metadata) and, for scalars, the value (float32 values widened exactly)."""

    kind: Kind
    tag: str
    value_index: int
    scalar: float | None = None


@dataclass(frozen=True, slots=True)
class DecodedEvent:
    """One Event. A record that is no Event at all gives wall_time 0, step 0, no values and one problem."""

    wall_time: float
    step: int
    file_version: str | None = None
    session_start: bool = False  # SessionLog START: TensorBoard purges later steps seen before it
    values: list[DecodedValue] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


# Kinds whose dashboards show a value of the wrong shape or type as an error in its card, at its step (text, PR
# curves, confusion matrices): such a value is a problem AND stays in its series, where decode_value raises
# DecodeError for it.
# Values of other kinds that fail the check at classification are only problems.
SHOWN_WHEN_MALFORMED: frozenset[str] = frozenset({"text", "pr_curves", "confusion_matrices"})


@functools.lru_cache(maxsize=4096)
def _simple_value_metadata(tag: str) -> summary_pb2.SummaryMetadata:
    """The metadata a legacy ``simple_value`` of ``tag`` stands for, one message per tag for every run (a run of
    a thousand read ten tags a thousand times: a message each cost more than parsing its file). Shared like
    :meth:`EventDecoder.metadata`'s answers, which nobody modifies."""
    _, plugin_name, content = _LEGACY["simple_value"]
    return SummaryMetadata(
        plugin_data=SummaryMetadata.PluginData(plugin_name=plugin_name, content=content), display_name=tag
    )


class EventDecoder:
    """Classifies the events of one run, in file order, remembering each tag's first SummaryMetadata."""

    def __init__(self, metadata: Mapping[str, summary_pb2.SummaryMetadata] | None = None) -> None:
        """``metadata``: tag -> first metadata of an earlier pass (see :meth:`all_metadata`), to resume."""
        self._metadata: dict[str, summary_pb2.SummaryMetadata] = dict(metadata or {})

    def metadata(self, tag: str) -> summary_pb2.SummaryMetadata | None:
        """The first SummaryMetadata seen for ``tag`` (synthesized as TensorBoard does for legacy values).

        Shared, not copied: do not modify it."""
        return self._metadata.get(tag)

    def all_metadata(self) -> dict[str, summary_pb2.SummaryMetadata]:
        return dict(self._metadata)

    def __getstate__(self) -> dict[str, bytes]:
        # Pickled (ingest's cache, worker processes) as serialized metadata: compact and version-proof.
        return {tag: metadata.SerializeToString() for tag, metadata in self._metadata.items()}

    def __setstate__(self, state: dict[str, bytes]) -> None:
        self._metadata = {tag: SummaryMetadata.FromString(data) for tag, data in state.items()}

    def note_simple_value_tags(self, tags: list[str]) -> None:
        """Tags the fast path read as ``simple_value`` scalars without this decoder seeing them: remember them
        as a legacy scalar would be remembered, so that a later value of the tag without metadata (a TF2 tensor
        from another writer) is still routed to scalars."""
        for tag in tags:
            if tag not in self._metadata:
                self._metadata[tag] = _simple_value_metadata(tag)

    def decode(self, data: bytes) -> DecodedEvent:
        """The kinds and scalars of one serialized Event. Never raises."""
        try:
            event = event_pb2.Event.FromString(data)
        except Exception as error:  # upb raises DecodeError, RuntimeError or ValueError (bad UTF-8 in a tag)
            return DecodedEvent(0.0, 0, problems=[f"malformed Event ({len(data)} bytes): {error}"])
        what = event.WhichOneof("what")
        decoded = DecodedEvent(
            wall_time=event.wall_time,
            step=event.step,
            file_version=event.file_version if what == "file_version" else None,
            session_start=what == "session_log" and event.session_log.status == event_pb2.SessionLog.START,
        )
        if what == "summary":
            for index, value in enumerate(event.summary.value):
                try:
                    self._classify(index, value, decoded)
                except Exception as error:  # DecodeError, and anything a hostile value might still provoke
                    tag = value.tag or value.node_name
                    decoded.problems.append(f"value {index} (tag {tag!r}): {error}")
        elif what == "graph_def":
            decoded.values.append(DecodedValue("graphs", GRAPH_TAG, -1))
        elif what == "meta_graph_def":
            decoded.values.append(DecodedValue("graphs", META_GRAPH_TAG, -1))
        elif what == "tagged_run_metadata":
            decoded.values.append(DecodedValue("graphs", RUN_METADATA_PREFIX + event.tagged_run_metadata.tag, -1))
        return decoded

    def _classify(self, index: int, value: summary_pb2.Summary.Value, decoded: DecodedEvent) -> None:
        tag = value.tag or value.node_name
        which = value.WhichOneof("value")
        legacy = _LEGACY.get(which or "")
        if legacy is not None:
            kind, plugin_name, content = legacy
            if tag not in self._metadata:
                self._metadata[tag] = SummaryMetadata(
                    plugin_data=SummaryMetadata.PluginData(plugin_name=plugin_name, content=content),
                    display_name=value.metadata.display_name or tag,
                    summary_description=value.metadata.summary_description,
                )
            if which == "simple_value":
                decoded.values.append(DecodedValue(kind, tag, index, float(value.simple_value)))
                return
            if which == "histo":
                legacy_histogram(value.histo)  # checks it; small next to the event just parsed
            elif which == "image":
                check_image_size(value.image.width, value.image.height)
            decoded.values.append(DecodedValue(kind, tag, index))
            return
        if which not in ("tensor", None):
            return  # obsolete_old_style_histogram: TensorBoard ignores it too
        metadata = self._metadata.get(tag)
        if metadata is None and value.HasField("metadata"):
            metadata = self._metadata[tag] = SummaryMetadata()
            metadata.CopyFrom(value.metadata)  # a copy: a reference would keep the whole event alive
        kind = kind_of_plugin(metadata.plugin_data.plugin_name if metadata is not None else "")
        if kind == "hparams":  # the data is the metadata; a tensor, if any, is a placeholder
            own = value.metadata if value.HasField("metadata") else metadata
            hparams_from_content(own.plugin_data.content if own is not None else b"")
            decoded.values.append(DecodedValue(kind, tag, index))
            return
        if which is None:
            return  # no data
        if kind == "scalars":
            decoded.values.append(DecodedValue(kind, tag, index, tensor_scalar(value.tensor)))
            return
        try:
            check_tensor(kind, value.tensor)
        except DecodeError:
            if kind in SHOWN_WHEN_MALFORMED:  # still a problem, but its step stays listed for its card to explain
                decoded.values.append(DecodedValue(kind, tag, index))
            raise
        decoded.values.append(DecodedValue(kind, tag, index))
