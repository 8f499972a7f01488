import json

import pytest

from support_bot import SYSTEM, Bot

WEATHER = [{"type": "function", "function": {
    "name": "get_weather", "description": "Weather for a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]


@pytest.mark.mockllm(pin="greeter/chat")
def test_greets_then_counts(mockllm):
    bot = Bot(mockllm.base_url, headers=mockllm.headers)
    messages = [SYSTEM, {"role": "user", "content": "Say hello."}]
    greeting = bot.ask(messages)
    assert greeting == "Hello."
    text, calls = bot.stream(messages + [{"role": "assistant", "content": greeting},
                                         {"role": "user", "content": "Count to three."}])
    assert (text, calls) == ("One, two, three.", [])
    assert [e["response"]["exchange"] for e in mockllm.journal()] == [0, 1]


@pytest.mark.mockllm(pin="weather/parallel")
def test_parallel_tool_calls_are_put_together(mockllm):
    bot = Bot(mockllm.base_url, headers=mockllm.headers)
    _, calls = bot.stream([{"role": "user", "content": "Weather in Paris and Tokyo?"}], tools=WEATHER)
    assert [(c["name"], json.loads(c["arguments"])["city"]) for c in calls] == [
        ("get_weather", "Paris"), ("get_weather", "Tokyo")]


@pytest.mark.mockllm(pin="greeter/chat", faults={"status": 429, "retry_after": 0, "times": 1},
                     fail_on_unused=False)
def test_retries_a_rate_limit(mockllm):
    bot = Bot(mockllm.base_url, headers=mockllm.headers)
    assert bot.ask([SYSTEM, {"role": "user", "content": "Say hello."}]) == "Hello."
    assert [e["response"]["status"] for e in mockllm.journal()] == [429, 200]


def test_unpinned_replay_answers_from_any_trace(mockllm):
    bot = Bot(mockllm.base_url, headers=mockllm.headers)
    assert bot.ask([SYSTEM, {"role": "user", "content": "Say hello."}]) == "Hello."
