"""Run every benchmark in bench/ (bench_*.py), one after the other, and print their figures.

Benchmarks never run inside the test suite; `make bench` calls this file.
Pass names to run a subset: `python bench/run_all.py set_engine setwar`.
"""

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv: list[str]) -> int:
    wanted = set(argv)
    scripts = sorted(HERE.glob("bench_*.py"))
    if wanted:
        scripts = [s for s in scripts if s.stem.removeprefix("bench_") in wanted]
    failed = []
    for script in scripts:
        print(f"\n=== {script.stem} ===", flush=True)
        start = time.perf_counter()
        code = subprocess.call([sys.executable, str(script)], cwd=HERE.parent)
        print(f"--- {script.stem}: {time.perf_counter() - start:.1f} s, exit {code}", flush=True)
        if code:
            failed.append(script.stem)
    if failed:
        print(f"\nFailed benchmarks: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
