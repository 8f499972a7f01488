"""The code under test: a small chat client on any OpenAI-compatible endpoint."""

import json
import time

import httpx

SYSTEM = {"role": "system", "content": "You are terse."}


class Bot:
    def __init__(self, base_url, api_key="test-key", headers=None, retries=2):
        self.http = httpx.Client(base_url=base_url, timeout=30,
                                 headers={"authorization": f"Bearer {api_key}", **(headers or {})})
        self.retries = retries

    def _post(self, body, stream=False):
        for attempt in range(self.retries + 1):
            request = self.http.build_request("POST", "/chat/completions", json=body)
            response = self.http.send(request, stream=stream)
            if response.status_code != 429 or attempt == self.retries:
                response.raise_for_status()
                return response
            response.close()
            time.sleep(float(response.headers.get("retry-after", "1")))
        raise AssertionError("unreachable")

    def ask(self, messages):
        """One answer, as text."""
        body = {"model": "gpt-4o-mini", "messages": messages}
        return self._post(body).json()["choices"][0]["message"]["content"]

    def stream(self, messages, tools=None):
        """A streamed answer: (text, tool calls) put together from the deltas."""
        body = {"model": "gpt-4o-mini", "messages": messages, "stream": True}
        if tools:
            body = {"model": "gpt-4o-mini", "messages": messages, "tools": tools, "stream": True}
        text, calls = "", {}
        response = self._post(body, stream=True)
        try:
            for line in response.iter_lines():
                line = line.rstrip("\r\n")  # some httpx versions keep the line end
                if not line.startswith("data: ") or line == "data: [DONE]":
                    continue
                for choice in json.loads(line[6:]).get("choices", []):
                    delta = choice.get("delta", {})
                    text += delta.get("content") or ""
                    for call in delta.get("tool_calls") or []:
                        slot = calls.setdefault(call["index"], {"name": "", "arguments": ""})
                        fn = call.get("function", {})
                        slot["name"] += fn.get("name") or ""
                        slot["arguments"] += fn.get("arguments") or ""
        finally:
            response.close()
        return text, [calls[i] for i in sorted(calls)]
