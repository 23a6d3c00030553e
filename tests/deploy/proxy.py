"""nginx as the deployment runs it (deploy/nginx/setgames.conf.template, rendered by
deploy/nginx-config.sh from the environment file's values), as a user's process in a temporary
folder: its own pid file, error log, temporary paths and a self-signed certificate made by openssl.
Debian's nginx is installed by `make deploy-check` when missing."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import ssl
import subprocess
import tempfile
import time
from pathlib import Path

from tests.conftest import free_port
from tests.deploy import files
from tests.processes.stores import terminate

NGINX = os.environ.get("NGINX", "nginx")

# What Debian's /etc/nginx/nginx.conf holds around the site's file, for a user's process.
MAIN_CONF = """\
{user}worker_processes 1;
pid {root}/nginx.pid;
error_log {root}/error.log warn;
events {{ worker_connections 1024; }}
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


class Nginx:
    """nginx on two free loopback ports, HTTP (redirecting) and HTTPS, in front of `apps`."""

    def __init__(self, apps: list[str], env: dict[str, str]) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="setgames-nginx-"))
        # As root, nginx's workers run as nobody: they read the static files and the folder.
        self.root.chmod(0o755)
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
            "SETGAMES_APP_2": apps[1],
        }
        self.process: subprocess.Popen | None = None

    def ssl_context(self) -> ssl.SSLContext:
        """A client's TLS settings that trust the check's certificate (and only it)."""
        return ssl.create_default_context(cafile=str(self.cert))

    def start(self) -> Nginx:
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
        (self.root / "setgames.conf").write_text(files.nginx_config(self.env))
        user = "user nobody nogroup;\n" if os.geteuid() == 0 else ""
        conf = self.root / "nginx.conf"
        conf.write_text(MAIN_CONF.format(user=user, root=self.root, temp=temp))
        command = [NGINX, "-p", str(self.root), "-e", str(self.root / "error.log"), "-c", str(conf)]
        tested = subprocess.run([*command, "-t"], capture_output=True, text=True, timeout=60)
        assert tested.returncode == 0, tested.stderr
        self.process = subprocess.Popen(
            [*command, "-g", "daemon off;"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
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
        raise RuntimeError(f"nginx did not start: {(self.root / 'error.log').read_text()}")

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
