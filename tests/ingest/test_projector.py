"""ridgeline.ingest.projector on the projector files of torch, tensorboardX and ridgeline, local and through fsspec."""

from __future__ import annotations

import io
import warnings
from pathlib import Path
from typing import IO, Any

import numpy as np
import pytest
from PIL import Image

from ridgeline.ingest.projector import CONFIG_FILE, PLUGIN_ASSETS_DIR, read_projector
from ridgeline.store.embeddings import ProjectorError

torch = pytest.importorskip("torch")
pytest.importorskip("tensorboard")
from tensorboard.plugins.projector.projector_plugin import _read_tensor_tsv_file  # noqa: E402

MAT = np.arange(24, dtype=np.float64).reshape(6, 4) / 7.0
LABELS = ["cat", "dog", "cat", "bird", "dog", "cat"]
ROWS = [[label, str(i)] for i, label in enumerate(LABELS)]
IMAGES = np.random.default_rng(0).random((6, 3, 5, 5))  # tensorboardX wants square images


def write_embeddings(writer: Any) -> None:
    writer.add_embedding(torch.tensor(MAT), metadata=LABELS, label_img=torch.tensor(IMAGES), global_step=1)
    writer.add_embedding(torch.tensor(MAT[:3]), metadata=ROWS[:3], metadata_header=["kind", "index"], tag="two/cols")
    writer.add_embedding(torch.tensor(MAT[:2]), tag="bare")


def check_embeddings(run_dir: Path, open_file: Any = None, root: str | None = None) -> None:
    embeddings = read_projector(root or str(run_dir), open_file)
    by_name = {embedding.name.split(":")[0]: embedding for embedding in embeddings}
    assert sorted(by_name) == ["bare", "default", "two/cols"]

    default = by_name["default"]
    assert default.tensor_path is not None
    tensors = default.tensors()
    assert tensors.dtype == np.float32 and tensors.shape == (6, 4)
    np.testing.assert_array_equal(tensors, _read_tensor_tsv_file(str(run_dir / "00001" / "default" / "tensors.tsv")))
    np.testing.assert_allclose(tensors, MAT.astype(np.float32), rtol=1e-6)
    meta = default.metadata()
    assert meta.header is None and [row[0] for row in meta.rows] == LABELS
    sprite = default.sprite()
    assert sprite.content_type == "image/png" and sprite.single_image_dim == (5, 5)
    assert sprite.data == (run_dir / "00001" / "default" / "sprite.png").read_bytes()
    assert Image.open(io.BytesIO(sprite.data)).size[0] == 5 * 3  # ceil(sqrt(6)) images to a row

    two = by_name["two/cols"]
    assert two.metadata().header == ("kind", "index")
    assert [list(row) for row in two.metadata().rows] == ROWS[:3]
    assert two.sprite_path is None
    with pytest.raises(ProjectorError, match="names no sprite"):
        two.sprite()
    bare = by_name["bare"]
    assert bare.tensors().shape == (2, 4) and bare.metadata_path is None
    with pytest.raises(ProjectorError, match="names no metadata"):
        bare.metadata()


@pytest.mark.parametrize("writer_module", ["torch.utils.tensorboard", "tensorboardX", "ridgeline"])
def test_writers(tmp_path: Path, writer_module: str) -> None:
    module = pytest.importorskip(writer_module)
    with warnings.catch_warnings():
        if writer_module == "tensorboardX":
            # tensorboardX pads its sprite into np.ndarray(...), uninitialised memory: when that memory happens to
            # hold NaN, its uint8 cast warns (now and then, whatever this test does). The padding is not read.
            warnings.filterwarnings("ignore", "invalid value encountered in cast", RuntimeWarning)
        with module.SummaryWriter(str(tmp_path)) as writer:
            write_embeddings(writer)
    check_embeddings(tmp_path)


def test_fsspec_and_callable_openers(tmp_path: Path) -> None:
    fsspec = pytest.importorskip("fsspec")
    from ridgeline import SummaryWriter

    with SummaryWriter(str(tmp_path)) as writer:
        write_embeddings(writer)
    memory = fsspec.filesystem("memory")
    for path in tmp_path.rglob("*"):
        if path.is_file():
            memory.pipe(f"/projector_test/{path.relative_to(tmp_path).as_posix()}", path.read_bytes())
    try:
        check_embeddings(tmp_path, memory, root="memory://projector_test")
    finally:
        memory.rm("/projector_test", recursive=True)

    opened: list[str] = []

    def open_file(path: str) -> IO[bytes]:
        opened.append(path)
        return open(path, "rb")

    check_embeddings(tmp_path, open_file)
    assert opened[0] == str(tmp_path / CONFIG_FILE)


