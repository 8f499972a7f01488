// A client-profile adapter: the Vercel AI SDK (`ai`) with its OpenAI-compatible
// provider, as an application uses it: `generateText`, or `streamText` for a
// streamed call (its text, reasoning and tool-call streams read to the end).
// Tools are declared without `execute`, so the calls come back to the caller.
//   llmconform run --profile client --client-cmd 'node examples/clients/ai-sdk.mjs'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, jsonSchema, streamText, tool } from 'ai';
import { countingFetch, input, maxRetries, options, runCall, speaks } from './common.mjs';

speaks(['chat']);

const { stream_options: streamOptions, ...params } = options.params ?? {};
const provider = createOpenAICompatible({
  name: 'llmconform',
  baseURL: process.env.OPENAI_BASE_URL,
  apiKey: process.env.OPENAI_API_KEY,
  includeUsage: streamOptions?.include_usage === true,
  fetch: countingFetch,
});
const tools = input.tools && Object.fromEntries(input.tools.map(({ function: f }) => [
  f.name, tool({ description: f.description, inputSchema: jsonSchema(f.parameters ?? { type: 'object' }) }),
]));
const call = {
  model: provider.chatModel(input.model),
  messages: input.messages,
  tools,
  maxRetries,
  providerOptions: { llmconform: params },  // sent as they are (reasoning_effort, …)
};
// The SDK's usage and finish reason in the output's shape.
const usageOf = (u) => (u && u.inputTokens !== undefined
  ? { prompt_tokens: u.inputTokens, completion_tokens: u.outputTokens, total_tokens: u.totalTokens } : null);
const finishOf = (f) => ({ 'tool-calls': 'tool_calls', 'content-filter': 'content_filter' }[f] ?? f ?? null);

await runCall(async () => {
  let result = input.stream ? streamText({ ...call, onError: () => {} }) : await generateText(call);
  if (input.stream) {
    // A stream's error comes as a part of fullStream (streamText does not throw it): raised here.
    for await (const part of result.fullStream) if (part.type === 'error') throw part.error;
    result = { text: await result.text, reasoningText: await result.reasoningText, toolCalls: await result.toolCalls,
      usage: await result.usage, finishReason: await result.finishReason };
  }
  return {
    text: result.text ?? '',
    reasoning: result.reasoningText ?? '',
    tool_calls: (result.toolCalls ?? []).map((c) => ({ id: c.toolCallId, name: c.toolName, arguments: JSON.stringify(c.input) })),
    usage: usageOf(result.usage),
    finish: finishOf(result.finishReason),
  };
});
