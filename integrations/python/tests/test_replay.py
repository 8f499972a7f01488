"""The plugin against a real mockllm: replay through httpx and what the journal says."""

import json

import httpx
import pytest

WEATHER_TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "Current weather of a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                   "required": ["city"]}}}]
QUESTION = {"role": "user", "content": "What is the weather in Paris?"}


def chat(mockllm, body, **kw):
    return httpx.post(f"{mockllm.base_url}/chat/completions", json=body, headers=mockllm.headers,
                      timeout=30, **kw)


@pytest.mark.mockllm(traces="traces")
def test_plain_answer_is_replayed_and_journaled(mockllm):
    r = chat(mockllm, {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Say hello."}]})
    assert r.status_code == 200
    assert r.json()["choices"][0]["message"]["content"] == "Hello!"
    journal = mockllm.journal()
    assert len(journal) == 1
    assert journal[0]["response"]["status"] == 200
    assert journal[0]["trace"] == "hello"
    assert mockllm.unmatched() == []


@pytest.mark.mockllm(traces="traces/hello-stream.trace.jsonl", pin="hello-stream")
def test_stream_is_replayed_on_the_pinned_trace(mockllm):
    assert "/t/hello-stream/v1" in mockllm.base_url
    body = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Say hello, streaming."}],
            "stream": True}
    text = ""
    with httpx.stream("POST", f"{mockllm.base_url}/chat/completions", json=body,
                      headers=mockllm.headers, timeout=30) as r:
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/event-stream")
        for line in r.iter_lines():
            line = line.rstrip("\r\n")  # httpx 0.23 keeps the line end
            if line.startswith("data: ") and line != "data: [DONE]":
                delta = json.loads(line[6:])["choices"][0]["delta"]
                text += delta.get("content") or ""
    assert text == "Hello!"
    [entry] = mockllm.journal()
    assert entry["session"] == mockllm.session
    assert entry["response"]["stream"] is True


@pytest.mark.mockllm(traces="traces", pin="weather")
def test_tool_call_conversation_in_recorded_order(mockllm):
    first = chat(mockllm, {"model": "gpt-4o-mini", "messages": [QUESTION], "tools": WEATHER_TOOLS})
    assert first.status_code == 200
    message = first.json()["choices"][0]["message"]
    [call] = message["tool_calls"]
    assert call["function"]["name"] == "get_weather"
    assert json.loads(call["function"]["arguments"]) == {"city": "Paris"}
    tool_reply = {"role": "tool", "tool_call_id": call["id"], "content": "18 C, sunny"}
    second = chat(mockllm, {"model": "gpt-4o-mini", "tools": WEATHER_TOOLS,
                            "messages": [QUESTION, {"role": "assistant", "content": None,
                                                    "tool_calls": [call]}, tool_reply]})
    assert second.status_code == 200
    assert "18" in second.json()["choices"][0]["message"]["content"]
    assert [e["response"]["exchange"] for e in mockllm.journal()] == [0, 1]
    [state] = mockllm.sessions()
    assert state["trace"] == "weather" and state["unused"] == []


@pytest.mark.mockllm(traces="traces", pin="hello",
                     faults={"status": 429, "retry_after": 0, "times": 1})
def test_retry_after_an_injected_429(mockllm):
    body = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Say hello."}]}
    first = chat(mockllm, body)
    assert first.status_code == 429
    assert first.headers["retry-after"] == "0"
    second = chat(mockllm, body)
    assert second.status_code == 200
    journal = mockllm.journal()
    assert [e["response"]["status"] for e in journal] == [429, 200]
    assert journal[0]["fault"]["status"] == 429
    assert "fault" not in journal[1]


@pytest.mark.mockllm(traces="traces", pin="hello", dialect="deepseek")
def test_dialect_and_sessions_of_two_tests_do_not_mix(mockllm):
    # The same pinned trace as the retry test, on another server (the dialect
    # differs): the session starts at the first exchange.
    r = chat(mockllm, {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Say hello."}]})
    assert r.status_code == 200
    assert mockllm.journal()[0]["dialect"] == "deepseek"


@pytest.mark.mockllm(traces="traces")
def test_load_a_stub_at_runtime(mockllm):
    [stub_id] = mockllm.load({"id": "runtime-stub",
                              "request": {"path": "/v1/chat/completions",
                                          "body": {"model": "m", "messages": []}},
                              "response": {"status": 200, "body": {"ok": True}}})
    assert stub_id == "runtime-stub"
    r = chat(mockllm, {"model": "m", "messages": []})
    assert r.json() == {"ok": True}
    assert "runtime-stub" in mockllm.server.health()["traces"]
