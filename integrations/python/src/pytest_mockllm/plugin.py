"""The pytest plugin: the ``mockllm`` fixture, the ``mockllm`` marker and options.

Contracts (the package README has the user's view):
- A test asking for the ``mockllm`` fixture gets a :class:`MockllmHandle` on a
  mockllm server started with the traces, dialect, faults… its marker (or the
  ini options) name. Servers with the same configuration are shared for the
  whole pytest session (``scope="session"``, the default) or started for the
  test alone (``scope="test"``). Under pytest-xdist each worker has its own.
- Each test has its own ``X-Mockllm-Session`` (``handle.headers``), so pinned
  replay cursors never interfere; ``journal()`` and ``unmatched()`` hold only
  this test's requests.
- After a test passed, it is failed when mockllm refused one of its requests
  (no match, mismatch, exhausted, unknown trace) or when a trace it touched, or
  its pinned trace, has unused exchanges. ``fail_on_unmatched`` and
  ``fail_on_unused`` (marker or ini) turn these off.
- ``--mockllm-record``: marked tests talk to ``mockllm record`` forwarding to
  the real upstream instead; when a test passes, its trace file is replaced
  by the new recording (secrets redacted by mockllm record).
"""

from __future__ import annotations

import json
import os
import re
import urllib.parse
import uuid
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

from .server import Mockllm, MockllmError, find_binary

MARKER_KEYS = {"traces", "pin", "dialect", "faults", "scope", "speed", "port", "args",
               "fail_on_unmatched", "fail_on_unused", "record_to", "upstream"}


def pytest_addoption(parser):
    group = parser.getgroup("mockllm", "mockllm (llmconform's mock LLM server)")
    group.addoption("--mockllm-bin", default=None, metavar="PATH",
                    help="the mockllm program (default: $MOCKLLM_BIN, PATH, /usr/bin/mockllm)")
    group.addoption("--mockllm-scope", default=None, choices=("session", "test"),
                    help="share servers for the session (default) or start one per test")
    group.addoption("--mockllm-record", action="store_true", default=False,
                    help="re-record the traces of the selected mockllm tests from the real upstream")
    group.addoption("--mockllm-upstream", default=None, metavar="URL",
                    help="upstream for --mockllm-record (default: mockllm_upstream, "
                         "$MOCKLLM_UPSTREAM, https://api.openai.com)")
    parser.addini("mockllm_bin", "the mockllm program", default="")
    parser.addini("mockllm_traces", "trace files or folders for every mockllm test "
                  "(relative to the ini file)", type="pathlist", default=[])
    parser.addini("mockllm_dialect", "provider dialect for every mockllm server", default="")
    parser.addini("mockllm_scope", "session (default) or test", default="session")
    parser.addini("mockllm_speed", "replay --speed (default 0: no waiting)", default="0")
    parser.addini("mockllm_fail_on_unmatched", "fail a test whose request mockllm refused",
                  type="bool", default=True)
    parser.addini("mockllm_fail_on_unused", "fail a test that left recorded exchanges unused",
                  type="bool", default=True)
    parser.addini("mockllm_upstream", "upstream for --mockllm-record", default="")


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "mockllm(traces=..., pin=None, dialect=None, faults=None, scope=None, speed=None, "
        "port=0, args=(), fail_on_unmatched=None, fail_on_unused=None, record_to=None): "
        "configure the mockllm server of this test")
    config._mockllm_pool = _Pool(config)


def pytest_unconfigure(config):
    pool = getattr(config, "_mockllm_pool", None)
    if pool is not None:
        pool.close()


class _Pool:
    """Servers shared for the pytest session, keyed by their configuration."""

    def __init__(self, config):
        self.config = config
        self.servers: Dict[str, Mockllm] = {}
        self._binary: Optional[str] = None

    def binary(self) -> str:
        if self._binary is None:
            explicit = self.config.getoption("mockllm_bin") or self.config.getini("mockllm_bin")
            self._binary = find_binary(explicit or None)
        return self._binary

    def get(self, settings: Dict[str, Any]) -> Mockllm:
        key = json.dumps(settings, sort_keys=True, default=str)
        server = self.servers.get(key)
        if server is None:
            server = _new_server(self.binary(), settings).start()
            self.servers[key] = server
        return server

    def close(self):
        for server in self.servers.values():
            server.close()
        self.servers.clear()


def _new_server(binary: str, s: Dict[str, Any]) -> Mockllm:
    return Mockllm(binary=binary, traces=s["traces"], dialect=s["dialect"], faults=s["faults"],
                   port=s["port"], speed=s["speed"], args=s["args"])


