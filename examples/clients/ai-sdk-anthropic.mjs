// A client-profile adapter: the Vercel AI SDK (`ai`) with its Anthropic
// provider (@ai-sdk/anthropic) on the Messages API, as an application uses it:
// `generateText`, or `streamText` for a streamed call (ai-sdk-common.mjs).
//   llmconform run --profile client --client-cmd 'node examples/clients/ai-sdk-anthropic.mjs'
// ANTHROPIC_BASE_URL (the server's root) and ANTHROPIC_API_KEY come from llmconform.
import { createAnthropic } from '@ai-sdk/anthropic';
import { runAiSdk } from './ai-sdk-common.mjs';
import { countingFetch, input, options, speaks } from './common.mjs';

speaks(['messages']);

// The request's parameters in the provider's option names: max_tokens,
// thinking {type, budget_tokens}, output_config {effort}.
const { max_tokens: maxTokens, thinking, output_config: outputConfig, ...params } = options.params ?? {};
const budget = thinking?.type === 'enabled' ? thinking.budget_tokens : undefined;
const provider = createAnthropic({
  baseURL: `${process.env.ANTHROPIC_BASE_URL}/v1`,
  apiKey: process.env.ANTHROPIC_API_KEY,
  fetch: countingFetch,
});
await runAiSdk({
  model: provider(input.model),
  // The provider sends maxOutputTokens + the thinking budget as max_tokens.
  maxOutputTokens: maxTokens - (budget ?? 0),
  providerOptions: {
    anthropic: {
      ...params,
      ...(thinking && { thinking: { type: thinking.type, budgetTokens: budget } }),
      ...(outputConfig?.effort && { effort: outputConfig.effort }),
    },
  },
});
