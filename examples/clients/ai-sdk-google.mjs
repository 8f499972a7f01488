// A client-profile adapter: the Vercel AI SDK (`ai`) with its Google provider
// (@ai-sdk/google) on the Gemini API, as an application uses it:
// `generateText`, or `streamText` for a streamed call (ai-sdk-common.mjs).
//   llmconform run --profile client --client-cmd 'node examples/clients/ai-sdk-google.mjs'
// GOOGLE_GEMINI_BASE_URL (the server's root) and GEMINI_API_KEY come from llmconform.
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { runAiSdk } from './ai-sdk-common.mjs';
import { countingFetch, input, options, speaks } from './common.mjs';

speaks(['gemini']);

const { generationConfig, ...params } = options.params ?? {};
const provider = createGoogleGenerativeAI({
  baseURL: `${process.env.GOOGLE_GEMINI_BASE_URL}/v1beta`,
  apiKey: process.env.GEMINI_API_KEY,
  fetch: countingFetch,
});
await runAiSdk({
  model: provider(input.model),
  providerOptions: { google: { ...generationConfig, ...params } },  // thinkingConfig, … under the same names
}, { textOutputOnly: true });
