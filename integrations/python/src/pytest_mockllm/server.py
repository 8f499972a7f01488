"""Starting, querying and stopping a ``mockllm`` process (standard library only).

Contracts:
- :func:`find_binary` looks in this order: an explicit path, ``$MOCKLLM_BIN``,
  ``mockllm`` on ``PATH``, the Debian package's ``/usr/bin/mockllm``; it raises
  :class:`BinaryNotFound` saying how to get one.
- :meth:`Mockllm.start` runs ``mockllm serve`` (or ``mockllm record``) on the
  given port (0: a free one), waits for its ``listening on URL`` line and
  raises :class:`TraceError` (with every ``file:line:col`` problem ``mockllm
  lint`` finds) or :class:`PortInUse` or :class:`MockllmError` when it exits
  instead.
- Admin calls (:meth:`journal`, :meth:`unmatched`, :meth:`sessions`,
  :meth:`load`, :meth:`unload`, :meth:`reset`) speak the HTTP admin API of
  docs/mockllm.md and raise :class:`MockllmError` on an error answer.
"""

from __future__ import annotations

import json
import os
import re
import selectors
import shutil
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional, Sequence, Union

DEB_PATH = "/usr/bin/mockllm"
START_TIMEOUT_S = 60.0

TraceArg = Union[str, os.PathLike, Mapping[str, Any], Sequence[Mapping[str, Any]]]


class MockllmError(Exception):
    """mockllm could not do what was asked; the message says what to do."""


class BinaryNotFound(MockllmError):
    """No mockllm program was found."""


class TraceError(MockllmError):
    """A trace failed to load; the message has its file:line:col problems."""


class PortInUse(MockllmError):
    """The port asked for is taken."""


def find_binary(explicit: Optional[str] = None) -> str:
    """The path of the mockllm program to run (see the module's contract)."""
    tried = []
    for label, candidate in (("--mockllm-bin / mockllm_bin", explicit),
                             ("$MOCKLLM_BIN", os.environ.get("MOCKLLM_BIN"))):
        if not candidate:
            continue
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
        raise BinaryNotFound(f"{label} names {candidate!r}, which is not an executable file")
    on_path = shutil.which("mockllm")
    if on_path:
        return on_path
    tried.append("mockllm on PATH")
    if os.path.isfile(DEB_PATH) and os.access(DEB_PATH, os.X_OK):
        return DEB_PATH
    tried.append(DEB_PATH)
    raise BinaryNotFound(
        "the mockllm program was not found (looked at $MOCKLLM_BIN, " + ", ".join(tried) + "). "
        "Build it (cmake --preset release && cmake --build --preset release: "
        "build/release/mockllm/mockllm) or install llmconform's .deb, then put it on PATH "
        "or set MOCKLLM_BIN=/path/to/mockllm (or pytest --mockllm-bin PATH).")


def _fault_flags(faults: Union[None, Mapping[str, Any], Iterable[str]]) -> list:
    """--fault arguments from a {key: value} mapping or "KEY[=VALUE]" strings."""
    if not faults:
        return []
    if isinstance(faults, Mapping):
        items = []
        for key, value in faults.items():
            items.append(key if value is True else f"{key}={json.dumps(value)}")
    elif isinstance(faults, str):
        items = [faults]
    else:
        items = list(faults)
    out = []
    for item in items:
        out += ["--fault", str(item)]
    return out


def _read_line(stream, deadline: float) -> Optional[str]:
    """One line of a pipe, or None at end of file or past the deadline."""
    sel = selectors.DefaultSelector()
    sel.register(stream, selectors.EVENT_READ)
    buf = b""
    try:
        while time.monotonic() < deadline:
            if not sel.select(timeout=max(0.0, deadline - time.monotonic())):
                continue
            byte = os.read(stream.fileno(), 1)
            if not byte:
                return None
            if byte == b"\n":
                return buf.decode("utf-8", "replace")
            buf += byte
    finally:
        sel.close()
    return None