def write_config(directory: Path, text: str, files: dict[str, bytes] | None = None) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / CONFIG_FILE).write_text(text)
    for name, data in (files or {}).items():
        (directory / name).parent.mkdir(parents=True, exist_ok=True)
        (directory / name).write_bytes(data)


def test_config_locations_and_names(tmp_path: Path) -> None:
    assert read_projector(str(tmp_path)) == []
    assets = tmp_path / PLUGIN_ASSETS_DIR
    text = 'embeddings { tensor_name: "emb:0" tensor_path: "t.tsv" bookmarks_path: "b.json" }'
    write_config(assets, text, {"t.tsv": b"1\t2\r\n\n3\t4\n", "b.json": b"[]"})
    (embedding,) = read_projector(tmp_path)
    assert embedding.name == "emb" and embedding.config_path == str(assets / CONFIG_FILE)
    assert embedding.tensors().tolist() == [[1, 2], [3, 4]]
    assert embedding.bookmarks() == b"[]"
    checkpoint = 'model_checkpoint_path: "model.ckpt" embeddings { tensor_name: "w" }'
    write_config(tmp_path, checkpoint)
    first = read_projector(tmp_path)[0]
    assert first.name == "w" and first.tensor_path is None
    with pytest.raises(ProjectorError, match="names no tensor file"):
        first.tensors()


def test_binary_tensors(tmp_path: Path) -> None:
    matrix = np.array([[1.5, -2.0, 3.0], [0.0, 1e-3, 7.0]], dtype="<f4")
    raw = matrix.tobytes() + b"\xff"  # not UTF-8: read as raw float32 with the config's shape
    write_config(tmp_path, 'embeddings { tensor_name: "w" tensor_path: "w.bytes" tensor_shape: [2, 3] }')
    (tmp_path / "w.bytes").write_bytes(raw[:-1])
    if _is_utf8(raw[:-1]):
        pytest.skip("these floats happen to be UTF-8")
    np.testing.assert_array_equal(read_projector(tmp_path)[0].tensors(), matrix)
    (tmp_path / "w.bytes").write_bytes(raw)
    with pytest.raises(ProjectorError, match=r"w\.bytes.*tensor_shape \[2, 3\]"):
        read_projector(tmp_path)[0].tensors()


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


@pytest.mark.parametrize(
    ("config", "files", "call", "message"),
    [
        ('embeddings { tensor_path: "missing.tsv" }', {}, "tensors", r"tensor file .*missing\.tsv does not exist"),
        ('embeddings { tensor_path: "t.tsv" }', {"t.tsv": b"1\t2\n3\n"}, "tensors", r"t\.tsv: rows have different"),
        ('embeddings { tensor_path: "t.tsv" }', {"t.tsv": b"1\tx\n"}, "tensors", r"t\.tsv: not a matrix"),
        ('embeddings { metadata_path: "m.tsv" }', {"m.tsv": b"\xff\n"}, "metadata", r"m\.tsv is not UTF-8"),
        ('embeddings { tensor_path: "t.tsv" }', {"t.tsv/x": b""}, "tensors", r"t\.tsv could not be read"),
    ],
)
def test_file_errors_name_the_file(
    tmp_path: Path, config: str, files: dict[str, bytes], call: str, message: str
) -> None:
    write_config(tmp_path, config, files)
    (embedding,) = read_projector(tmp_path)
    with pytest.raises(ProjectorError, match=message):
        getattr(embedding, call)()


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ("embeddings { nonsense: 1 }", r"projector_config\.pbtxt is malformed"),
        ('embeddings { tensor_path: "../outside.tsv" }', "resolves outside"),
        ('embeddings { tensor_path: "a/../../outside.tsv" }', "resolves outside"),
        ('embeddings { sprite { image_path: "/etc/passwd" } }', "resolves outside"),
    ],
)
def test_config_errors(tmp_path: Path, config: str, message: str) -> None:
    write_config(tmp_path, config)
    with pytest.raises(ProjectorError, match=message):
        read_projector(tmp_path)


def test_absolute_paths_inside_the_directory(tmp_path: Path) -> None:
    write_config(tmp_path, f'embeddings {{ tensor_path: "{tmp_path / "t.tsv"}" }}', {"t.tsv": b"5\n"})
    assert read_projector(tmp_path)[0].tensors().tolist() == [[5.0]]


def test_unreadable_config(tmp_path: Path) -> None:
    def broken(path: str) -> IO[bytes]:
        raise PermissionError("denied")

    with pytest.raises(ProjectorError, match=r"projector_config\.pbtxt could not be read: PermissionError"):
        read_projector(tmp_path, broken)

    def missing(path: str) -> IO[bytes]:
        raise FileNotFoundError(path)

    assert read_projector(tmp_path, missing) == []
