"""deploy/'s files agree: the systemd units and compose.yaml start the same processes with the same
environment file, and that file names everything nginx's template needs (no process started)."""

from __future__ import annotations

import re
import shlex
import shutil

import pytest

from tests.deploy import files


def test_the_unit_starts_daphne_behind_the_proxy_on_its_port():
    (command,) = files.unit_commands(files.UNIT)
    assert command[0] == "/srv/setgames/.venv/bin/python"
    assert command[1:3] == ["-m", "config.server"]
    assert "--proxy-headers" in files.daphne_options()
    assert command[-5:] == ["-b", "127.0.0.1", "-p", "%i", "config.asgi:application"]
    assert files.unit_setting(files.UNIT, "EnvironmentFile") == "/etc/setgames/setgames.env"
    assert files.unit_setting(files.SETUP_UNIT, "EnvironmentFile") == "/etc/setgames/setgames.env"


def test_compose_starts_the_units_processes_with_the_same_environment_file():
    services = files.compose()["services"]
    (daphne,) = files.unit_commands(files.UNIT)
    for name, port in (("app1", "8001"), ("app2", "8002")):
        # The same command; only the address is the container's network, not loopback.
        expected = [
            {"127.0.0.1": "0.0.0.0", "%i": port}.get(word, word)
            for word in daphne  # noqa: S104
        ]
        assert services[name]["command"] == expected
        assert services[name]["env_file"] == "setgames.env"
    setup = " && ".join(shlex.join(line) for line in files.unit_commands(files.SETUP_UNIT))
    assert services["setup"]["command"] == ["sh", "-c", setup]
    assert services["setup"]["env_file"] == "setgames.env"
    assert services["nginx"]["env_file"] == "setgames.env"
    mounted = [volume.split(":")[0] for volume in services["nginx"]["volumes"]]
    assert "./nginx/setgames.conf.template" in mounted
    assert set(services) == {"postgres", "redis", "setup", "app1", "app2", "nginx"}


def test_the_environment_file_names_what_the_settings_and_nginx_read():
    env = files.env_file()
    assert env["DJANGO_SETTINGS_MODULE"] == "config.settings_production"
    for name in ("DJANGO_SECRET_KEY", "DJANGO_ALLOWED_HOSTS", "DATABASE_URL", "REDIS_URL"):
        assert name in env
    used = set(re.findall(r"\$\{([A-Z0-9_]+)\}", files.TEMPLATE.read_text()))
    assert used <= set(env), used - set(env)
    if shutil.which("envsubst") is None:  # Debian's gettext-base; `make deploy-check` has it
        pytest.skip("envsubst is not installed")
    rendered = files.nginx_config(env)
    assert "${" not in rendered
    assert "server 127.0.0.1:8001" in rendered and "server 127.0.0.1:8002" in rendered
    assert "$remote_addr" in rendered  # nginx's own variables are left alone
