"""Test support: the package from source, a real `verify-hub engine` child process, a scripted fake engine."""

from __future__ import annotations

import json
import os
import queue
import secrets
import shutil
import subprocess
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

PACKAGE_DIR = Path(__file__).resolve().parent.parent
REPO_ROOT = PACKAGE_DIR.parent.parent
sys.path.insert(0, str(PACKAGE_DIR / "src"))

REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379")
CLI = REPO_ROOT / "cli" / "bin" / "verify-hub.js"


def wait_for(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


class EngineProcess:
    """`verify-hub engine --port 0` as a user runs it (cli/bin/verify-hub.js), with its keys in Redis under a
    unique prefix, SMTP off (the tests use addresses that need no network) and an operator key (ENGINE_API_KEY)."""

    def __init__(self) -> None:
        node = shutil.which("node")
        if node is None:
            raise RuntimeError("node is not on PATH: the Python client's tests start `verify-hub engine` with it")
        self.node = node
        self.prefix = f"test:clients-python:{uuid.uuid4()}:"
        self.api_key = "vh_" + secrets.token_urlsafe(32)
        self.env = {
            **os.environ,
            "REDIS_URL": REDIS_URL,
            "ENGINE_REDIS_PREFIX": self.prefix,
            "ENGINE_API_KEY": self.api_key,
            "ENGINE_SMTP": "off",
            "LOG_LEVEL": "info",
        }
        self.url = ""
        self.process: Optional[subprocess.Popen] = None

    def start(self, timeout: float = 120) -> None:
        self.process = subprocess.Popen([self.node, str(CLI), "engine", "--port", "0", "--host", "127.0.0.1"], cwd=REPO_ROOT, env=self.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        lines: "queue.Queue[Optional[str]]" = queue.Queue()
        output: List[str] = []

        def pump() -> None:
            assert self.process is not None and self.process.stdout is not None
            for line in self.process.stdout:
                lines.put(line)
            lines.put(None)

        threading.Thread(target=pump, daemon=True).start()
        deadline = time.monotonic() + timeout
        while not self.url:
            try:
                line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError("verify-hub engine did not say where it listens:\n" + "".join(output)) from None
            if line is None:
                raise AssertionError("verify-hub engine exited:\n" + "".join(output))
            output.append(line)
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict) and isinstance(record.get("url"), str):
                self.url = record["url"]

    def create_key(self, *args: str) -> str:
        """`verify-hub engine keys create ...`: the key is the first line it prints."""
        done = subprocess.run([self.node, str(CLI), "engine", "keys", "create", *args], cwd=REPO_ROOT, env=self.env, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise AssertionError(f"keys create failed: {done.stderr}")
        return done.stdout.splitlines()[0].strip()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        # Remove this run's keys, accounts and counters from Redis.
        script = "const {Redis}=require('ioredis');const r=new Redis(process.env.REDIS_URL);" "r.keys(process.env.ENGINE_REDIS_PREFIX+'*').then(async(k)=>{if(k.length)await r.del(...k);await r.quit();})"
        subprocess.run([self.node, "-e", script], cwd=REPO_ROOT, env=self.env, capture_output=True, timeout=60)


Handler = Callable[[BaseHTTPRequestHandler], None]


def json_answer(status: int, body: object, headers: Optional[Dict[str, str]] = None) -> Handler:
    def handle(request: BaseHTTPRequestHandler) -> None:
        payload = json.dumps(body).encode()
        request.send_response(status)
        request.send_header("Content-Type", "application/json")
        request.send_header("Content-Length", str(len(payload)))
        for name, value in (headers or {}).items():
            request.send_header(name, value)
        request.end_headers()
        request.wfile.write(payload)

    return handle


class ScriptedEngine:
    """A local engine that answers from a script of handlers (then a safe result), recording every request."""

    def __init__(self) -> None:
        self.script: List[Handler] = []
        self.seen: List[Tuple[str, Optional[str]]] = []
        self.release = threading.Event()
        outer = self

        class RequestHandler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                outer.seen.append((self.path, self.headers.get("X-API-Key")))
                handler = outer.script.pop(0) if outer.script else outer.safe
                handler(self)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), RequestHandler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @staticmethod
    def safe(request: BaseHTTPRequestHandler) -> None:
        json_answer(200, {"email": "john@acme-mail.com", "score": 95, "risk": "safe", "extra_field": "kept"})(request)

    def hang(self, request: BaseHTTPRequestHandler) -> None:
        self.release.wait(30)

    def reset(self) -> None:
        self.script = []
        self.seen = []

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()
