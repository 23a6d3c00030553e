"""The project as a newcomer meets it: home page, health check, admin, API docs, deploy check."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.django_db


def test_home_page_says_what_the_product_is_and_links_to_what_exists(client):
    response = client.get("/")
    assert response.status_code == 200
    text = response.content.decode()
    assert "Set, Set War and the Square Game" in text
    for link in ("/api/docs/", "/api/schema/", "/admin/", "/healthz"):
        assert f'href="{link}"' in text


def test_healthz_answers_ok_with_the_database(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json()["status"] == "ok"


def test_admin_requires_staff(client, django_user_model):
    response = client.get("/admin/")
    assert response.status_code == 302
    assert "/admin/login/" in response["Location"]
    user = django_user_model.objects.create_user("bob", password="x" * 12)
    client.force_login(user)
    assert client.get("/admin/games/game/").status_code == 302  # not staff
    admin = django_user_model.objects.create_superuser("root", password="x" * 12)
    client.force_login(admin)
    assert client.get("/admin/games/game/").status_code == 200


def test_openapi_schema_documents_the_toolkit(client):
    response = client.get("/api/schema/", HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    schema = response.json()
    for route in ("/api/set/check", "/api/set/find", "/api/set/solitaire", "/api/games/"):
        assert route in schema["paths"], route


def test_swagger_ui_is_served_from_the_project_not_a_cdn(server):
    """Through the real server, as `make run` serves it: every asset comes from the project."""
    import httpx

    with httpx.Client(base_url=server.url, timeout=10) as http:
        response = http.get("/api/docs/")
        assert response.status_code == 200
        html = response.text
        external = re.findall(r'(?:src|href)="(https?://[^"]+)"', html)
        assert external == []
        assets = re.findall(r'(?:src|href)="(/static/[^"]+)"', html)
        assert any(asset.endswith(".js") for asset in assets), "Swagger UI scripts are referenced"
        for asset in assets:
            assert http.get(asset).status_code == 200, asset
        css = http.get("/static/css/site.css")
        assert css.status_code == 200 and "text/css" in css.headers["content-type"]


def test_production_settings_pass_check_deploy():
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings_production",
        DJANGO_SECRET_KEY="k" * 20 + "-production-secret-for-the-deploy-check-0123456789",
        DJANGO_ALLOWED_HOSTS="games.example.org",
    )
    result = in_project(["manage.py", "check", "--deploy", "--fail-level", "WARNING"], env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def in_project(args: list[str], env: dict) -> subprocess.CompletedProcess:
    """`python <args>` in the project's folder, a process of its own with this environment."""
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


def manage_check(env: dict) -> subprocess.CompletedProcess:
    """`manage.py check` in a process of its own with this environment."""
    return in_project(["manage.py", "check"], env)


def test_a_server_started_with_a_setting_that_cannot_be_says_so_in_one_line():
    env = {**os.environ, "SHUTDOWN_GRACE_S": "ten"}
    env.pop("DATABASE_URL", None)
    result = in_project(["-m", "config.server", "-p", "0", "config.asgi:application"], env)
    assert result.returncode != 0
    assert result.stderr.strip() == (
        "Cannot start: SHUTDOWN_GRACE_S must be a number of at least 0, not 'ten'."
    )


def test_production_settings_refuse_an_hsts_age_that_is_not_a_number_with_its_name():
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings_production",
        DJANGO_ALLOWED_HOSTS="x.org",
        DJANGO_SECRET_KEY="k" * 60,
        DJANGO_HSTS_SECONDS="a year",
    )
    result = manage_check(env)
    assert result.returncode != 0
    last = result.stderr.strip().splitlines()[-1]
    assert "DJANGO_HSTS_SECONDS must be a whole number of at least 0, not 'a year'" in last


def test_production_settings_refuse_to_start_without_a_secret_key():
    env = dict(os.environ)
    env.pop("DJANGO_SECRET_KEY", None)
    env.update(DJANGO_SETTINGS_MODULE="config.settings_production", DJANGO_ALLOWED_HOSTS="x.org")
    result = manage_check(env)
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY" in result.stderr


@pytest.mark.parametrize(
    "name, value, said",
    [
        ("REDIS_LAYER_SHARDS", "0", "REDIS_LAYER_SHARDS must be a whole number of at least 1"),
        ("GAME_STREAMS_MAX_OPEN", "many", "GAME_STREAMS_MAX_OPEN must be a whole number"),
        ("LOBBY_HEARTBEAT_S", "20s", "LOBBY_HEARTBEAT_S must be a number, not '20s'"),
        ("SHUTDOWN_GRACE_S", "ten", "SHUTDOWN_GRACE_S must be a number of at least 0"),
    ],
)
def test_a_setting_that_is_not_a_number_stops_the_start_with_its_name(name, value, said):
    env = {**os.environ, "REDIS_URL": "redis://127.0.0.1:6379/0", name: value}
    env.pop("DATABASE_URL", None)
    result = manage_check(env)
    assert result.returncode != 0
    assert said in result.stderr.strip().splitlines()[-1], result.stderr[-500:]


def test_sqlite_runs_in_wal_mode_with_immediate_transactions():
    from django.db import connection

    if connection.vendor != "sqlite":
        pytest.skip("DATABASE_URL selects another database")
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA journal_mode")
        assert cursor.fetchone()[0].lower() == "wal"
    assert connection.settings_dict["OPTIONS"]["transaction_mode"] == "IMMEDIATE"
