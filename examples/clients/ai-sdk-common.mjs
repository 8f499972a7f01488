// Shared by the Vercel AI SDK adapters (ai-sdk*.mjs): the call as an
// application makes it, `generateText`, or `streamText` for a streamed call
// (its text, reasoning and tool-call streams read to the end), and what it
// read in the output's shape. Tools are declared without `execute`, so the
// calls come back to the caller.
import { generateText, jsonSchema, streamText, tool } from 'ai';
import { input, maxRetries, runCall, timeoutMs } from './common.mjs';

// The neutral tools as the AI SDK's tool set (undefined without tools).
export const aiSdkTools = () => input.tools && Object.fromEntries(input.tools.map(({ function: f }) => [
  f.name, tool({ description: f.description, inputSchema: jsonSchema(f.parameters ?? { type: 'object' }) }),
]));

// The SDK's usage in the output's shape: its output tokens (reasoning
// included, as Chat's completion_tokens counts them), or, with
// `textOutputOnly`, those of the text alone (the Gemini API's
// candidatesTokenCount, which leaves the thoughts out).
const usageOf = (u, textOutputOnly) => (u && u.inputTokens !== undefined ? {
  prompt_tokens: u.inputTokens,
  completion_tokens: textOutputOnly ? u.outputTokenDetails?.textTokens ?? u.outputTokens : u.outputTokens,
  total_tokens: u.totalTokens,
} : null);
const finishOf = (f) => ({ 'tool-calls': 'tool_calls', 'content-filter': 'content_filter' }[f] ?? f ?? null);

// Makes `call` ({model, messages, tools, providerOptions, …}; the input's
// messages, the retry limit and the timeout are added) and writes the output; the
// second argument: {textOutputOnly} as usageOf takes it.
export async function runAiSdk(call, { textOutputOnly = false } = {}) {
  call = { messages: input.messages, tools: aiSdkTools(), maxRetries, timeout: timeoutMs, ...call };
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
      usage: usageOf(result.usage, textOutputOnly),
      finish: finishOf(result.finishReason),
    };
  });
}
