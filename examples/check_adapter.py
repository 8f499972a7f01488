#!/usr/bin/env python3
"""A `llmconform check` adapter in Python (standard library only).

llmconform writes one request per line on our stdin:
    {"id": 17, "op": "multiturn.buildLLMMessages", "input": {...}}
and we answer each, in order, with one line on stdout:
    {"id": 17, "output": {...}}      or      {"id": 17, "error": "why"}

Copy this file and replace the two functions below by calls into your own
implementation. Run it under the gate with:
    llmconform check --sut 'python3 check_adapter.py' \
        --op multiturn.buildLLMMessages --op multiturn.estimateMessageTokens
"""
import json
import sys


# ---- the implementation under test (here: a small one of our own) ----------

def estimate_message_tokens(text):
    size = len(text.encode("utf-8"))
    return 0 if size == 0 else max(1, (size + 3) // 4)


def build_llm_messages(system_prompt, history, current, budget):
    for i, m in enumerate(history):
        if m["role"] not in ("user", "assistant"):
            raise ValueError(f'/history/{i}/role: expected "user" or "assistant", got "{m["role"]}"')
    total = estimate_message_tokens(system_prompt) + estimate_message_tokens(current)
    kept = []
    for m in reversed(history):  # newest first, while the budget allows
        cost = estimate_message_tokens(m["content"])
        if total + cost > budget:
            break
        total += cost
        kept.append({"role": m["role"], "content": m["content"]})
    kept.reverse()
    return ([{"role": "system", "content": system_prompt}] + kept +
            [{"role": "user", "content": current}])


# ---- the adapter --------------------------------------------------------------

def run(op, data):
    if op == "multiturn.estimateMessageTokens":
        return {"tokens": estimate_message_tokens(data["text"])}
    if op == "multiturn.buildLLMMessages":
        return {"messages": build_llm_messages(data["systemPrompt"], data["history"],
                                               data["currentUserMessage"], data["maxTokenBudget"])}
    raise ValueError(f"unsupported op {op}")


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        answer = {"id": request["id"]}
        try:
            answer["output"] = run(request["op"], request["input"])
        except (AttributeError, KeyError, TypeError, ValueError) as e:
            answer["error"] = str(e)
        sys.stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
