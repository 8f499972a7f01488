// A client-profile adapter: the official openai SDK on the Responses API,
// `client.responses.create(...)`, or `client.responses.stream(...)` and
// `finalResponse()` for a streamed call, as an application uses it.
//   llmconform run --profile client --client-cmd 'node examples/clients/openai-responses.mjs'
// OPENAI_BASE_URL and OPENAI_API_KEY come from llmconform; the SDK reads them.
import OpenAI from 'openai';
import { countingFetch, input, maxRetries, options, runCall, speaks, timeoutMs, toolsAs, usageOf } from './common.mjs';

speaks(['responses']);
const client = new OpenAI({ maxRetries, timeout: timeoutMs, fetch: countingFetch });
const body = {
  model: input.model,
  input: input.messages.map(({ role, content }) => ({ role, content })),
  tools: toolsAs((name, description, parameters) => ({ type: 'function', name, description, parameters })),
  ...options.params,
};
await runCall(async () => {
  const r = input.stream ? await client.responses.stream(body).finalResponse() : await client.responses.create(body);
  const items = (type) => (r.output ?? []).filter((i) => i.type === type);
  return {
    text: r.output_text ?? '',
    reasoning: items('reasoning').map((i) => [...(i.summary ?? []), ...(i.content ?? [])].map((p) => p.text ?? '').join('')).join(''),
    tool_calls: items('function_call').map((c) => ({ id: c.call_id, name: c.name, arguments: c.arguments })),
    usage: r.usage ? usageOf(r.usage.input_tokens, r.usage.output_tokens, r.usage.total_tokens) : null,
    finish: r.status ?? null,
  };
});
