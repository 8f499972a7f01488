// A `llmconform check` adapter in Node (no packages needed).
//
// llmconform writes one request per line on our stdin:
//   {"id": 17, "op": "multiturn.buildLLMMessages", "input": {...}}
// and we answer each, in order, with one line on stdout:
//   {"id": 17, "output": {...}}      or      {"id": 17, "error": "why"}
//
// Replace the two functions below by calls into your own implementation:
//   llmconform check --sut 'node check_adapter.mjs' --op multiturn.buildLLMMessages
import { createInterface } from 'node:readline';

// ---- the implementation under test (here: a small one of our own) ----------
function estimateMessageTokens(text) {
  const bytes = Buffer.byteLength(text, 'utf8');
  return bytes === 0 ? 0 : Math.max(1, Math.ceil(bytes / 4));
}

function buildLLMMessages(systemPrompt, history, current, budget) {
  history.forEach((m, i) => {
    if (m.role !== 'user' && m.role !== 'assistant')
      throw new Error(`/history/${i}/role: expected "user" or "assistant", got "${m.role}"`);
  });
  let total = estimateMessageTokens(systemPrompt) + estimateMessageTokens(current);
  const kept = [];
  for (let i = history.length - 1; i >= 0; i--) {
    const cost = estimateMessageTokens(history[i].content);
    if (total + cost > budget) break;
    total += cost;
    kept.unshift({ role: history[i].role, content: history[i].content });
  }
  return [{ role: 'system', content: systemPrompt }, ...kept, { role: 'user', content: current }];
}

// ---- the adapter --------------------------------------------------------------
function run(op, input) {
  if (op === 'multiturn.estimateMessageTokens') return { tokens: estimateMessageTokens(input.text) };
  if (op === 'multiturn.buildLLMMessages')
    return { messages: buildLLMMessages(input.systemPrompt, input.history, input.currentUserMessage,
                                        input.maxTokenBudget) };
  throw new Error(`unsupported op ${op}`);
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (!line.trim()) continue;
  const request = JSON.parse(line);
  let answer;
  try {
    answer = { id: request.id, output: run(request.op, request.input) };
  } catch (e) {
    answer = { id: request.id, error: String(e.message ?? e) };
  }
  // Node buffers stdout writes to a pipe and sends them in order.
  process.stdout.write(JSON.stringify(answer) + '\n');
}
