"""``GET /api/embeddings``: each run's embeddings (what ``add_embedding`` wrote), listed from its projector config.

The embeddings live outside the event files (``projector_config.pbtxt`` and the files it names), so the ingest
generation says nothing about them: each request reads the configs again. That is two small reads per run, and
only the tensors' shapes come from the config: no tensor file is opened.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from ridgeline.plugins.kit import OrjsonResponse, RunRegex, compile_regex, logdir_of
from ridgeline.store.embeddings import EmbeddingRef, ProjectorError

router = APIRouter()


@router.get("/embeddings")
def embeddings(request: Request, run_regex: RunRegex = None) -> OrjsonResponse:
    """``{"runs": {run: [{"name", "tag", "step", "shape", "metadata", "sprite"}]}, "errors": {run: message}}``:
    the embeddings of every run that has some (``step`` is null when the config does not say; ``shape`` is the
    config's ``[points, dimensions]``, empty when it gives none). A run whose projector config cannot be read is
    listed under ``errors`` with the reason, and the others still answer."""
    logdir = logdir_of(request)
    pattern = compile_regex(run_regex, "run_regex")
    found: dict[str, list[dict[str, Any]]] = {}
    errors: dict[str, str] = {}
    for run in logdir.runs():
        if pattern is not None and not pattern.search(run):
            continue
        try:
            refs = logdir.embeddings(run)
        except KeyError:  # the run vanished meanwhile
            continue
        except ProjectorError as error:
            errors[run] = str(error)
            continue
        if refs:
            found[run] = [_describe(ref) for ref in refs]
    return OrjsonResponse({"runs": found, "errors": errors})


def _describe(ref: EmbeddingRef) -> dict[str, Any]:
    return {
        "name": ref.name,
        "tag": ref.tag,
        "step": ref.step,
        "shape": list(ref.tensor_shape),
        "metadata": ref.metadata_path is not None,
        "sprite": ref.sprite_path is not None,
    }
