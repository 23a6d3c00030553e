"""The engine as a library: pure Python, documented by examples that run."""

import ast
import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

import squaregame.engine

ENGINE = Path(squaregame.engine.__file__).resolve().parent
FORBIDDEN = ("django", "rest_framework", "channels")
MODULES = sorted(
    f"squaregame.engine.{info.name}" for info in pkgutil.iter_modules([str(ENGINE)])
) + ["squaregame.engine"]


def test_the_engine_imports_nothing_from_django_drf_or_channels():
    for path in ENGINE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            for name in names:
                assert name.split(".")[0] not in FORBIDDEN, f"{path.name} imports {name}"


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_the_public_api_is_exported():
    for name in squaregame.engine.__all__:
        assert hasattr(squaregame.engine, name), name
    for name in (
        "new_game",
        "apply",
        "legal_placements",
        "view",
        "to_save_json",
        "from_save_json",
        "run_test_file",
        "choose_move",
    ):
        assert callable(getattr(squaregame.engine, name))
