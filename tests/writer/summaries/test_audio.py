"""audio against torch's: the same WAV bytes, with clipping and NaN handled as torch does (and said)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch
from torch.utils.tensorboard import summary as torch_summary

from ridgeline.writer import summaries
from tests.writer.summaries.helpers import assert_same


@pytest.mark.parametrize(
    "samples",
    [
        np.sin(np.linspace(0, 20, 1000)).astype(np.float32),
        np.sin(np.linspace(0, 20, 999)).reshape(1, -1),
        np.array([-1.0, 1.0, 0.0, 0.5]),
        torch.rand(1, 300) * 2 - 1,
        np.array([0, 1, -1, 0]),
    ],
)
@pytest.mark.parametrize("rate", [44100, 8000, 22050.4])
def test_audio_matches_torch(samples: Any, rate: float) -> None:
    assert_same(summaries.audio("a", samples, sample_rate=rate), torch_summary.audio("a", samples, sample_rate=rate))


def test_audio_clips_like_torch_with_a_warning(capsys: pytest.CaptureFixture[str]) -> None:
    samples = np.linspace(-3, 3, 101)
    theirs = torch_summary.audio("a", samples)
    assert "auto clipped" in capsys.readouterr().out
    with pytest.warns(UserWarning, match="add_audio: snd_tensor has samples outside"):
        ours = summaries.audio("a", samples)
    assert_same(ours, theirs)


def test_audio_nan_is_silence() -> None:
    with pytest.warns(UserWarning, match="add_audio: snd_tensor has NaN samples"):
        ours = summaries.audio("a", np.array([np.nan, 0.5]))
    pcm = np.frombuffer(ours.value[0].audio.encoded_audio_string[44:], "<i2")
    np.testing.assert_array_equal(pcm, [0, 16383])


def test_audio_float16_does_not_wrap() -> None:
    ours = summaries.audio("a", np.array([1.0, -1.0], dtype=np.float16))
    pcm = np.frombuffer(ours.value[0].audio.encoded_audio_string[44:], "<i2")
    np.testing.assert_array_equal(pcm, [32767, -32767])
