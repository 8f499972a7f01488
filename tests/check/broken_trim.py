#!/usr/bin/env python3
"""A deliberately broken `llmconform check` SUT: the example adapter with one
bug, the kind a real port makes — over budget it trims the NEWEST history
instead of the oldest (it keeps the longest run of the oldest messages)."""
import json
import sys


def tokens(text):
    size = len(text.encode("utf-8"))
    return 0 if size == 0 else max(1, (size + 3) // 4)


def build(system_prompt, history, current, budget):
    for i, m in enumerate(history):
        if m["role"] not in ("user", "assistant"):
            raise ValueError(f"history[{i}].role: bad role")
    total = tokens(system_prompt) + tokens(current)
    kept = []
    for m in history:  # BUG: walks from the oldest message
        if total + tokens(m["content"]) > budget:
            break
        total += tokens(m["content"])
        kept.append({"role": m["role"], "content": m["content"]})
    return [{"role": "system", "content": system_prompt}] + kept + [{"role": "user", "content": current}]


for line in sys.stdin:
    request = json.loads(line)
    answer = {"id": request["id"]}
    try:
        d = request["input"]
        if request["op"] == "multiturn.buildLLMMessages":
            answer["output"] = {"messages": build(d["systemPrompt"], d["history"],
                                                  d["currentUserMessage"], d["maxTokenBudget"])}
        else:
            answer["output"] = {"tokens": tokens(d["text"])}
    except (AttributeError, KeyError, TypeError, ValueError) as e:
        answer["error"] = str(e)
    sys.stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
    sys.stdout.flush()
