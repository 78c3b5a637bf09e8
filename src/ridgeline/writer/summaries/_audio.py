"""Audio: mono samples as a 16-bit PCM WAV clip."""

from __future__ import annotations

import io
import warnings
import wave
from typing import Any

import numpy as np

from ridgeline.writer.summaries._common import Summary, _finite_positive, _real_array
from ridgeline.writer.values import check_tag

_INT16_MAX = 32767


def audio(tag: str, snd_tensor: Any, sample_rate: float = 44100, *, method: str = "add_audio") -> Summary:
    """Mono 16-bit PCM WAV from samples in [-1, 1] (shape (L,) or (1, L)); louder samples are clipped."""
    check_tag(tag, method=method)
    rate = _finite_positive(sample_rate, method=method, argument="sample_rate")
    if not 1 <= round(rate) < 2**31:
        raise ValueError(f"{method}: sample_rate must be between 1 and 2**31 - 1 Hz, got {sample_rate!r}")
    raw = _real_array(snd_tensor, method=method, argument="snd_tensor")
    samples = raw.squeeze()
    if samples.ndim == 0:
        samples = samples.reshape(1)
    if samples.ndim != 1:
        raise ValueError(f"{method}: snd_tensor must be mono, of shape (L,) or (1, L); got shape {raw.shape}")
    if samples.size == 0:
        raise ValueError(f"{method}: snd_tensor is empty")
    if samples.dtype.kind in "biu" or samples.dtype == np.float16:
        # Integers are the same in float64. float16 is widened: in float16 itself, as torch computes it,
        # 1.0 * 32767 rounds to 32768 and wraps to -32768.
        samples = samples.astype(np.float64 if samples.dtype.kind in "biu" else np.float32)
    nan = np.isnan(samples)
    if nan.any():
        samples = np.where(nan, samples.dtype.type(0), samples)
        warnings.warn(f"{method}: snd_tensor has NaN samples; they were written as 0", UserWarning, stacklevel=3)
    if np.abs(samples).max() > 1:
        warnings.warn(f"{method}: snd_tensor has samples outside [-1, 1]; they were clipped", UserWarning, stacklevel=3)
        samples = samples.clip(-1, 1)
    pcm = (samples * _INT16_MAX).astype("<i2")  # same dtype arithmetic and truncation as torch
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(sample_rate)
        wav.writeframes(pcm.tobytes())
    sound = Summary.Audio(
        sample_rate=rate,
        num_channels=1,
        length_frames=pcm.size,
        encoded_audio_string=buffer.getvalue(),
        content_type="audio/wav",
    )
    return Summary(value=[Summary.Value(tag=tag, audio=sound)])
