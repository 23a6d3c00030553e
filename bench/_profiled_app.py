"""The server's application (config.asgi) with cProfile on a daphne process's main thread, the
event loop, for benchmarks where py-spy cannot attach (bench helper; never imported by the app).

Serve it with a bench's ``--app bench._profiled_app:application``, then signal each daphne
process: SIGUSR1 starts profiling, SIGUSR2 stops it and writes
``$PROFILE_DIR/daphne-<pid>.pstats`` (default: the system's temporary folder), to read with
``pstats``. cProfile times in wall clock and slows what it profiles: read shares, not costs.
Only the main thread is profiled; read the other threads' CPU from /proc/<pid>/task/*/stat.
"""

import cProfile
import os
import signal
import tempfile

from config.asgi import application  # noqa: F401 - served as is

_profile = cProfile.Profile()


def _start(signum, frame) -> None:
    _profile.enable()


def _stop(signum, frame) -> None:
    _profile.disable()
    folder = os.environ.get("PROFILE_DIR", tempfile.gettempdir())
    _profile.dump_stats(os.path.join(folder, f"daphne-{os.getpid()}.pstats"))


signal.signal(signal.SIGUSR1, _start)
signal.signal(signal.SIGUSR2, _stop)
