// A client-profile adapter: LangChain.js's ChatOpenAI (`@langchain/openai`) on
// Chat Completions, as an application uses it: `invoke`, or `stream` with the
// chunks concatenated. Tools are bound with `bindTools`; the calls come back in
// `tool_calls`. ChatOpenAI exposes no reasoning (it drops `reasoning_content`),
// so the output leaves `reasoning` out: unsupported, not failed.
//   llmconform run --profile client --client-cmd 'node examples/clients/langchain.mjs'
import { ChatOpenAI } from '@langchain/openai';
import { countingFetch, input, maxRetries, options, runCall, speaks, timeoutMs } from './common.mjs';

speaks(['chat']);

const { stream_options: streamOptions, ...params } = options.params ?? {};
const chat = new ChatOpenAI({
  model: input.model,
  apiKey: process.env.OPENAI_API_KEY,
  configuration: { baseURL: process.env.OPENAI_BASE_URL, fetch: countingFetch },
  maxRetries,
  timeout: timeoutMs,
  streamUsage: streamOptions?.include_usage === true,
  modelKwargs: params,  // sent as they are (reasoning_effort, …)
});
const model = input.tools ? chat.bindTools(input.tools) : chat;

await runCall(async () => {
  let message;
  if (input.stream) {
    for await (const chunk of await model.stream(input.messages)) message = message ? message.concat(chunk) : chunk;
  } else {
    message = await model.invoke(input.messages);
  }
  const u = message?.usage_metadata;
  return {
    text: message?.text ?? '',
    tool_calls: (message?.tool_calls ?? []).map((c) => ({ id: c.id ?? '', name: c.name, arguments: JSON.stringify(c.args) })),
    usage: u ? { prompt_tokens: u.input_tokens, completion_tokens: u.output_tokens, total_tokens: u.total_tokens } : null,
    finish: message?.response_metadata?.finish_reason ?? null,
  };
}, { unsupported: ['reasoning'] });
