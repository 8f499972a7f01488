// A client-profile adapter: Google's Gen AI SDK (@google/genai) on the Gemini
// API, `ai.models.generateContent(...)`, or `generateContentStream(...)` read
// to its end for a streamed call, as an application uses it.
//   llmconform run --profile client --client-cmd 'node examples/clients/genai.mjs'
// GOOGLE_GEMINI_BASE_URL and GEMINI_API_KEY come from llmconform.
import { GoogleGenAI } from '@google/genai';
import { countingFetch, input, maxRetries, options, runCall, speaks, timeoutMs, toolsAs, usageOf } from './common.mjs';

speaks(['gemini']);
globalThis.fetch = countingFetch;  // the SDK calls the global fetch: its requests are counted
const ai = new GoogleGenAI({
  apiKey: process.env.GEMINI_API_KEY,
  httpOptions: { baseUrl: process.env.GOOGLE_GEMINI_BASE_URL, apiVersion: 'v1beta', timeout: timeoutMs, retryOptions: { attempts: maxRetries + 1 } },
});
const { generationConfig, ...params } = options.params ?? {};
const call = {
  model: input.model,
  contents: input.messages.map(({ role, content }) => ({ role: role === 'assistant' ? 'model' : 'user', parts: [{ text: content }] })),
  config: {
    ...generationConfig,  // thinkingConfig, …
    ...params,
    tools: input.tools && [{ functionDeclarations: toolsAs((name, description, parametersJsonSchema) => ({ name, description, parametersJsonSchema })) }],
  },
};
await runCall(async () => {
  const chunks = input.stream ? [] : [await ai.models.generateContent(call)];
  if (input.stream) for await (const chunk of await ai.models.generateContentStream(call)) chunks.push(chunk);
  const parts = chunks.flatMap((c) => c.candidates?.[0]?.content?.parts ?? []);
  const last = (f) => chunks.map(f).filter((v) => v !== undefined).at(-1);
  const u = last((c) => c.usageMetadata);
  return {
    text: parts.filter((p) => typeof p.text === 'string' && !p.thought).map((p) => p.text).join(''),
    reasoning: parts.filter((p) => p.thought && typeof p.text === 'string').map((p) => p.text).join(''),
    tool_calls: parts.filter((p) => p.functionCall).map(({ functionCall: f }) => ({ id: f.id ?? '', name: f.name, arguments: JSON.stringify(f.args ?? {}) })),
    usage: u ? usageOf(u.promptTokenCount, u.candidatesTokenCount, u.totalTokenCount) : null,
    finish: last((c) => c.candidates?.[0]?.finishReason) ?? null,
  };
});
