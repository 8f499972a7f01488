// A client-profile adapter: the Vercel AI SDK (`ai`) with its OpenAI-compatible
// provider, as an application uses it: `generateText`, or `streamText` for a
// streamed call (ai-sdk-common.mjs).
//   llmconform run --profile client --client-cmd 'node examples/clients/ai-sdk.mjs'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { runAiSdk } from './ai-sdk-common.mjs';
import { countingFetch, input, options, speaks } from './common.mjs';

speaks(['chat']);

const { stream_options: streamOptions, ...params } = options.params ?? {};
const provider = createOpenAICompatible({
  name: 'llmconform',
  baseURL: process.env.OPENAI_BASE_URL,
  apiKey: process.env.OPENAI_API_KEY,
  includeUsage: streamOptions?.include_usage === true,
  fetch: countingFetch,
});
await runAiSdk({
  model: provider.chatModel(input.model),
  providerOptions: { llmconform: params },  // sent as they are (reasoning_effort, …)
});
