"""The engines are pure Python: no module in them imports Django, DRF or Channels."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FORBIDDEN = {"django", "rest_framework", "channels"}
PURE = [
    ROOT / "cards" / "engine",
    ROOT / "squaregame" / "engine",
    ROOT / "cards" / "tuples.py",
    ROOT / "cards" / "solitaire.py",
    ROOT / "cards" / "simulate.py",
]


def pure_modules() -> list[Path]:
    modules = []
    for place in PURE:
        if place.is_dir():
            modules += sorted(place.rglob("*.py"))
        elif place.exists():
            modules.append(place)
    return modules


def imported_roots(path: Path) -> set[str]:
    roots = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            roots |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            roots.add(node.module.split(".")[0])
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", getattr(node.func, "id", None))
            in ("import_module", "__import__")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            roots.add(node.args[0].value.split(".")[0])
    return roots


def test_the_set_engine_is_there():
    names = {path.name for path in pure_modules()}
    assert {"card.py", "rules.py", "fast.py", "tuples.py", "solitaire.py"} <= names


@pytest.mark.parametrize("path", pure_modules(), ids=lambda path: str(path.relative_to(ROOT)))
def test_no_engine_module_imports_the_web_stack(path):
    assert not imported_roots(path) & FORBIDDEN
