"""GET /api/embeddings in process: the embeddings torch's and ridgeline's ``add_embedding`` wrote, with
the tag and step each name encodes; a config added while the app runs shows at the next request (embeddings
are not in the event files); an unreadable config is listed under ``errors`` while the other runs answer; a bad
run regex is a 400."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import ridgeline
from tests.plugins.conftest import in_process


def write(logdir: Path) -> None:
    from torch.utils.tensorboard import SummaryWriter as TorchWriter

    rng = np.random.default_rng(0)
    torch_writer = TorchWriter(str(logdir / "a_torch"))
    torch_writer.add_scalar("loss", 1.0, 0)
    torch_writer.add_embedding(rng.random((5, 3)), metadata=list("abcde"), global_step=3, tag="layer/out")
    torch_writer.add_embedding(rng.random((4, 2)), global_step=120000)  # tag "default"; 6 digits of step
    torch_writer.close()
    with ridgeline.SummaryWriter(logdir / "b_ridgeline") as writer:
        writer.add_scalar("loss", 1.0, 0)
        writer.add_embedding(rng.random((3, 2)), global_step=7, tag="feat")
    with ridgeline.SummaryWriter(logdir / "c_plain") as writer:
        writer.add_scalar("loss", 1.0, 0)
    with ridgeline.SummaryWriter(logdir / "d_broken") as writer:
        writer.add_scalar("loss", 1.0, 0)
    (logdir / "d_broken" / "projector_config.pbtxt").write_text("embeddings { not_a_field: 1 }")


def test_embeddings_with_their_tags_and_steps(tmp_path: Path) -> None:
    write(tmp_path)
    with in_process(tmp_path) as served:
        body = served.client.get("/api/embeddings").json()
        assert sorted(body["runs"]) == ["a_torch", "b_ridgeline"]
        torch_listing = [(e["tag"], e["step"], e["metadata"]) for e in body["runs"]["a_torch"]]
        assert torch_listing == [("layer/out", 3, True), ("default", 120000, False)]
        assert [(e["tag"], e["step"]) for e in body["runs"]["b_ridgeline"]] == [("feat", 7)]
        assert list(body["errors"]) == ["d_broken"]
        assert "projector_config.pbtxt" in body["errors"]["d_broken"]

        # Written after the server started, with no new event: listed at the next request.
        with ridgeline.SummaryWriter(tmp_path / "c_plain") as writer:
            writer.add_embedding(np.eye(2), global_step=1, tag="late")
        later = served.client.get("/api/embeddings", params={"run_regex": "^c_"}).json()
        assert [(e["tag"], e["step"]) for e in later["runs"]["c_plain"]] == [("late", 1)]
        assert list(later["runs"]) == ["c_plain"]

        for pattern in ("(", "[a-"):
            response = served.client.get("/api/embeddings", params={"run_regex": pattern})
            assert response.status_code == 400
            assert "run_regex" in response.json()["error"]
