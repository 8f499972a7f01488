import { useMockllm } from '@llmconform/mockllm';
import { client, greetAndCount } from '../src/greeter.js';

// Every exchange answers 429 once: the SDK's retry must get the same exchange.
const mock = useMockllm({
  traces: 'traces/greeter.trace.jsonl',
  pin: 'greeter/chat',
  faults: { status: 429, retry_after: 0, times: 1 },
});

test('the openai SDK retries each 429 and the conversation goes on', async () => {
  const openai = client({ baseURL: mock.baseURL, apiKey: 'test-key', headers: mock.headers });
  expect(await greetAndCount(openai)).toEqual({ greeting: 'Hello.', count: 'One, two, three.' });
  const statuses = (await mock.journal()).map((e) => [e.response.exchange, e.response.status]);
  expect(statuses).toEqual([[0, 429], [0, 200], [1, 429], [1, 200]]);
});
