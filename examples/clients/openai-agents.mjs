// A client-profile adapter: the OpenAI Agents SDK (`@openai/agents`) with its
// chat-completions model on the base URL, as an application runs an agent:
// `run(agent, …)`, streamed (`{ stream: true }`, read to the end) when the
// call streams. Tools need approval, so the run stops at the model's tool
// calls (`interruptions`) instead of executing them. The SDK exposes no finish
// reason: the output leaves `finish` out (unsupported).
//   llmconform run --profile client --client-cmd 'node examples/clients/openai-agents.mjs'
import { Agent, OpenAIChatCompletionsModel, run, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai';
import { countingFetch, input, maxRetries, options, runCall, speaks, timeoutMs } from './common.mjs';

speaks(['chat']);

setTracingDisabled(true);
const { stream_options: _usageAlwaysAsked, ...params } = options.params ?? {};
const client = new OpenAI({ maxRetries, timeout: timeoutMs, fetch: countingFetch });
const agent = new Agent({
  name: 'llmconform',
  model: new OpenAIChatCompletionsModel(client, input.model),
  modelSettings: { providerData: params },  // sent as they are (reasoning_effort, …)
  tools: (input.tools ?? []).map(({ function: f }) => tool({
    name: f.name, description: f.description ?? '', parameters: f.parameters, strict: false,
    needsApproval: true, execute: async () => '',
  })),
});
const reasoningOf = (responses) => responses.flatMap((r) => r.output)
  .filter((item) => item.type === 'reasoning')
  .flatMap((item) => [...(item.rawContent ?? []), ...(item.content ?? [])].map((c) => c.text ?? '')).join('');

await runCall(async () => {
  const result = await run(agent, input.messages, { stream: input.stream === true });
  if (input.stream) {
    for await (const _event of result) { /* read to the end */ }
    await result.completed;
    if (result.error) throw result.error;
  }
  const u = result.rawResponses.at(-1)?.usage;
  return {
    text: typeof result.finalOutput === 'string' ? result.finalOutput : '',
    reasoning: reasoningOf(result.rawResponses),
    tool_calls: result.interruptions.map(({ rawItem: c }) => ({ id: c.callId ?? '', name: c.name, arguments: c.arguments })),
    usage: u && u.requests !== 0 ? { prompt_tokens: u.inputTokens, completion_tokens: u.outputTokens, total_tokens: u.totalTokens } : null,
  };
}, { unsupported: ['finish'] });