class Mockllm:
    """One running mockllm process (``serve``, or ``record`` when ``upstream`` is given)."""

    def __init__(self, *, binary: str, traces: Sequence[Union[str, os.PathLike]] = (),
                 dialect: Optional[str] = None, faults=None, port: int = 0,
                 speed: Optional[float] = 0, args: Sequence[str] = (),
                 upstream: Optional[str] = None, record_to: Optional[str] = None,
                 cwd: Optional[str] = None):
        self.binary = binary
        self.traces = [str(t) for t in traces]
        self.dialect = dialect
        self.faults = faults
        self.port = port
        self.speed = speed
        self.args = list(args)
        self.upstream = upstream
        self.record_to = record_to
        self.cwd = cwd
        self.url: Optional[str] = None
        self._proc: Optional[subprocess.Popen] = None
        self._stderr = None

    @property
    def recording(self) -> bool:
        return self.upstream is not None

    def command(self) -> list:
        if self.recording:
            cmd = [self.binary, "record", "--upstream", self.upstream, "--out", str(self.record_to),
                   "--port", str(self.port)]
            return cmd + self.args
        cmd = [self.binary, "serve", "--port", str(self.port)]
        for t in self.traces:
            cmd += ["--traces", t]
        if self.dialect:
            cmd += ["--dialect", self.dialect]
        if self.speed is not None:
            cmd += ["--speed", str(self.speed)]
        return cmd + _fault_flags(self.faults) + self.args

    def start(self) -> "Mockllm":
        self._stderr = tempfile.TemporaryFile()
        cmd = self.command()
        try:
            self._proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                          stderr=self._stderr, cwd=self.cwd)
        except OSError as e:
            raise BinaryNotFound(f"cannot run {self.binary!r}: {e}") from e
        line = _read_line(self._proc.stdout, time.monotonic() + START_TIMEOUT_S)
        if line is None or not line.startswith("listening on "):
            self._fail_start(cmd)
        self.url = line[len("listening on "):].strip()
        return self

    def _fail_start(self, cmd: list) -> None:
        try:
            code = self._proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            code = self._proc.wait()
        err = self.stderr_text().strip()
        shown = " ".join(cmd)
        if "cannot listen on" in err and ("in use" in err.lower() or "address" in err.lower()):
            raise PortInUse(f"mockllm cannot listen on port {self.port}: {err}\n"
                            "Another program holds it: stop that program, choose another port, "
                            "or use port 0 (the default: a free port).")
        if code == 2 and not self.recording and self.traces:
            problems = self._lint()
            if problems:
                raise TraceError("mockllm cannot load the traces; `mockllm lint` says:\n" + problems)
            raise TraceError(f"mockllm refused its arguments: {err}\n(command: {shown})")
        raise MockllmError(f"mockllm did not start (exit {code}): {err}\n(command: {shown})")

    def _lint(self) -> str:
        try:
            done = subprocess.run([self.binary, "lint", *self.traces], capture_output=True,
                                  text=True, timeout=60, cwd=self.cwd)
        except (OSError, subprocess.TimeoutExpired):
            return ""
        return (done.stdout + done.stderr).strip() if done.returncode != 0 else ""

    def stderr_text(self) -> str:
        if self._stderr is None:
            return ""
        self._stderr.seek(0)
        return self._stderr.read().decode("utf-8", "replace")

    def stop(self) -> int:
        """Stops the process (SIGTERM, then SIGKILL after 10 s); its exit code."""
        if self._proc is None:
            return 0
        proc, self._proc = self._proc, None
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if proc.stdout:
            proc.stdout.close()
        return proc.returncode

    def close(self) -> None:
        self.stop()
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    # ---- admin API ----

    def _call(self, method: str, path: str, body: Optional[bytes] = None,
              content_type: str = "application/json") -> Any:
        if self.url is None:
            raise MockllmError("mockllm is not running")
        req = urllib.request.Request(self.url + path, data=body, method=method)
        if body is not None:
            req.add_header("content-type", content_type)
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                text = resp.read().decode("utf-8")
        except urllib.error.HTTPError as e:
            detail = e.read().decode("utf-8", "replace")
            try:
                detail = json.loads(detail)["error"]["message"]
            except (ValueError, KeyError, TypeError):
                pass
            raise MockllmError(f"{method} {path}: HTTP {e.code}: {detail}") from None
        except urllib.error.URLError as e:
            raise MockllmError(f"{method} {path}: {e.reason}") from None
        return json.loads(text) if text.strip() else None

    def health(self) -> dict:
        return self._call("GET", "/__admin/health")

    def journal(self, *, session: Optional[str] = None, trace: Optional[str] = None,
                after: Optional[int] = None) -> list:
        return self._call("GET", "/__admin/journal" + _query(session=session, trace=trace, after=after))

    def unmatched(self, *, after: Optional[int] = None) -> list:
        return self._call("GET", "/__admin/unmatched" + _query(after=after))

    def sessions(self) -> list:
        return self._call("GET", "/__admin/sessions")

    def metrics(self) -> str:
        if self.url is None:
            raise MockllmError("mockllm is not running")
        with urllib.request.urlopen(self.url + "/__admin/metrics", timeout=30) as resp:
            return resp.read().decode("utf-8")

    def load(self, trace: TraceArg, *, base: Optional[Path] = None) -> list:
        """Loads a trace file (path), a trace or stub object, or a list of them; the ids loaded."""
        if isinstance(trace, (str, os.PathLike)):
            path = Path(trace)
            if not path.is_absolute() and base is not None:
                path = base / path
            body = path.read_bytes()
            ctype = "application/x-ndjson"
        else:
            body = json.dumps(trace).encode("utf-8")
            ctype = "application/json"
        return self._call("POST", "/__admin/traces", body, ctype)["loaded"]

    def unload(self, trace_id: str) -> None:
        self._call("DELETE", "/__admin/traces/" + urllib.parse.quote(trace_id, safe=""))

    def reset(self) -> None:
        self._call("POST", "/__admin/reset", b"")

    def last_seq(self) -> int:
        """The seq of the newest journal entry (0 when there is none)."""
        return int(self.health()["requests"])  # seqs count every entry ever journaled


def _query(**params) -> str:
    kept = {k: str(v) for k, v in params.items() if v is not None}
    return "?" + urllib.parse.urlencode(kept) if kept else ""
