"""Fixtures for the Square Game tests: where the test files live, and a few known games."""

from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
JSON_TESTS = HERE / "json"


def repo_root() -> Path:
    """Return the project root (the folder holding manage.py) above this file."""
    for folder in HERE.parents:
        if (folder / "manage.py").exists():
            return folder
    return HERE.parents[1]


#: The original simulator's 8 test files sit beside the project: <root>/../shared/squareplay-tests
SHARED_TESTS = repo_root().parent / "shared" / "squareplay-tests"


@pytest.fixture
def shared_tests() -> Path:
    """Return the folder of the original 8 test files; skip if this checkout lacks it."""
    if not SHARED_TESTS.is_dir():
        pytest.skip(f"the original Square Game tests are not at {SHARED_TESTS}")
    return SHARED_TESTS


@pytest.fixture
def json_tests() -> Path:
    """Return the folder of this project's own test files in the original format."""
    return JSON_TESTS
