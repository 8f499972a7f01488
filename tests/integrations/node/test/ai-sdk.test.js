import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { useMockllm } from '@llmconform/mockllm';
import { generateText, streamText } from 'ai';

// The Vercel AI SDK shapes requests its own way (tool_choice, stream_options):
// --match sdk treats the API's defaults as absent on both sides.
const mock = useMockllm({ traces: 'traces', pin: 'greeter/chat', args: ['--match', 'sdk'] });

test('generateText then streamText through the AI SDK', async () => {
  const provider = createOpenAICompatible({ name: 'mockllm', baseURL: mock.baseURL, apiKey: 'test-key', headers: mock.headers });
  const model = provider.chatModel('gpt-4o-mini');
  const system = 'You are terse.';
  const first = await generateText({ model, system, prompt: 'Say hello.' });
  expect(first.text).toBe('Hello.');
  const result = streamText({
    model,
    system,
    messages: [{ role: 'user', content: 'Say hello.' }, { role: 'assistant', content: 'Hello.' }, { role: 'user', content: 'Count to three.' }],
  });
  let text = '';
  for await (const delta of result.textStream) text += delta;
  expect(text).toBe('One, two, three.');
  expect(await mock.unmatched()).toEqual([]);
});
