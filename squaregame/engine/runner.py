"""Run test files of the original format and report per file (what ``squaretest`` prints).

Kept free of Django so that it can be tested and reused on its own; the management command
only parses arguments and prints :attr:`SuiteReport.lines`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from squaregame.engine.errors import SaveFormatError
from squaregame.engine.saves import TestResult, check_test, read_json, run_test_file


@dataclass(frozen=True)
class SuiteReport:
    """Hold the results of a run, one per test file, in the order they ran."""

    results: tuple[TestResult, ...]

    @property
    def passed(self) -> bool:
        """Say whether every test file passed."""
        return all(result.passed for result in self.results)

    @property
    def failures(self) -> int:
        """Return how many test files failed."""
        return sum(not result.passed for result in self.results)

    @property
    def lines(self) -> list[str]:
        """Return one PASS/FAIL line per file with its expected and actual statuses."""
        return [
            f"{'PASS' if r.passed else 'FAIL'} {r.name}: expected {r.expected}, actual {r.actual}"
            for r in self.results
        ]

    @property
    def summary(self) -> str:
        """Return a one-line count of passes and failures."""
        total = len(self.results)
        return f"{total - self.failures} of {total} test files passed"


def collect(paths: Iterable[str | Path]) -> list[Path]:
    """Return the test files named by ``paths``: files as given, and every ``*.json`` in a folder.

    Raise :class:`SaveFormatError` for a path that does not exist or a folder without tests.
    """
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = sorted(path.glob("*.json"))
            if not found:
                raise SaveFormatError(f"{path}: no .json test files in this folder")
            files.extend(found)
        elif path.exists():
            files.append(path)
        else:
            raise SaveFormatError(f"{path}: no such file or folder")
    if not files:
        raise SaveFormatError("no test files given")
    return files


def run_suite(paths: Iterable[str | Path], players: int | None = None) -> SuiteReport:
    """Run every test file named by ``paths`` with ``players`` seats (4 when ``None``).

    Every file is read and checked first, so a missing or malformed one stops the run before
    anything is played: :class:`SaveFormatError` names it, in one line.
    """
    tests = []
    for path in collect(paths):
        data = read_json(path)
        check_test(data, str(path))
        tests.append((path, data))
    results = []
    for path, data in tests:
        result = run_test_file(data, players)
        results.append(
            TestResult(result.passed, result.expected, result.actual, str(path), result.state)
        )
    return SuiteReport(tuple(results))
