"""deploy/ on this machine's loopback: nginx with the site's configuration (nginx/, rendered by
nginx-config.sh) as a user's process in a temporary folder, in front of daphne processes started
with setgames@.service's options.

One place for the deployment's checks (tests/deploy/, and tests/processes/ with
SETGAMES_PROXY=nginx) and the load benchmark (bench/bench_load.py --proxy nginx); it imports
neither. It needs Debian's nginx (`make nginx`), envsubst (gettext-base) and openssl.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import socket
import ssl
import subprocess
import tempfile
import time
from pathlib import Path

DEPLOY = Path(__file__).resolve().parent
UNIT = DEPLOY / "systemd" / "setgames@.service"
SETUP_UNIT = DEPLOY / "systemd" / "setgames-setup.service"
TEMPLATE = DEPLOY / "nginx" / "setgames.conf.template"
# Debian puts nginx in /usr/sbin, which a user's PATH may lack.
NGINX = os.environ.get("NGINX") or shutil.which("nginx") or "/usr/sbin/nginx"

# What Debian's /etc/nginx/nginx.conf holds around the site's file, for a user's process.
MAIN_CONF = """\
{user}worker_processes {workers};
worker_rlimit_nofile {files};
pid {root}/nginx.pid;
error_log {root}/error.log warn;
events {{ worker_connections {connections}; }}
http {{
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    sendfile on;
    client_body_temp_path {temp}/body;
    proxy_temp_path {temp}/proxy;
    fastcgi_temp_path {temp}/fastcgi;
    uwsgi_temp_path {temp}/uwsgi;
    scgi_temp_path {temp}/scgi;
    include {root}/setgames.conf;
}}
"""


def unit_commands(path: Path) -> list[list[str]]:
    """Each ExecStart= line of a unit, split as systemd splits it."""
    return [
        shlex.split(line.split("=", 1)[1])
        for line in path.read_text().splitlines()
        if line.startswith("ExecStart=")
    ]


def daphne_options() -> list[str]:
    """daphne's options in setgames@.service before its address (`-b 127.0.0.1 -p %i`)."""
    (command,) = unit_commands(UNIT)
    return command[3 : command.index("-b")]


def nginx_config(env: dict[str, str]) -> str:
    """nginx-config.sh's output for `env` (the environment file's values)."""
    return subprocess.run(
        [str(DEPLOY / "nginx-config.sh")],
        env={"PATH": os.environ["PATH"], **env},
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    ).stdout


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def terminate(process: subprocess.Popen | None, timeout: float = 10) -> None:
    """Stop a process we started, if it still runs: SIGTERM (a fast shutdown), then SIGKILL when
    it has not ended within `timeout` seconds."""
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


class Nginx:
    """nginx on two free loopback ports, HTTP (redirecting) and HTTPS, in front of `apps`
    ("127.0.0.1:<port>" each; the template has two upstream lines, so one app fills both).

    `workers` and `connections` are nginx's worker_processes and worker_connections: one worker
    is plenty for a check; Debian's nginx.conf says `auto` (one per core) and 768."""

    def __init__(
        self,
        apps: list[str],
        env: dict[str, str],
        *,
        workers: str = "1",
        connections: int = 1024,
    ) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="setgames-nginx-"))
        # As root, nginx's workers run as nobody: they read the static files and the folder.
        self.root.chmod(0o755)
        self.workers, self.connections = workers, connections
        self.http_port, self.https_port = free_port(), free_port()
        self.http_url = f"http://127.0.0.1:{self.http_port}"
        self.url = f"https://127.0.0.1:{self.https_port}"
        self.ws_url = f"wss://127.0.0.1:{self.https_port}"
        self.cert, self.key = self.root / "cert.pem", self.root / "key.pem"
        self.access_log = self.root / "logs" / "setgames-access.log"
        self.env = {
            **env,
            "SETGAMES_SERVER_NAME": "127.0.0.1",
            "SETGAMES_HTTP_LISTEN": f"127.0.0.1:{self.http_port}",
            "SETGAMES_HTTPS_LISTEN": f"127.0.0.1:{self.https_port}",
            "SETGAMES_HTTPS_PORT": str(self.https_port),
            "SETGAMES_TLS_CERT": str(self.cert),
            "SETGAMES_TLS_KEY": str(self.key),
            "SETGAMES_NGINX_LOGS": str(self.root / "logs"),
            "SETGAMES_APP_1": apps[0],
            "SETGAMES_APP_2": apps[-1],
        }
        self.process: subprocess.Popen | None = None

    def ssl_context(self) -> ssl.SSLContext:
        """A client's TLS settings that trust this nginx's certificate (and only it)."""
        return ssl.create_default_context(cafile=str(self.cert))

    def start(self, **popen) -> Nginx:
        """Start nginx (in the foreground, a child of ours; `popen`: more of Popen's arguments)
        and wait until its HTTPS port accepts connections."""
        (self.root / "logs").mkdir()
        temp = self.root / "temp"
        temp.mkdir()
        if os.geteuid() == 0:
            shutil.chown(temp, "nobody")
        subprocess.run(
            ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"]
            + ["-nodes", "-days", "2", "-subj", "/CN=127.0.0.1"]
            + ["-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"]
            + ["-keyout", str(self.key), "-out", str(self.cert)],
            check=True,
            capture_output=True,
            timeout=60,
        )
        (self.root / "setgames.conf").write_text(nginx_config(self.env))
        user = "user nobody nogroup;\n" if os.geteuid() == 0 else ""
        conf = self.root / "nginx.conf"
        conf.write_text(
            MAIN_CONF.format(
                user=user,
                root=self.root,
                temp=temp,
                workers=self.workers,
                connections=self.connections,
                files=2 * self.connections + 64,  # a proxied connection is two descriptors
            )
        )
        command = [NGINX, "-p", str(self.root), "-e", str(self.root / "error.log"), "-c", str(conf)]
        tested = subprocess.run([*command, "-t"], capture_output=True, text=True, timeout=60)
        if tested.returncode:
            raise RuntimeError(f"nginx -t failed: {tested.stderr}")
        self.process = subprocess.Popen(
            [*command, "-g", "daemon off;"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            **popen,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with (
                contextlib.suppress(OSError),
                socket.create_connection(("127.0.0.1", self.https_port), timeout=1),
            ):
                return self
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"nginx did not start: {self.error_log()}")

    def pids(self) -> list[int]:
        """nginx's processes: the master and its workers."""
        if self.process is None or self.process.poll() is not None:
            return []
        master = self.process.pid
        found = [master]
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/stat") as handle:
                    parent = int(handle.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            if parent == master:
                found.append(int(entry.name))
        return found

    def error_log(self) -> str:
        path = self.root / "error.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def log(self) -> list[str]:
        """The access log's lines so far (nginx writes each line as the request ends)."""
        return self.access_log.read_text().splitlines() if self.access_log.exists() else []

    def logged(self, text: str, count: int) -> list[str]:
        """The log's lines with `text` once there are `count` of them: nginx writes a request's
        line once it has sent the answer, so the client may read the answer first."""
        deadline = time.monotonic() + 15
        while True:
            lines = [line for line in self.log() if text in line]
            if len(lines) >= count or time.monotonic() > deadline:
                return lines
            time.sleep(0.05)

    def stop(self) -> None:
        terminate(self.process, timeout=15)  # SIGTERM: nginx's fast shutdown
        self.process = None

    def destroy(self) -> None:
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)
