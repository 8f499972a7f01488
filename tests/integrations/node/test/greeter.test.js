import { useMockllm } from '@llmconform/mockllm';
import { client, greetAndCount } from '../src/greeter.js';

// One mockllm for this file, one session per test; a test fails when mockllm
// refused one of its requests or it left recorded exchanges unused.
const mock = useMockllm({ traces: 'traces', pin: 'greeter/chat' });

test('greets, then counts (a JSON answer, then a stream)', async () => {
  const openai = client({ baseURL: mock.baseURL, apiKey: 'test-key', headers: mock.headers });
  expect(await greetAndCount(openai)).toEqual({ greeting: 'Hello.', count: 'One, two, three.' });
  const journal = await mock.journal();
  expect(journal.map((e) => [e.response.exchange, e.response.stream])).toEqual([[0, false], [1, true]]);
});

test('every test replays the conversation from its start', async () => {
  const openai = client({ baseURL: mock.baseURL, apiKey: 'test-key', headers: mock.headers });
  expect((await greetAndCount(openai)).greeting).toBe('Hello.');
});
