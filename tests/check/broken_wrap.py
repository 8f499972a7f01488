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
    broken_wrap.py clean  skill.cleanOutputForAI with two independent bugs of
                          the public implementation: it drops CR bytes (where
                          a terminal overwrites) and cuts the last command off
                          the first line when the line only begins with it
                          ("lsblk" after "ls" becomes "blk")
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


def cut_echo(text, first, command):
    """The public implementation's echo step: a first line that only begins
    with the command loses that prefix ("lsblk" after "ls" becomes "blk");
    `first` is the first line before the echo step (one equal to the command
    is dropped, as the reference does)."""
    command = command.strip()
    if not command or first == command or not first.startswith(command):
        return text
    lines = text.split("\n")
    lines[0] = lines[0][len(command):].strip()
    if not lines[0]:
        lines.pop(0)
    return "\n".join(lines) if lines else "(no output)"


for line in sys.stdin:
    request = json.loads(line)
    if mode == "clean" and request["op"] == "skill.cleanOutputForAI":
        # The reference on the text with its CRs dropped; then cut_echo.
        request["input"]["text"] = request["input"]["text"].replace("\r", "")
        command = request["input"].get("lastCommand") or ""
        line = json.dumps(request)
        plain = dict(request, input={"text": request["input"]["text"]})
        first = ask(json.dumps(plain) + "\n").get("output", {}).get("text", "").split("\n")[0]
    answer = ask(line if line.endswith("\n") else line + "\n")
    out = answer.get("output")
    if mode == "time" and request["op"] == "action.parse" and out is not None:
        out["text"] = re.sub(r"\b(\d{1,2}):(\d{2})\b", r"\1.\2", out["text"])
    elif mode == "tag" and request["op"] == "thinkingml.validate" and out is not None:
        if out["findings"] and all(f["rule"] == "TML-2.1" for f in out["findings"]):
            out["valid"] = True
            out["findings"] = []
    elif mode == "clean" and request["op"] == "skill.cleanOutputForAI" and out is not None:
        out["text"] = cut_echo(out["text"], first, command)
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
