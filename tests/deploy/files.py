"""What deploy/'s files say: the commands of the systemd units and of compose.yaml, the
environment file, and nginx's configuration as deploy/nginx-config.sh renders it (the units'
commands and the rendering are deploy/loopback.py's, which the load benchmark shares)."""

from __future__ import annotations

from pathlib import Path

import yaml

from deploy.loopback import (  # noqa: F401 - this module's names for the tests
    DEPLOY,
    SETUP_UNIT,
    TEMPLATE,
    UNIT,
    daphne_options,
    nginx_config,
    unit_commands,
)

ENV_EXAMPLE = DEPLOY / "setgames.env.example"
COMPOSE = DEPLOY / "compose.yaml"


def unit_setting(path: Path, name: str) -> str:
    return next(
        line.split("=", 1)[1]
        for line in path.read_text().splitlines()
        if line.startswith(f"{name}=")
    )


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
