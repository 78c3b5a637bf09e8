"""The alert settings: built-in rules per tag name, user rules (first match wins), the table a TOML/JSON
settings file holds (read the way the CLI reads it), and clear errors for bad settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from ridgeline.analysis.alert_config import AlertConfig, DetectorParams
from ridgeline.settings_files import read_table


@pytest.mark.parametrize(
    ("tag", "direction"),
    [
        ("train/loss", "up"),
        ("val_nll", "up"),
        ("eval/perplexity", "up"),
        ("grad_norm/fc1", "up"),
        ("train/accuracy", "down"),
        ("val/top5", "down"),
        ("eval/f1", "down"),
        ("sys/gpu_util", "both"),
    ],
)
def test_built_in_directions_follow_the_tag_name(tag: str, direction: str) -> None:
    assert AlertConfig().params_for(tag).direction == direction


def test_rules_first_match_wins_and_config_files(tmp_path: Path) -> None:
    config = AlertConfig.from_mapping(
        {
            "default": {"window": 100},
            "rules": [
                {"tag": "^val/", "consecutive": 5, "spike": False},
                {"tag": "val", "k": 4.5},
            ],
        }
    )
    assert config.params_for("val/loss") == DetectorParams(window=100, consecutive=5, spike=False)
    assert config.params_for("train/val_loss") == DetectorParams(window=100, k=4.5)
    assert config.params_for("train/loss") == DetectorParams(window=100, direction="up")  # built in, after them
    assert config.params_for("train/lr").outlier is False  # the built-in learning-rate rule, after the given ones
    toml = tmp_path / "alerts.toml"
    toml.write_text('[default]\nk = 4\n\n[[rules]]\ntag = "loss"\nwindow = 20\n', encoding="utf-8")
    from_toml = AlertConfig.from_mapping(read_table(toml, "alert config"))
    assert from_toml.params_for("train/loss") == DetectorParams(window=20, k=4.0)
    assert from_toml.params_for("sys/temperature") == DetectorParams(k=4.0)
    json_file = tmp_path / "alerts.json"
    json_file.write_text('{"rules": [{"tag": "acc", "stalled": false}], "builtin_rules": false}', encoding="utf-8")
    loaded = AlertConfig.from_mapping(read_table(json_file, "alert config"))
    assert loaded.params_for("acc").stalled is False and loaded.params_for("lr").outlier is True


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"default": {"window": 1}}, "'window' must be an integer >= 2"),
        ({"default": {"k": "3"}}, "'k' must be a float"),
        ({"default": {"consecutive": 2.5}}, "'consecutive' must be an integer"),
        ({"default": {"outlier": 1}}, "'outlier' must be a bool"),
        ({"default": {"windw": 3}}, "unknown setting(s) ['windw']"),
        ({"rules": [{"window": 3}]}, "rule 1 needs a 'tag'"),
        ({"rules": [{"tag": "("}]}, "rule 1: invalid tag regex"),
        ({"rulez": []}, "unknown key(s) ['rulez']"),
        ({"default": {"direction": "sideways"}}, "'direction' must be one of ['both', 'up', 'down']"),
    ],
)
def test_bad_config_is_a_clear_error(data: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError) as raised:
        AlertConfig.from_mapping(data)
    assert message in str(raised.value)
