"""Start the app under daphne on a free loopback port with a throwaway SQLite file (bench helper).

Used by bench/bench_server.py and bench/bench_load.py: `Server` runs `manage.py migrate` then
`daphne -b 127.0.0.1 -p <port> config.asgi:application` like `make run`, with DJANGO_DEBUG=0,
the rate limits off (RATE_LIMIT_JOINS=off, RATE_LIMIT_MOVES=off: a benchmark measures the
server, not the limiter) and its access log buffered (PYTHONUNBUFFERED unset); it waits for
/healthz, and always stops the process it started (terminate, then kill). `extra_env` points it
elsewhere (DATABASE_URL, REDIS_URL, ...); `migrate=False` skips the migration when another
server of the same database already ran it; `options` are more of daphne's (setgames@.service's
`--proxy-headers -v 0` behind a proxy).
"""

from __future__ import annotations

import collections
import contextlib
import ctypes
import http.client
import os
import re
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
CLK_TCK = os.sysconf("SC_CLK_TCK")
ACCESS_LINE = re.compile(r'^\S+:\d+ - - \[[^\]]*\] "')  # daphne's access log


def _die_with_parent() -> None:
    """In the child: get SIGTERM if the benchmark dies without stopping us (Linux only)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def raise_fd_limit(wanted: int = 8192) -> int:
    """Raise this process's open-file limit (inherited by the server); return the new soft limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        soft = target
    return soft


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (Linux /proc)."""
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def machine_busy_seconds() -> float:
    """CPU time all processes of the machine have used (Linux /proc/stat, all cores)."""
    with open("/proc/stat") as handle:
        fields = [int(value) for value in handle.readline().split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return (sum(fields[:8]) - idle) / CLK_TCK


def own_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class Server:
    """The app under daphne; use as a context manager so it is always stopped."""

    def __init__(
        self,
        app: str = "config.asgi:application",
        extra_env: dict | None = None,
        *,
        migrate: bool = True,
        options: list[str] | None = None,
    ) -> None:
        self.app = app
        self.migrate = migrate
        self.options = list(options or [])  # daphne's, before its address (e.g. --proxy-headers)
        self.python = sys.executable
        self.port = free_port()
        self.tmp = Path(tempfile.mkdtemp(prefix="bench-server-"))
        self.log_path = self.tmp / "server.log"
        self.proc: subprocess.Popen | None = None
        self.env = {
            **os.environ,
            "SQLITE_PATH": str(self.tmp / "bench.sqlite3"),
            "DJANGO_DEBUG": "0",
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "RATE_LIMIT_JOINS": "off",
            "RATE_LIMIT_MOVES": "off",
        }
        # PYTHONUNBUFFERED (set on some machines) would make daphne's access log one write(2)
        # per request to the log file, about 0.5 ms a request here; a server's log file is
        # written through Python's buffer, as under any process manager that does not set it.
        for name in ("DATABASE_URL", "REDIS_URL", "CHANNEL_PREFIX", "PYTHONUNBUFFERED"):
            self.env.pop(name, None)
        self.env.update(extra_env or {})

    @property
    def origin(self) -> str:
        return f"http://{HOST}:{self.port}"

    def __enter__(self) -> Server:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def start(self, timeout: float = 30.0) -> None:
        if self.migrate:
            self.run_migrate()
        log = open(self.log_path, "w")  # noqa: SIM115 - closed in stop() via the process
        self._log = log
        self.proc = subprocess.Popen(
            # daphne, as `make run` starts it (config/server.py)
            [self.python, "-m", "config.server", *self.options]
            + ["-b", HOST, "-p", str(self.port), self.app],
            cwd=ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # Ctrl-C reaches us, and we stop it in order
            preexec_fn=_die_with_parent,
        )
        give_up = time.monotonic() + timeout
        while time.monotonic() < give_up:
            if self.proc.poll() is not None:
                raise RuntimeError(f"daphne exited with {self.proc.returncode}:\n{self.log_tail()}")
            try:
                conn = http.client.HTTPConnection(HOST, self.port, timeout=2)
                conn.request("GET", "/healthz")
                if conn.getresponse().status == 200:
                    conn.close()
                    return
                conn.close()
            except OSError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"daphne did not answer /healthz in {timeout:.0f} s:\n{self.log_tail()}")

    def run_migrate(self) -> None:
        migrate = subprocess.run(
            [self.python, "manage.py", "migrate", "--noinput", "--run-syncdb"],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        if migrate.returncode:
            raise RuntimeError(f"migrate failed:\n{migrate.stdout}\n{migrate.stderr}")

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    def cpu(self) -> float:
        return cpu_seconds(self.proc.pid) if self.proc and self.proc.poll() is None else 0.0

    def wait_idle(self, *, window: float = 0.05, busy: float = 0.05, cap: float = 10.0) -> float:
        """Sleep until the server used < `busy` of a core over `window` s; return the wait."""
        start = time.monotonic()
        before = self.cpu()
        while time.monotonic() - start < cap:
            time.sleep(window)
            after = self.cpu()
            if after - before < busy * window + 1e-9:
                break
            before = after
        return time.monotonic() - start

    def log_tail(self, chars: int = 6000) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        return text[-chars:]

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)  # the session we created for it
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=5)
        if getattr(self, "_log", None):
            self._log.close()
        self.final_log = self.errors_logged()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def errors_logged(self) -> str:
        """The server's output without daphne's access log lines (tracebacks, warnings)."""
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        return "".join(line for line in text.splitlines(True) if not ACCESS_LINE.match(line))


# -- the server's tracebacks, for a report ---------------------------------------------------------

CHAINED = ("The above exception", "During handling")
CONTINUED = (" ", "Traceback", *CHAINED)


def tracebacks_in(log: str) -> list[str]:
    """Each traceback in the server's output, with the line before it (e.g. the failing path)."""
    lines = log.splitlines()
    blocks: list[str] = []
    i = 0
    while i < len(lines):
        if not lines[i].startswith("Traceback"):
            i += 1
            continue
        start = i - 1 if i and lines[i - 1].strip() else i
        j = i + 1
        while j < len(lines):
            line = lines[j]
            if line.strip() and not line.startswith(CONTINUED):
                after = [rest for rest in lines[j + 1 : j + 4] if rest.strip()]
                if not (after and after[0].startswith(CHAINED)):
                    break  # the exception line that ends the (chain of) traceback(s)
            j += 1
        blocks.append("\n".join(lines[start : j + 1]).rstrip())
        i = j + 1
    return blocks


def print_server_errors(log: str, shown: int = 2) -> None:
    """The first tracebacks the server logged, and a count of every kind."""
    blocks = tracebacks_in(log)
    if not blocks:
        if log.strip():
            print("\nServer output (first lines):\n" + log.strip()[:2000])
        return
    kinds = collections.Counter(block.splitlines()[-1][:160] for block in blocks)
    print(f"\nServer log: {len(blocks)} tracebacks:")
    for kind, count in kinds.most_common():
        print(f"  {count} x {kind}")
    for block in blocks[:shown]:
        print("\n" + block[-4000:])