def _settings(request) -> Dict[str, Any]:
    """The test's configuration: its marker's keys over the ini options."""
    config = request.config
    marker = request.node.get_closest_marker("mockllm")
    kw = dict(marker.kwargs) if marker else {}
    if marker and marker.args:
        kw.setdefault("traces", marker.args[0] if len(marker.args) == 1 else list(marker.args))
    unknown = set(kw) - MARKER_KEYS
    if unknown:
        raise pytest.UsageError(f"@pytest.mark.mockllm: unknown keys {sorted(unknown)} "
                                f"(known: {sorted(MARKER_KEYS)})")
    base = Path(str(request.node.fspath)).parent
    if "traces" in kw:
        raw = kw["traces"]
        raw = [raw] if isinstance(raw, (str, os.PathLike)) else list(raw)
        traces = [str(p if Path(p).is_absolute() else (base / p)) for p in raw]
    else:
        traces = [str(p) for p in config.getini("mockllm_traces")]
    scope = kw.get("scope") or config.getoption("mockllm_scope") or config.getini("mockllm_scope")
    if scope not in ("session", "test"):
        raise pytest.UsageError(f"mockllm scope must be 'session' or 'test', not {scope!r}")
    faults = kw.get("faults")
    speed = kw.get("speed", config.getini("mockllm_speed"))
    return {
        "traces": traces,
        "pin": kw.get("pin"),
        "dialect": kw.get("dialect") or config.getini("mockllm_dialect") or None,
        "faults": faults if isinstance(faults, (dict, type(None))) else list(faults)
                  if not isinstance(faults, str) else [faults],
        "scope": scope,
        "speed": None if speed in (None, "") else float(speed),
        "port": int(kw.get("port", 0)),
        "args": [str(a) for a in kw.get("args", ())],
        "fail_on_unmatched": kw.get("fail_on_unmatched",
                                    config.getini("mockllm_fail_on_unmatched")),
        "fail_on_unused": kw.get("fail_on_unused", config.getini("mockllm_fail_on_unused")),
        "record_to": kw.get("record_to"),
        "upstream": kw.get("upstream"),
        "base": base,
    }


def _record_target(s: Dict[str, Any], test_name: str) -> Path:
    """The trace file --mockllm-record rewrites for this test."""
    if s["record_to"]:
        p = Path(s["record_to"])
        return p if p.is_absolute() else s["base"] / p
    if len(s["traces"]) == 1:
        p = Path(s["traces"][0])
        if p.is_dir():
            return p / (re.sub(r"[^A-Za-z0-9_.-]+", "_", test_name) + ".trace.jsonl")
        return p
    raise pytest.UsageError(
        "--mockllm-record: name the trace file to write with @pytest.mark.mockllm(record_to=...) "
        "(this test has no single trace file or folder)")


