"""The settings table (ridgeline.settings) as users meet it: every setting's environment variable reaches what
the command does, the command line wins over the environment, the server answers its settings at
``/api/settings`` (a running one: tests/cli/test_serve.py), and the token never shows there."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner, Result
from fastapi.testclient import TestClient

import ridgeline
from ridgeline.cli import COMMANDS, main
from ridgeline.server import create_app
from ridgeline.settings import SETTINGS, for_command
from tests.conftest import write_ridgeline_run


def settings_of(*args: str, env: dict[str, str | None] | None = None) -> dict[str, dict[str, object]]:
    """``/api/settings`` of ``ridgeline serve ARGS --get`` in-process (no RIDGELINE_* variables but ``env``)."""
    done = get_settings(*args, env=env)
    assert done.exit_code == 0, done.stderr
    found: dict[str, dict[str, object]] = json.loads(done.stdout)["settings"]
    return found


def get_settings(*args: str, env: dict[str, str | None] | None = None) -> Result:
    unset: dict[str, str | None] = {setting.env_var: None for setting in SETTINGS}
    return CliRunner().invoke(
        main, ["serve", *args, "--get", "/api/settings"], env={**unset, **(env or {})}, catch_exceptions=False
    )


def a_value(name: str, tmp_path: Path) -> tuple[str, object]:
    """A value other than the default for setting ``name``: as the environment spells it, and as answered."""
    config = tmp_path / f"{name}.toml"
    config.write_text("", encoding="utf-8")
    samples: dict[str, tuple[str, object]] = {
        "port": ("7007", 7007),
        "host": ("0.0.0.0", "0.0.0.0"),
        "reload_interval": ("0.5", 0.5),
        "no_cache": ("1", True),
        "no_checksum": ("yes", True),
        "token": ("s3cret-token", None),
        "allow_host": ("runs.lab box.lab", ["runs.lab", "box.lab"]),
        "alerts_config": (str(config), str(config)),
        "diagnosis_config": (str(config), str(config)),
        "cache_dir": (str(tmp_path / "cache"), str(tmp_path / "cache")),
        "store": (str(tmp_path / "store"), str(tmp_path / "store")),
        "retention": ("--older-than 3650d", "--older-than 3650d"),
        "path_prefix": ("/ridgeline", "/ridgeline"),
        "crashed_after": ("60", 60.0),
    }
    return samples[name]


def test_every_setting_of_serve_comes_from_its_environment_variable(tmp_path: Path) -> None:
    names = {setting.name for setting in for_command("serve")} | {"cache_dir"}
    defaults = settings_of("--logdir", str(tmp_path))
    assert set(defaults) == {setting.name for setting in SETTINGS}
    for setting in SETTINGS:
        if setting.name not in names:
            continue
        spelled, answered = a_value(setting.name, tmp_path)
        found = settings_of("--logdir", str(tmp_path), env={setting.env_var: spelled})[setting.name]
        assert found["env_var"] == setting.env_var
        assert found["is_set"] is True
        if setting.secret:
            assert found["value"] is None and defaults[setting.name]["is_set"] is False
        else:
            assert found["value"] == answered != defaults[setting.name]["value"], setting.name


def test_every_setting_a_command_takes_is_an_option_with_its_environment_variable() -> None:
    for name in COMMANDS:
        command = main.get_command(click.Context(main), name)
        assert command is not None
        options = {param.name: param for param in command.params}
        for setting in for_command(name):
            option = options[setting.name]
            assert isinstance(option, click.Option)
            assert option.opts[0] == setting.option and option.envvar == setting.env_var, (name, setting.name)


def test_the_command_line_wins_over_the_environment(tmp_path: Path) -> None:
    found = settings_of("--logdir", str(tmp_path), "--port", "8008", env={"RIDGELINE_PORT": "7007"})
    assert found["port"]["value"] == 8008


def test_a_bad_environment_value_is_a_usage_error_naming_the_variable(tmp_path: Path) -> None:
    done = get_settings("--logdir", str(tmp_path), env={"RIDGELINE_RELOAD_INTERVAL": "often"})
    assert done.exit_code == 2 and "RIDGELINE_RELOAD_INTERVAL" in done.stderr and "Traceback" not in done.stderr


def test_the_token_is_never_shown(tmp_path: Path) -> None:
    for args, env in ((("--token", "s3cret-token"), {}), ((), {"RIDGELINE_TOKEN": "s3cret-token"})):
        done = get_settings("--logdir", str(tmp_path), *args, env=env)
        assert done.exit_code == 0, done.stderr
        assert "s3cret-token" not in done.stdout
        token = json.loads(done.stdout)["settings"]["token"]
        assert token["is_set"] is True and token["value"] is None and token["secret"] is True


def test_the_environment_reaches_the_reading_commands(tmp_path: Path) -> None:
    """RIDGELINE_CACHE_DIR moves the persistent cache; RIDGELINE_NO_CACHE turns it off (for every reading command)."""
    write_ridgeline_run(tmp_path / "logs" / "exp1", {"loss": [(0, 1.0), (1, 0.5)]})
    cache = tmp_path / "cache"
    runner = CliRunner()
    base = {setting.env_var: None for setting in SETTINGS}
    off = runner.invoke(
        main,
        ["search", "loss", "--logdir", str(tmp_path / "logs")],
        env={**base, "RIDGELINE_CACHE_DIR": str(cache), "RIDGELINE_NO_CACHE": "1"},
    )
    assert off.exit_code == 0, off.stderr
    assert not cache.exists()
    on = runner.invoke(
        main, ["search", "loss", "--logdir", str(tmp_path / "logs")], env={**base, "RIDGELINE_CACHE_DIR": str(cache)}
    )
    assert on.exit_code == 0, on.stderr
    assert list(cache.iterdir())
    assert settings_of("--logdir", str(tmp_path), env={"RIDGELINE_CACHE_DIR": str(cache)})["cache_dir"]["value"] == (
        str(cache)
    )


@pytest.mark.parametrize("token", [None, "app-token"])
def test_an_app_made_in_code_answers_its_own_settings(tmp_path: Path, token: str | None) -> None:
    app = create_app(ridgeline.open(tmp_path, cache=False), token=token)
    headers = {"authorization": f"Bearer {token}"} if token else {}
    with TestClient(app) as client:
        found = client.get("/api/settings", headers=headers).json()["settings"]
    assert found["reload_interval"]["value"] == 0.0  # no reload_interval: read once
    assert found["token"]["is_set"] is (token is not None) and found["token"]["value"] is None
    assert found["port"]["value"] == found["port"]["default"] == 6006
