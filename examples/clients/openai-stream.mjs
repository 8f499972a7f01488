// A client-profile adapter: the official openai SDK's stream helper,
// `client.chat.completions.stream(...)` and `finalChatCompletion()`, as an
// application uses it (`create` for a call that does not stream).
//   llmconform run --profile client --client-cmd 'node examples/clients/openai-stream.mjs'
// OPENAI_BASE_URL and OPENAI_API_KEY come from llmconform; the SDK reads them.
import OpenAI from 'openai';
import { countingFetch, fromMessage, input, maxRetries, requestBody, runCall, speaks, timeoutMs } from './common.mjs';

speaks(['chat']);

const client = new OpenAI({ maxRetries, timeout: timeoutMs, fetch: countingFetch });
await runCall(async () => {
  const body = requestBody();
  const completion = input.stream
    ? await client.chat.completions.stream(body).finalChatCompletion()
    : await client.chat.completions.create(body);
  const choice = completion.choices?.[0];
  return { ...fromMessage(choice?.message), usage: completion.usage ?? null, finish: choice?.finish_reason ?? null };
});
