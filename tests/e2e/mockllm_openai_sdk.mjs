// End to end: the official `openai` SDK and `eventsource-parser` against a
// real `mockllm serve` replaying the bundled test fixtures.
//   node tests/e2e/mockllm_openai_sdk.mjs MOCKLLM_BINARY FIXTURES_DIR
import assert from 'node:assert/strict';
import { join } from 'node:path';

import { createParser } from 'eventsource-parser';
import OpenAI from 'openai';

import { e2eArgs, recordedRequest, recordedStream, runTests, startMockllm } from './mockllm_process.mjs';

const { binary, fixtures } = e2eArgs();
const chat = join(fixtures, 'mockllm_chat.trace.jsonl');
const tools = join(fixtures, 'mockllm_tools.trace.jsonl');

const server = await startMockllm(binary, ['serve', '--traces', fixtures, '--speed', '0']);
const pinned = (id, options = {}) =>
  new OpenAI({ apiKey: 'test-key', baseURL: `${server.url}/t/${encodeURIComponent(id)}/v1`, maxRetries: 0, ...options });
const journal = async () => (await fetch(`${server.url}/__admin/journal`)).json();

try {
  await runTests({
    async 'non-streaming completion'() {
      const client = pinned('test/mockllm-chat', { defaultHeaders: { 'X-Mockllm-Session': 'sdk-json' } });
      const completion = await client.chat.completions.create(recordedRequest(chat, 0));
      assert.equal(completion.id, 'chatcmpl-mock1');
      assert.equal(completion.choices[0].message.content, 'Hello.');
      assert.equal(completion.usage.total_tokens, 21);
    },

    async 'streaming completion continues the session'() {
      const client = pinned('test/mockllm-chat', { defaultHeaders: { 'X-Mockllm-Session': 'sdk-json' } });
      const stream = await client.chat.completions.create(recordedRequest(chat, 1));
      let text = '';
      let finish = null;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta?.content ?? '';
        finish = chunk.choices[0]?.finish_reason ?? finish;
      }
      assert.equal(text, 'One, two, three.');
      assert.equal(finish, 'stop');
      const entries = (await journal()).filter((e) => e.session === 'sdk-json');
      assert.deepEqual(
        entries.map((e) => e.response.exchange),
        [0, 1],
      );
      assert.equal(entries[1].request.headers.authorization, '[redacted]');
    },

    async 'streaming parallel tool calls'() {
      const client = pinned('test/mockllm-tools');
      const stream = await client.chat.completions.create(recordedRequest(tools, 0));
      const calls = [];
      let finish = null;
      for await (const chunk of stream) {
        for (const delta of chunk.choices[0]?.delta?.tool_calls ?? []) {
          calls[delta.index] ??= { id: '', name: '', arguments: '' };
          const call = calls[delta.index];
          call.id ||= delta.id ?? '';
          call.name ||= delta.function?.name ?? '';
          call.arguments += delta.function?.arguments ?? '';
        }
        finish = chunk.choices[0]?.finish_reason ?? finish;
      }
      assert.equal(finish, 'tool_calls');
      assert.deepEqual(
        calls.map((c) => [c.id, c.name, JSON.parse(c.arguments)]),
        [
          ['call_paris01', 'get_weather', { city: 'Paris' }],
          ['call_tokyo02', 'get_weather', { city: 'Tokyo' }],
        ],
      );
    },

    async 'eventsource-parser sees the recorded events'() {
      const res = await fetch(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(recordedRequest(tools, 0)),
      });
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type'), /^text\/event-stream/);
      const events = [];
      const parser = createParser({ onEvent: (e) => events.push(e.data) });
      const decoder = new TextDecoder();
      for await (const piece of res.body) parser.feed(decoder.decode(piece, { stream: true }));
      const expected = [];
      createParser({ onEvent: (e) => expected.push(e.data) }).feed(recordedStream(tools, 0).toString('utf8'));
      assert.equal(events.length, 8);
      assert.deepEqual(events, expected);
      assert.equal(events.at(-1), '[DONE]');
    },

    async '429 with Retry-After is a RateLimitError'() {
      const client = pinned('test/mockllm-ratelimit');
      await assert.rejects(client.chat.completions.create(recordedRequest(chat, 0)), (err) => {
        assert.ok(err instanceof OpenAI.RateLimitError, `got ${err?.constructor?.name}: ${err}`);
        assert.equal(err.status, 429);
        assert.equal(err.headers.get('retry-after'), '1');
        assert.equal(err.code, 'rate_limit_exceeded');
        return true;
      });
    },

    async 'strict mismatch is a 400 naming pointer, expected and actual'() {
      const client = pinned('test/mockllm-chat', { defaultHeaders: { 'X-Mockllm-Session': 'sdk-mismatch' } });
      const request = recordedRequest(chat, 0);
      request.messages[1].content = 'Say goodbye.';
      await assert.rejects(client.chat.completions.create(request), (err) => {
        assert.ok(err instanceof OpenAI.BadRequestError, `got ${err?.constructor?.name}: ${err}`);
        assert.equal(err.type, 'mockllm_request_mismatch');
        assert.equal(err.param, '/messages/1/content');
        assert.equal(err.error.pointer, '/messages/1/content');
        assert.equal(err.error.expected, 'Say hello.');
        assert.equal(err.error.actual, 'Say goodbye.');
        return true;
      });
      const entry = (await journal()).find((e) => e.session === 'sdk-mismatch');
      assert.equal(entry.findings[0].rule, 'request_mismatch');
    },

    async 'models lists the traces’ models'() {
      const client = new OpenAI({ apiKey: 'test-key', baseURL: `${server.url}/v1`, maxRetries: 0 });
      const ids = [];
      for await (const model of client.models.list()) ids.push(model.id);
      assert.deepEqual(ids, ['gpt-4o-mini']);
    },
  });
} finally {
  const { code, signal } = await server.stop();
  if (code !== 0) {
    console.log(`FAIL mockllm exited with ${code ?? signal}\n${server.stderr()}`);
    process.exitCode = 1;
  }
}
