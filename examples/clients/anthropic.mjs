// A client-profile adapter: Anthropic's SDK (@anthropic-ai/sdk) on the
// Messages API, `client.messages.create(...)`, or `client.messages.stream(...)`
// and `finalMessage()` for a streamed call, as an application uses it.
//   llmconform run --profile client --client-cmd 'node examples/clients/anthropic.mjs'
// ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY come from llmconform; the SDK reads them.
import Anthropic from '@anthropic-ai/sdk';
import { countingFetch, input, maxRetries, options, runCall, speaks, timeoutMs, toolsAs, usageOf } from './common.mjs';

speaks(['messages']);
const client = new Anthropic({ maxRetries, timeout: timeoutMs, fetch: countingFetch });
const body = {
  model: input.model,
  messages: input.messages.map(({ role, content }) => ({ role, content })),
  tools: toolsAs((name, description, parameters) => ({ name, description, input_schema: parameters })),
  ...options.params,  // max_tokens (the API requires it), thinking, …
};
await runCall(async () => {
  const m = input.stream ? await client.messages.stream(body).finalMessage() : await client.messages.create(body);
  const blocks = (type) => (m.content ?? []).filter((b) => b.type === type);
  return {
    text: blocks('text').map((b) => b.text).join(''),
    reasoning: blocks('thinking').map((b) => b.thinking).join(''),
    tool_calls: blocks('tool_use').map((b) => ({ id: b.id, name: b.name, arguments: JSON.stringify(b.input) })),
    usage: m.usage ? usageOf(m.usage.input_tokens, m.usage.output_tokens) : null,
    finish: m.stop_reason ?? null,
  };
});
