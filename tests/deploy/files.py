"""What deploy/'s files say: the commands of the systemd units and of compose.yaml, the
environment file, and nginx's configuration as deploy/nginx-config.sh renders it."""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent.parent
DEPLOY = ROOT / "deploy"
UNIT = DEPLOY / "systemd" / "setgames@.service"
SETUP_UNIT = DEPLOY / "systemd" / "setgames-setup.service"
ENV_EXAMPLE = DEPLOY / "setgames.env.example"
TEMPLATE = DEPLOY / "nginx" / "setgames.conf.template"
COMPOSE = DEPLOY / "compose.yaml"


def unit_commands(path: Path) -> list[list[str]]:
    """Each ExecStart= line of a unit, split as systemd splits it."""
    return [
        shlex.split(line.split("=", 1)[1])
        for line in path.read_text().splitlines()
        if line.startswith("ExecStart=")
    ]


def unit_setting(path: Path, name: str) -> str:
    return next(
        line.split("=", 1)[1]
        for line in path.read_text().splitlines()
        if line.startswith(f"{name}=")
    )


def daphne_options() -> list[str]:
    """daphne's options in setgames@.service before its address (`-b 127.0.0.1 -p %i`)."""
    (command,) = unit_commands(UNIT)
    return command[3 : command.index("-b")]


def env_file(path: Path = ENV_EXAMPLE) -> dict[str, str]:
    """KEY=value lines (comments and blank lines aside), as systemd and compose read them."""
    values = {}
    for line in path.read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            key, value = line.split("=", 1)
            values[key.strip()] = value.strip()
    return values


def compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text())


def nginx_config(env: dict[str, str]) -> str:
    """deploy/nginx-config.sh's output for `env` (the environment file's values)."""
    return subprocess.run(
        [str(DEPLOY / "nginx-config.sh")],
        env={"PATH": os.environ["PATH"], **env},
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    ).stdout
