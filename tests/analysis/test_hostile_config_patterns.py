"""The tag patterns of alert and diagnosis config files go through RE2 with the same length limit as every other
pattern: a config copied from elsewhere cannot freeze the alert monitor or the diagnosis, and what RE2 cannot
compile is refused at load with a message naming the rule or setting.

The catastrophic pattern is matched in a subprocess, so that a regression (Python's ``re`` backtracking for
hours) fails the test after a generous limit instead of hanging the suite.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from ridgeline.analysis.alert_config import MAX_PATTERN, AlertConfig
from ridgeline.analysis.diagnosis.config import DiagnosisConfig
from ridgeline.analysis.diagnosis.roles import pairing_key
from tests.conftest import WAIT_S

CATASTROPHIC = r"^(([a-z_/]+)*)*!"
MATCH_IN_A_SUBPROCESS = f"""
from ridgeline.analysis.alert_config import AlertConfig
from ridgeline.analysis.diagnosis.config import DiagnosisConfig
tag = "train/" + "a" * 60
config = AlertConfig.from_mapping({{"rules": [{{"tag": {CATASTROPHIC!r}, "k": 5.0}}]}})
print(config.params_for(tag).k)
patterns = DiagnosisConfig.from_mapping({{"loss": {CATASTROPHIC!r}}}).compiled()
print(bool(patterns.loss.search(tag)))
"""


def test_a_catastrophic_pattern_in_a_config_file_matches_in_linear_time() -> None:
    done = subprocess.run(
        [sys.executable, "-c", MATCH_IN_A_SUBPROCESS], capture_output=True, text=True, timeout=WAIT_S, check=True
    )
    assert done.stdout.split() == ["3.0", "False"]  # no match, so the default k; the loss pattern does not match


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [("(?=loss)", "invalid perl operator"), (r"(a)\1", "invalid escape"), ("x" * (MAX_PATTERN + 1), "at most 2,000")],
)
def test_patterns_re2_cannot_compile_are_refused_naming_where(pattern: str, reason: str) -> None:
    with pytest.raises(ValueError, match=rf"alert config: rule 2: invalid tag regex .*{reason}"):
        AlertConfig.from_mapping({"rules": [{"tag": "loss"}, {"tag": pattern}]})
    with pytest.raises(ValueError, match=rf"diagnosis config: 'gradient': .* does not compile: .*{reason}"):
        DiagnosisConfig.from_mapping({"gradient": pattern})


def test_a_pattern_at_the_limit_is_accepted() -> None:
    pattern = "^loss$|" + "x" * (MAX_PATTERN - len("^loss$|"))
    config = AlertConfig.from_mapping({"rules": [{"tag": pattern, "k": 4.0}]})
    assert config.params_for("loss").k == 4.0


@pytest.mark.parametrize(
    ("train", "validation"),
    [
        ("train/loss", "val/loss"),
        ("loss_train", "loss_valid"),
        ("a/train/loss", "a/eval/loss"),
        ("Training Loss", "Validation Loss"),
        ("loss:trn", "loss:holdout"),
    ],
)
def test_the_default_train_and_validation_patterns_pair_names_without_lookaround(train: str, validation: str) -> None:
    patterns = DiagnosisConfig().compiled()
    assert patterns.train.search(train) and not patterns.validation.search(train)
    assert patterns.validation.search(validation) and not patterns.train.search(validation)
    assert pairing_key(train, patterns.train) == pairing_key(validation, patterns.validation)
    assert not patterns.train.search("constrained/loss") and not patterns.validation.search("interval/loss")