class MockllmHandle:
    """What the ``mockllm`` fixture gives a test: its server, seen through its own session."""

    def __init__(self, server: Mockllm, session: str, pin: Optional[str], base: Path):
        self.server = server
        self.session = session
        self.pin = pin
        self._base = base
        self._start_seq = 0 if server.recording else server.last_seq()
        self._loaded: List[str] = []

    @property
    def url(self) -> str:
        """The server's root, e.g. http://127.0.0.1:PORT."""
        return self.server.url

    @property
    def recording(self) -> bool:
        return self.server.recording

    @property
    def base_url(self) -> str:
        """The OpenAI base URL: .../t/{pin}/v1 when the marker pins a trace, else .../v1."""
        if self.pin and not self.recording:
            return f"{self.url}/t/{urllib.parse.quote(self.pin, safe='')}/v1"
        return f"{self.url}/v1"

    @property
    def headers(self) -> Dict[str, str]:
        """Headers every request of this test must carry (its session)."""
        return {} if self.recording else {"X-Mockllm-Session": self.session}

    def openai_kwargs(self, api_key: Optional[str] = None) -> Dict[str, Any]:
        """Keyword arguments for openai.OpenAI(...): base_url, api_key, default_headers."""
        key = api_key or os.environ.get("OPENAI_API_KEY") or "mockllm"
        return {"base_url": self.base_url, "api_key": key, "default_headers": self.headers}

    def _mine(self, entry: Dict[str, Any]) -> bool:
        if entry.get("seq", 0) <= self._start_seq:
            return False
        if entry.get("session") is not None:
            return entry["session"] == self.session
        headers = (entry.get("request") or {}).get("headers") or {}
        sent = [v for k, v in headers.items() if k.lower() == "x-mockllm-session"]
        return not sent or sent[0] == self.session

    def journal(self) -> List[Dict[str, Any]]:
        """This test's journal entries, oldest first."""
        if self.recording:
            return []
        return [e for e in self.server.journal(after=self._start_seq) if self._mine(e)]

    def unmatched(self) -> List[Dict[str, Any]]:
        """This test's requests that mockllm refused (no match, mismatch, exhausted, unknown trace)."""
        if self.recording:
            return []
        return [e for e in self.server.unmatched(after=self._start_seq) if self._mine(e)]

    def sessions(self) -> List[Dict[str, Any]]:
        """Cursor and unused exchanges of each trace in this test's session."""
        if self.recording:
            return []
        return [s for s in self.server.sessions() if s.get("session") == self.session]

    def load(self, trace) -> List[str]:
        """Loads a trace file (relative to the test file), trace object, stub or list; unloaded
        when the test ends. Returns the ids loaded."""
        ids = self.server.load(trace, base=self._base)
        self._loaded += ids
        return ids

    def reset(self) -> None:
        """Forgets every session and the journal of the server (other tests' too)."""
        self.server.reset()
        self._start_seq = self.server.last_seq()

    def problems(self, fail_on_unmatched: bool, fail_on_unused: bool) -> List[str]:
        """Why this test should fail, in words (empty: nothing)."""
        if self.recording:
            return []
        out = []
        if fail_on_unmatched:
            for e in self.unmatched():
                finding = next((f for f in e.get("findings", []) if isinstance(f, dict)), {})
                out.append(f"mockllm refused request #{e.get('seq')} {e.get('method')} "
                           f"{e.get('path')}: {finding.get('rule', '?')}: "
                           f"{finding.get('message', '')}".rstrip())
        if fail_on_unused:
            seen = set()
            for s in self.sessions():
                seen.add(s.get("trace"))
                if s.get("touched") and s.get("unused"):
                    out.append(f"trace {s['trace']!r}: exchanges {s['unused']} were never requested")
            if self.pin and self.pin not in seen:
                out.append(f"pinned trace {self.pin!r} was never requested "
                           f"(send the header {self.headers} to {self.base_url})")
        return out

    def _cleanup(self) -> None:
        for trace_id in self._loaded:
            try:
                self.server.unload(trace_id)
            except MockllmError:
                pass
        self._loaded.clear()


@pytest.fixture
def mockllm(request):
    """A mockllm server seen through this test's own session (see MockllmHandle)."""
    config = request.config
    pool: _Pool = config._mockllm_pool
    s = _settings(request)
    session = f"{re.sub(r'[^A-Za-z0-9_.-]+', '_', request.node.name)[:80]}-{uuid.uuid4().hex[:12]}"
    own: Optional[Mockllm] = None
    target: Optional[Path] = None
    try:
        if config.getoption("mockllm_record"):
            target = _record_target(s, request.node.name)
            upstream = (s["upstream"] or config.getoption("mockllm_upstream")
                        or config.getini("mockllm_upstream")
                        or os.environ.get("MOCKLLM_UPSTREAM") or "https://api.openai.com")
            target.parent.mkdir(parents=True, exist_ok=True)
            partial = target.with_name(target.name + ".recording")
            if partial.exists():
                partial.unlink()
            args = ["--id", s["pin"]] if s["pin"] else ["--id", target.name.replace(".trace.jsonl", "")]
            own = Mockllm(binary=pool.binary(), upstream=upstream, record_to=str(partial),
                          port=s["port"], args=args + s["args"]).start()
            server = own
        elif s["scope"] == "test":
            own = _new_server(pool.binary(), s).start()
            server = own
        else:
            server = pool.get({k: s[k] for k in ("traces", "dialect", "faults", "port", "speed",
                                                 "args")})
        handle = MockllmHandle(server, session, s["pin"], s["base"])
    except MockllmError as e:
        if own is not None:
            own.close()
        pytest.fail(str(e), pytrace=False)
    request.node._mockllm = (handle, s)
    try:
        yield handle
    finally:
        handle._cleanup()
        if own is not None:
            own.close()
        if target is not None:
            partial = target.with_name(target.name + ".recording")
            report = getattr(request.node, "_mockllm_call_passed", False)
            if report and partial.exists():
                os.replace(partial, target)
            elif partial.exists():
                partial.unlink()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if call.when != "call":
        return
    state = getattr(item, "_mockllm", None)
    if state is None:
        return
    handle, s = state
    if report.passed:
        try:
            problems = handle.problems(bool(s["fail_on_unmatched"]), bool(s["fail_on_unused"]))
        except MockllmError as e:
            problems = [f"cannot ask mockllm: {e}"]
        if problems:
            report.outcome = "failed"
            report.longrepr = "mockllm:\n  " + "\n  ".join(problems)
    item._mockllm_call_passed = report.passed
