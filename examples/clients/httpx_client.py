#!/usr/bin/env python3
"""A client-profile adapter on httpx (Debian: python3-httpx); docs/gate.md "Client profile".
Run: llmconform run --profile client --client-cmd '/usr/bin/python3 examples/clients/httpx_client.py'"""
import json, os, re, time  # noqa: E401
import httpx  # noqa: I001

inp = json.load(open(os.environ["LLMCONFORM_INPUT"]))
if inp.get("surface", "chat") != "chat":  # the surfaces it speaks: chat
    json.dump({"unsupported": f"this adapter speaks chat, not {inp['surface']}"}, open(os.environ["LLMCONFORM_OUTPUT"], "w"))
    raise SystemExit(0)
opts = inp.get("options", {})
body = {"model": inp["model"], "messages": inp["messages"], **({"tools": inp["tools"]} if "tools" in inp else {}),
        **({"stream": True} if inp.get("stream") else {}), **opts.get("params", {})}
url = os.environ["OPENAI_BASE_URL"] + "/chat/completions"
headers = {"authorization": "Bearer " + os.environ.get("OPENAI_API_KEY", "")}
out = {"text": "", "reasoning": "", "tool_calls": [], "usage": None, "finish": None, "error": None, "attempts": 0}
calls = {}  # tool calls by index (or id), in the order they came


def error_in(j):  # an error object in a body or chunk (some providers send a list of one)
    j = j[0] if isinstance(j, list) and j else j
    return (j.get("error") or (j if j.get("object") == "error" else None)) if isinstance(j, dict) else None


def add_chunk(chunk):
    out["usage"] = chunk.get("usage") or (chunk.get("x_groq") or {}).get("usage") or out["usage"]
    for choice in chunk.get("choices") or []:
        out["finish"] = choice.get("finish_reason") or out["finish"]
        d = choice.get("delta") or choice.get("message") or {}  # a whole message reads as one delta
        content = d.get("content")
        blocks = content if isinstance(content, list) else []
        out["text"] += content if isinstance(content, str) else "".join(b.get("text", "") for b in blocks if b.get("type") == "text")
        thinking = [b.get("thinking") for b in blocks if b.get("type") == "thinking"]
        out["reasoning"] += d.get("reasoning_content") or d.get("reasoning") or "".join(t if isinstance(t, str) else "".join(p.get("text", "") for p in t or []) for t in thinking)
        for tc in d.get("tool_calls") or []:
            key = tc.get("index", "id:" + str(tc.get("id") or len(calls)))
            call = calls.setdefault(key, {"id": "", "name": "", "arguments": ""})
            fn = tc.get("function") or {}
            call["id"] = call["id"] or tc.get("id") or ""
            call["name"] = call["name"] or fn.get("name") or ""
            call["arguments"] += fn.get("arguments") or ""


def read_stream(r):
    done, error = False, None
    for line in r.iter_lines():
        line = line.rstrip("\r\n")  # httpx 0.23 keeps the line end
        if not line.startswith("data:"):
            continue  # comments, blank lines, other fields
        data = line[5:].removeprefix(" ")
        if data == "[DONE]":
            done = True
        elif error_in(chunk := json.loads(data)):
            error = error or {"status": None, "kind": "in_stream", "message": error_in(chunk).get("message", "")}
        else:
            add_chunk(chunk)
    cut = {"status": None, "kind": "cut", "message": "the stream ended unfinished"}
    return error or (None if done or out["finish"] else cut)


def call(client):
    while True:
        out["attempts"] += 1
        with client.stream("POST", url, json=body, headers=headers) as r:
            if r.status_code == 200 and "event-stream" in r.headers.get("content-type", ""):
                return read_stream(r)
            text = r.read().decode("utf-8", "replace")
        try:
            j = json.loads(text)
        except ValueError:  # not JSON
            j = None
        err = error_in(j)
        limited = r.status_code == 429 or (err or {}).get("code") in (429, "429", "rate_limit_exceeded")
        wait = r.headers.get("retry-after-ms") or (r.headers.get("retry-after") and float(r.headers["retry-after"]) * 1000)
        if limited and wait and float(wait) <= 2000 and out["attempts"] <= opts.get("max_retries", 2):
            time.sleep(float(wait) / 1000)
            continue
        if r.status_code >= 400 or err or not isinstance(j, dict) or not j.get("choices"):
            return {"status": r.status_code if r.status_code >= 400 else None, "kind": "http" if r.status_code >= 400 else "in_body", "message": (err or {}).get("message", text[:200])}
        add_chunk({**j, "choices": j["choices"][:1]})
        return None


try:
    # LLMCONFORM_TIMEOUT_MS: the connect, write and read (between reads: a stall) timeouts.
    with httpx.Client(timeout=int(os.environ.get("LLMCONFORM_TIMEOUT_MS", 30000)) / 1000) as client:
        out["error"] = call(client)
except (httpx.HTTPError, ValueError) as e:
    kind = "timeout" if isinstance(e, httpx.TimeoutException) else "cut" if isinstance(e, httpx.TransportError) else type(e).__name__
    out["error"] = {"status": None, "kind": kind, "message": str(e)}
if m := re.match(r"<think>\n?([\s\S]*?)\n?</think>(?:\r?\n){0,2}", out["text"]):
    out["reasoning"] = (out["reasoning"] + "\n" if out["reasoning"] else "") + m.group(1)
    out["text"] = out["text"][m.end():]
out["tool_calls"] = list(calls.values())
json.dump(out, open(os.environ["LLMCONFORM_OUTPUT"], "w"))
