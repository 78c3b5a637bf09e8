"""ridgeline.writer.embedding against torch's SummaryWriter.add_embedding: the same projector files."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from google.protobuf import text_format
from PIL import Image

from ridgeline.format.proto import projector_pb2
from ridgeline.writer.embedding import encode_tag, write_embedding

torch = pytest.importorskip("torch")
pytest.importorskip("tensorboard")

PROJECTOR_FILES = {"projector_config.pbtxt", "tensors.tsv", "metadata.tsv", "sprite.png"}


def torch_embeddings(log_dir: Path, calls: list[dict]) -> None:
    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(str(log_dir))
    try:
        for call in calls:
            writer.add_embedding(**call)
    finally:
        writer.close()


def our_embeddings(log_dir: Path, calls: list[dict]) -> None:
    for call in calls:
        write_embedding(str(log_dir), **call)


def projector_files(log_dir: Path) -> dict[str, bytes]:
    """Relative path → content of every projector file (event files left out)."""
    return {
        path.relative_to(log_dir).as_posix(): path.read_bytes()
        for path in sorted(log_dir.rglob("*"))
        if path.is_file() and path.name in PROJECTOR_FILES
    }


def read_config(path: Path) -> projector_pb2.ProjectorConfig:
    return text_format.Parse(path.read_text(encoding="utf-8"), projector_pb2.ProjectorConfig())


def sprite_pixels(data: bytes) -> np.ndarray:
    with Image.open(io.BytesIO(data)) as image:
        assert image.mode == "RGB"
        return np.asarray(image)


def assert_same_as_torch(tmp_path: Path, calls: list[dict]) -> dict[str, bytes]:
    theirs_dir, ours_dir = tmp_path / "torch", tmp_path / "ours"
    torch_embeddings(theirs_dir, calls)
    our_embeddings(ours_dir, calls)
    theirs, ours = projector_files(theirs_dir), projector_files(ours_dir)
    assert sorted(ours) == sorted(theirs)
    for name, content in theirs.items():
        if name.endswith("sprite.png"):
            np.testing.assert_array_equal(sprite_pixels(ours[name]), sprite_pixels(content), err_msg=name)
        elif name.endswith(".pbtxt"):
            expected, actual = read_config(theirs_dir / name), read_config(ours_dir / name)
            assert len(actual.embeddings) == len(expected.embeddings)
            for mine, torchs in zip(actual.embeddings, expected.embeddings, strict=True):
                assert mine.tensor_name == torchs.tensor_name
                assert mine.tensor_path == torchs.tensor_path
                assert mine.metadata_path == torchs.metadata_path
                assert mine.sprite.image_path == torchs.sprite.image_path
                assert list(mine.sprite.single_image_dim) == list(torchs.sprite.single_image_dim)
                assert mine.HasField("sprite") == torchs.HasField("sprite")
            assert actual == expected
            assert ours[name] == content  # the same text, byte for byte
        else:
            assert ours[name].decode() == content.decode(), name
    return ours


@pytest.fixture(autouse=True)
def _seed() -> None:
    torch.manual_seed(0)


def test_matrix_only_with_defaults(tmp_path: Path) -> None:
    files = assert_same_as_torch(tmp_path, [{"mat": torch.randn(5, 3)}])
    assert sorted(files) == ["00000/default/tensors.tsv", "projector_config.pbtxt"]


def test_metadata_sprite_step_and_a_tag_with_slashes(tmp_path: Path) -> None:
    images = torch.rand(10, 3, 8, 8)
    call = {
        "mat": torch.randn(10, 4),
        "metadata": [f"label {i}" for i in range(10)],
        "label_img": images,
        "global_step": 3,
        "tag": "layer/4 %out\\x",
    }
    files = assert_same_as_torch(tmp_path, [call])
    subdir = "00003/layer%2f4 %25out%5cx"
    names = {f"{subdir}/{name}" for name in ("tensors.tsv", "metadata.tsv", "sprite.png")}
    assert set(files) == names | {"projector_config.pbtxt"}
    sprite = sprite_pixels(files[f"{subdir}/sprite.png"])
    assert sprite.shape == (32, 32, 3)  # 4 images to a row, on a square
    expected_first = (images[0].numpy().transpose(1, 2, 0) * 255).clip(0, 255).astype(np.uint8)
    np.testing.assert_array_equal(sprite[:8, :8], expected_first)
    assert not sprite[24:, 16:].any()  # the unused cells stay black


def test_multi_column_metadata_with_header(tmp_path: Path) -> None:
    call = {
        "mat": np.arange(12, dtype=np.float32).reshape(4, 3) / 7,
        "metadata": [[i, f"name{i}", i * 0.5] for i in range(4)],
        "metadata_header": ["index", "name", "half"],
    }
    files = assert_same_as_torch(tmp_path, [call])
    assert files["00000/default/metadata.tsv"].decode().splitlines()[:2] == ["index\tname\thalf", "0\tname0\t0.0"]


def test_grayscale_non_square_images(tmp_path: Path) -> None:
    call = {"mat": torch.randn(5, 2), "label_img": torch.rand(5, 1, 4, 6), "metadata": list(range(5))}
    files = assert_same_as_torch(tmp_path, [call])
    sprite = sprite_pixels(files["00000/default/sprite.png"])
    assert sprite.shape == (18, 18, 3)
    assert (sprite[..., 0] == sprite[..., 2]).all()


def test_several_calls_accumulate_in_the_config(tmp_path: Path) -> None:
    calls = [
        {"mat": torch.randn(3, 2), "global_step": 0},
        {"mat": torch.randn(3, 2), "global_step": 1, "tag": "b", "metadata": ["x", "y", "z"]},
        {"mat": torch.randn(3, 2), "global_step": 123456, "label_img": torch.rand(3, 3, 2, 2)},
        {"mat": torch.randn(3, 2), "global_step": -2},
    ]
    assert_same_as_torch(tmp_path, calls)
    config = read_config(tmp_path / "ours" / "projector_config.pbtxt")
    assert [entry.tensor_name for entry in config.embeddings] == [
        "default:00000",
        "b:00001",
        "default:123456",
        "default:-0002",
    ]


def test_numpy_and_float_values_are_written_like_torch(tmp_path: Path) -> None:
    mat = np.array([[0.1, 1e-8, -3.0], [np.inf, 7.0, 1e20]], dtype=np.float32)
    metadata = np.array([0.1, 2.5], dtype=np.float32)
    files = assert_same_as_torch(tmp_path, [{"mat": mat, "metadata": metadata}])
    assert (
        files["00000/default/tensors.tsv"].decode().splitlines()[0] == "0.10000000149011612\t9.99999993922529e-09\t-3.0"
    )
    assert files["00000/default/metadata.tsv"] == b"0.1\n2.5\n"


def test_lists_and_numpy_images_are_accepted(tmp_path: Path) -> None:
    images = np.random.default_rng(0).random((2, 3, 3, 3))
    write_embedding(tmp_path / "ours", [[1, 2], [3, 4]], label_img=images, metadata=("a", "b"))
    torch_embeddings(
        tmp_path / "torch",
        [{"mat": torch.tensor([[1, 2], [3, 4]]), "label_img": torch.from_numpy(images), "metadata": ["a", "b"]}],
    )
    theirs, ours = projector_files(tmp_path / "torch"), projector_files(tmp_path / "ours")
    assert ours["00000/default/tensors.tsv"] == theirs["00000/default/tensors.tsv"] == b"1\t2\n3\t4\n"
    np.testing.assert_array_equal(
        sprite_pixels(ours["00000/default/sprite.png"]), sprite_pixels(theirs["00000/default/sprite.png"])
    )


def test_torch_tensor_metadata_is_written_as_numbers(tmp_path: Path) -> None:
    write_embedding(tmp_path, torch.zeros(3, 2), metadata=torch.tensor([1, 2, 3]))
    assert (tmp_path / "00000" / "default" / "metadata.tsv").read_bytes() == b"1\n2\n3\n"


def test_uint8_images_are_read_as_0_to_255(tmp_path: Path) -> None:
    images = np.full((1, 3, 2, 2), 128, dtype=np.uint8)
    write_embedding(tmp_path, np.zeros((1, 2)), label_img=images)
    sprite = sprite_pixels((tmp_path / "00000" / "default" / "sprite.png").read_bytes())
    assert (sprite == 128).all()


def test_tall_images_get_a_sprite_that_holds_them(tmp_path: Path) -> None:
    # torch draws the sprite on a (W * columns)² square, which 3 images of 10×4 do not fit.
    write_embedding(tmp_path, np.zeros((3, 2)), label_img=np.ones((3, 1, 10, 4)))
    sprite = sprite_pixels((tmp_path / "00000" / "default" / "sprite.png").read_bytes())
    assert sprite.shape == (20, 8, 3)
    assert sprite[:20, :4].all() and sprite[:10, 4:].all() and not sprite[10:, 4:].any()
    config = read_config(tmp_path / "projector_config.pbtxt")
    assert list(config.embeddings[0].sprite.single_image_dim) == [4, 10]


def test_rewriting_a_step_and_tag_warns_and_replaces_the_entry(tmp_path: Path) -> None:
    write_embedding(tmp_path, np.zeros((2, 2)), global_step=1)
    write_embedding(tmp_path, np.zeros((2, 2)), global_step=2)
    with pytest.warns(UserWarning, match=r"add_embedding: .*00001.* exists .* global_step"):
        write_embedding(tmp_path, np.ones((2, 2)), global_step=1, metadata=["a", "b"])
    config = read_config(tmp_path / "projector_config.pbtxt")
    assert [entry.tensor_name for entry in config.embeddings] == ["default:00001", "default:00002"]
    assert config.embeddings[0].metadata_path == "00001/default/metadata.tsv"
    assert (tmp_path / "00001" / "default" / "tensors.tsv").read_bytes() == b"1.0\t1.0\n1.0\t1.0\n"


def test_config_from_an_earlier_process_is_kept(tmp_path: Path) -> None:
    torch_embeddings(tmp_path, [{"mat": torch.randn(2, 2), "tag": "old"}])
    write_embedding(tmp_path, np.zeros((2, 2)), tag="new")
    config = read_config(tmp_path / "projector_config.pbtxt")
    assert [entry.tensor_name for entry in config.embeddings] == ["old:00000", "new:00000"]
    assert not [path for path in tmp_path.iterdir() if path.name.endswith(".tmp")]


def test_an_unreadable_config_is_replaced_with_a_warning(tmp_path: Path) -> None:
    (tmp_path / "projector_config.pbtxt").write_text("this is { not a config")
    with pytest.warns(UserWarning, match="could not be read"):
        write_embedding(tmp_path, np.zeros((2, 2)))
    assert [entry.tensor_name for entry in read_config(tmp_path / "projector_config.pbtxt").embeddings] == [
        "default:00000"
    ]


def test_dot_tags_stay_inside_the_step_directory(tmp_path: Path) -> None:
    assert encode_tag("..") == "%2e%2e"
    assert encode_tag("a/b%c\\d") == "a%2fb%25c%5cd"
    write_embedding(tmp_path, np.zeros((1, 1)), tag="..")
    assert (tmp_path / "00000" / "%2e%2e" / "tensors.tsv").is_file()
    assert read_config(tmp_path / "projector_config.pbtxt").embeddings[0].tensor_name == "..:00000"


def test_a_file_in_the_way_is_not_a_directory_error(tmp_path: Path) -> None:
    (tmp_path / "00000").mkdir()
    (tmp_path / "00000" / "default").write_text("")
    with pytest.raises(NotADirectoryError, match="add_embedding"):
        write_embedding(tmp_path, np.zeros((1, 1)))


@pytest.mark.parametrize(
    ("arguments", "error", "message"),
    [
        ({"mat": np.zeros(3)}, ValueError, r"add_embedding: mat must be 2-D .* shape \(3,\)"),
        ({"mat": np.zeros((2, 2, 2))}, ValueError, r"add_embedding: mat must be 2-D"),
        ({"mat": np.array([["a"]])}, TypeError, r"add_embedding: mat must hold numbers"),
        ({"mat": "abc"}, TypeError, r"add_embedding: mat must be"),
        ({"mat": np.zeros((2, 2), dtype=complex)}, TypeError, r"add_embedding: mat must hold real numbers"),
        ({"metadata": ["a"]}, ValueError, r"add_embedding: metadata has 1 labels but mat has 2 rows"),
        ({"metadata": "ab"}, TypeError, r"add_embedding: metadata must be a list"),
        ({"metadata": 3}, TypeError, r"add_embedding: metadata must be a list"),
        (
            {"metadata": [[1, 2], [3]], "metadata_header": ["a", "b"]},
            ValueError,
            r"add_embedding: metadata row 1 has 1 values but metadata_header names 2 columns",
        ),
        ({"metadata": [[1], [2]], "metadata_header": "ab"}, TypeError, r"add_embedding: metadata_header must be"),
        ({"label_img": np.zeros((2, 3, 4))}, ValueError, r"add_embedding: label_img must be 4-D \(N, C, H, W\)"),
        ({"label_img": np.zeros((3, 3, 4, 4))}, ValueError, r"add_embedding: label_img has 3 images but mat has 2"),
        ({"label_img": np.zeros((2, 2, 4, 4))}, ValueError, r"add_embedding: label_img must have 1 or 3 channels"),
        ({"label_img": np.zeros((2, 3, 0, 4))}, ValueError, r"add_embedding: label_img must hold at least one"),
        ({"global_step": 1.5}, ValueError, r"add_embedding: global_step must be an integer"),
        ({"tag": ""}, ValueError, r"add_embedding: tag must be a non-empty string"),
        ({"tag": 3}, TypeError, r"add_embedding: tag must be a non-empty string"),
    ],
)
def test_bad_arguments_are_named_and_write_nothing(
    tmp_path: Path, arguments: dict, error: type[Exception], message: str
) -> None:
    call = {"mat": np.zeros((2, 2))} | arguments
    with pytest.raises(error, match=message):
        write_embedding(tmp_path, **call)
    assert list(tmp_path.iterdir()) == []


def test_works_without_torch(tmp_path: Path) -> None:
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "import numpy as np\n"
        "from ridgeline.writer.embedding import write_embedding\n"
        "write_embedding(sys.argv[1], np.zeros((2, 2)), ['a', 'b'], np.zeros((2, 1, 2, 2)))\n"
    )
    subprocess.run([sys.executable, "-c", code, str(tmp_path)], check=True)
    assert (tmp_path / "00000" / "default" / "sprite.png").is_file()
