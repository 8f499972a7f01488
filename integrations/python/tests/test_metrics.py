"""GET /__admin/metrics (and /metrics with --metrics) parsed by prometheus_client's
parser after a known sequence of requests, on a server of its own per test."""

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

HELLO = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Say hello."}]}
STREAM = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Say hello, streaming."}],
          "stream": True}


def families(text):
    return {f.name: f for f in text_string_to_metric_families(text)}


def value(fams, family, sample_name, **labels):
    for s in fams[family].samples:
        if s.name == sample_name and all(s.labels.get(k) == v for k, v in labels.items()):
            return s.value
    return 0.0


@pytest.mark.mockllm(traces="traces", scope="test", fail_on_unmatched=False, fail_on_unused=False,
                     args=["--metrics"])
def test_counters_after_a_known_sequence(mockllm):
    post = lambda base, body, **kw: httpx.post(f"{base}/chat/completions", json=body,
                                               headers=mockllm.headers, timeout=30, **kw)
    pinned = f"{mockllm.url}/t/hello/v1"
    assert post(pinned, HELLO).status_code == 200                      # replayed
    assert post(pinned, HELLO).status_code == 400                      # exhausted: unmatched
    assert post(f"{mockllm.url}/v1", STREAM).status_code == 200        # replayed, unpinned
    assert post(f"{mockllm.url}/v1", {"model": "x", "messages": []}).status_code == 404  # no match
    assert httpx.post(f"{mockllm.url}/v1/chat/completions", content=b"{", timeout=30,
                      headers={"content-type": "application/json"}).status_code == 400  # refused
    assert httpx.get(f"{mockllm.url}/v1/models", timeout=30).status_code == 200  # answered
    text = httpx.get(f"{mockllm.url}/__admin/metrics", timeout=30)
    assert text.headers["content-type"].startswith("text/plain; version=0.0.4")
    fams = families(text.text)
    req = "mockllm_requests"
    assert fams[req].type == "counter"
    assert value(fams, req, "mockllm_requests_total", route="pinned", trace="hello", status="200",
                 outcome="replayed") == 1
    assert value(fams, req, "mockllm_requests_total", route="pinned", trace="hello", status="400",
                 outcome="unmatched") == 1
    assert value(fams, req, "mockllm_requests_total", route="unpinned", trace="hello-stream",
                 status="200", outcome="replayed") == 1
    assert value(fams, req, "mockllm_requests_total", route="unpinned", trace="", status="404",
                 outcome="unmatched") == 1
    assert value(fams, req, "mockllm_requests_total", route="unpinned", status="400",
                 outcome="refused") == 1
    assert value(fams, req, "mockllm_requests_total", route="models", outcome="answered") == 1
    assert sum(s.value for s in fams[req].samples if s.name.endswith("_total")) == 6
    assert fams["mockllm_replay_duration_seconds"].type == "histogram"
    assert value(fams, "mockllm_replay_duration_seconds", "mockllm_replay_duration_seconds_count") == 2
    assert value(fams, "mockllm_replay_first_byte_seconds",
                 "mockllm_replay_first_byte_seconds_count") == 2
    assert value(fams, "mockllm_sent_bytes", "mockllm_sent_bytes_total") > 0
    assert value(fams, "mockllm_journal_entries", "mockllm_journal_entries") == 6
    assert value(fams, "mockllm_sessions", "mockllm_sessions") >= 1
    assert value(fams, "mockllm_connections_open", "mockllm_connections_open") >= 1
    # --metrics: the same text at /metrics (which is not journaled).
    again = families(httpx.get(f"{mockllm.url}/metrics", timeout=30).text)
    assert value(again, "mockllm_journal_entries", "mockllm_journal_entries") == 6


@pytest.mark.mockllm(traces="traces", pin="hello", scope="test",
                     faults={"status": 429, "retry_after": 0, "times": 1})
def test_faults_by_kind(mockllm):
    for expected in (429, 200):
        r = httpx.post(f"{mockllm.base_url}/chat/completions", json=HELLO, headers=mockllm.headers,
                       timeout=30)
        assert r.status_code == expected
    fams = families(mockllm.server.metrics())
    assert value(fams, "mockllm_faults_injected", "mockllm_faults_injected_total", kind="status") == 1
    assert value(fams, "mockllm_requests", "mockllm_requests_total", status="429", outcome="fault") == 1
    assert value(fams, "mockllm_requests", "mockllm_requests_total", status="200",
                 outcome="replayed") == 1
    # Without --metrics, /metrics is no route.
    assert httpx.get(f"{mockllm.url}/metrics", timeout=30).status_code == 404
