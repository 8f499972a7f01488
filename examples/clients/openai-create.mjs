// A client-profile adapter: the official openai SDK's plain
// `client.chat.completions.create(...)`; a stream is read chunk by chunk
// (`for await`) and joined as the Chat Completions streaming guide says.
//   llmconform run --profile client --client-cmd 'node examples/clients/openai-create.mjs'
import OpenAI from 'openai';
import { accumulate, countingFetch, fromMessage, input, maxRetries, requestBody, runCall, speaks, timeoutMs } from './common.mjs';

speaks(['chat']);

const client = new OpenAI({ maxRetries, timeout: timeoutMs, fetch: countingFetch });
await runCall(async () => {
  const result = await client.chat.completions.create(requestBody());
  if (input.stream) {
    const acc = accumulate();
    for await (const chunk of result) acc.add(chunk);
    return { ...fromMessage(acc.message), usage: acc.usage, finish: acc.finish };
  }
  const choice = result.choices?.[0];
  return { ...fromMessage(choice?.message), usage: result.usage ?? null, finish: choice?.finish_reason ?? null };
});
