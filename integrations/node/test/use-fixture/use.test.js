// Run by helper.test.js in a vitest of its own: the second test must fail.
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';

const { useMockllm } = await import(process.env.HELPER);
const m = useMockllm({ traces: process.env.PROBE_TRACES, pin: 'probe/plain' },
  { beforeAll, afterAll, beforeEach, afterEach });
const body = (content) => JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] });
const post = (content) => fetch(`${m.baseURL}/chat/completions`, {
  method: 'POST', headers: { 'content-type': 'application/json', ...m.headers }, body: body(content) });

it('replays the pinned trace', async () => {
  expect((await post('Say hello in five words.')).status).toBe(200);
});

it('sends what was never recorded', async () => {
  expect((await post('something else')).status).toBe(400);
});

it('has a session of its own, at the first exchange again', async () => {
  expect((await post('Say hello in five words.')).status).toBe(200);
});
