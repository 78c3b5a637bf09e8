"""Reserved names of the tfevents format: the tags that writers give bookkeeping records, and the plugin names
(``SummaryMetadata.plugin_data.plugin_name``) that say which dashboard a summary belongs to.

The writer writes these names and the reader looks for them, so each is defined here once.
"""

from __future__ import annotations

import re

# --- ridgeline's own records (text summaries under exactly these tags) ---------------------------------------
RIDGELINE_PREFIX = "_ridgeline/"
RUN_METADATA_TAG = RIDGELINE_PREFIX + "run_metadata"  # what a run records about itself when its writer opens
ANNOTATION_TAG = RIDGELINE_PREFIX + "annotations"  # SummaryWriter.add_annotation
NOTES_TAG = RIDGELINE_PREFIX + "notes"  # SummaryWriter.add_note (Markdown)
CONSOLE_TAG = RIDGELINE_PREFIX + "console"  # SummaryWriter(capture_console=True): batches of stdout/stderr lines
RUN_END_TAG = RIDGELINE_PREFIX + "run_end"  # how a writer ended: {"status": "finished"|"failed", ...} (JSON)
# SummaryWriter.sync_step: a scalar per step whose wall time is when the rank left the barrier, value how long it
# waited there (so it arrived at wall_time - value).
SYNC_TAG = RIDGELINE_PREFIX + "sync"

# --- the hparams plugin's three records (TensorBoard's names; torch and Keras write them too) ----------------
HPARAMS_PREFIX = "_hparams_/"
HPARAMS_EXPERIMENT_TAG = HPARAMS_PREFIX + "experiment"
HPARAMS_SESSION_START_TAG = HPARAMS_PREFIX + "session_start_info"
HPARAMS_SESSION_END_TAG = HPARAMS_PREFIX + "session_end_info"

# --- graphs stored in Event fields rather than summaries: the tags ingest files them under --------------------
GRAPH_TAG = "__graph__"  # Event.graph_def
META_GRAPH_TAG = "__meta_graph__"  # Event.meta_graph_def
RUN_METADATA_PREFIX = "__run_metadata__/"  # + the tag of Event.tagged_run_metadata

# --- the custom scalars layout (TensorBoard's name) ----------------------------------------------------------
CUSTOM_SCALARS_TAG = "custom_scalars__config__"

# Tags that carry ridgeline's or TensorBoard's own bookkeeping: reachable through their own methods of the reading
# API, hidden from its tag listings. The custom scalars layout's tag stays listed (kind "custom_scalars"): it tells
# a page which runs have a layout.
INTERNAL_TAG = re.compile(
    f"^({re.escape(RIDGELINE_PREFIX)}|{re.escape(HPARAMS_PREFIX)}|{re.escape(GRAPH_TAG)}$|{re.escape(RUN_METADATA_PREFIX)})"
)

# --- plugin names --------------------------------------------------------------------------------------------
SCALARS_PLUGIN = "scalars"
HISTOGRAMS_PLUGIN = "histograms"
IMAGES_PLUGIN = "images"
AUDIO_PLUGIN = "audio"
TEXT_PLUGIN = "text"
# The run metadata record is a text summary under a plugin name of its own, which TensorBoard's text dashboard does
# not claim (it showed the JSON as the first text section of every run); ridgeline reads it as text, as it reads the
# files written before, whose record names the text plugin.
RUN_METADATA_PLUGIN = "ridgeline_run_metadata"
PR_CURVES_PLUGIN = "pr_curves"
HPARAMS_PLUGIN = "hparams"
CUSTOM_SCALARS_PLUGIN = "custom_scalars"
MESH_PLUGIN = "mesh"
GRAPHS_PLUGIN = "graphs"  # a GraphDef tensor
GRAPH_RUN_METADATA_PLUGIN = "graph_run_metadata"  # a RunMetadata (step statistics)
GRAPH_RUN_METADATA_GRAPH_PLUGIN = "graph_run_metadata_graph"  # TF2 trace_export: a RunMetadata with function graphs
GRAPH_KERAS_MODEL_PLUGIN = "graph_keras_model"  # Keras' model config as JSON
GRAPH_TAGGED_RUN_METADATA_PLUGIN = "graph_tagged_run_metadata"
TENSOR_PLUGIN = "tensor"  # what torch's add_tensor names its plugin: no dashboard, read as a plain tensor
# SummaryWriter.add_confusion_matrix: an int64 [n, n] tensor of counts (rows: true class, columns: predicted), its
# plugin content the JSON {"version": 1, "class_names": [...]}. TensorBoard has no such plugin and lists it as a
# plain tensor.
CONFUSION_MATRIX_PLUGIN = "ridgeline_confusion_matrix"
