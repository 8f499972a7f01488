#!/usr/bin/env python3
"""Deliberately broken `llmconform check` SUTs: the reference itself
(`$LLMCONFORM ref --serve`) with one realistic bug injected into its answers.

    broken_wrap.py time   action.parse rewrites a time inside the spoken text
                          ("10:30" becomes "10.30", as a text normaliser would)
    broken_wrap.py tag    thinkingml.validate accepts a disallowed tag: a reply
                          whose only fault is a tag outside the allowed set is
                          judged valid
    broken_wrap.py crash  exits when the input text holds an emoji; garbage
                          line for a tab (the harness's own robustness)
"""
import json
import os
import re
import subprocess
import sys

mode = sys.argv[1]
ref = subprocess.Popen([os.environ["LLMCONFORM"], "ref", "--serve"], stdin=subprocess.PIPE,
                       stdout=subprocess.PIPE, text=True, encoding="utf-8")


def ask(line):
    ref.stdin.write(line)
    ref.stdin.flush()
    return json.loads(ref.stdout.readline())


for line in sys.stdin:
    request = json.loads(line)
    answer = ask(line if line.endswith("\n") else line + "\n")
    out = answer.get("output")
    if mode == "time" and request["op"] == "action.parse" and out is not None:
        out["text"] = re.sub(r"\b(\d{1,2}):(\d{2})\b", r"\1.\2", out["text"])
    elif mode == "tag" and request["op"] == "thinkingml.validate" and out is not None:
        if out["findings"] and all(f["rule"] == "TML-2.1" for f in out["findings"]):
            out["valid"] = True
            out["findings"] = []
    elif mode == "crash":
        text = json.dumps(request["input"], ensure_ascii=False)
        if "😀" in text:
            sys.exit(3)
        if "\\t" in text:
            sys.stdout.write("debug: saw a tab\n")
            sys.stdout.flush()
            continue
    sys.stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
    sys.stdout.flush()
