// End to end: the official `@anthropic-ai/sdk` reads every recorded Anthropic
// Messages exchange of the corpus (fixtures/recorded/anthropic) from a real
// `mockllm serve`, untouched: a stream with `messages.create({stream: true})`
// (every event, the text deltas joined) and with `messages.stream()` (its
// final message: text, thinking and its signature, tool calls, stop reason,
// usage), a body with `messages.create()`, an HTTP error as the SDK's
// APIError. What it reads must be what the recording's events (or body) say.
//   node tests/e2e/mockllm_recorded_messages_sdk.mjs MOCKLLM_BINARY RECORDED_DIR
import assert from 'node:assert/strict';
import { join } from 'node:path';

import Anthropic from '@anthropic-ai/sdk';

import { callsOf, finalOf, textOf, thinkingOf } from './messages_recording.mjs';
import { e2eArgs, replayUpTo, runTests, startMockllm, recordedCorpus } from './mockllm_process.mjs';

const { binary, fixtures: recorded } = e2eArgs();
const dir = join(recorded, 'anthropic');

const server = await startMockllm(binary, ['serve', '--traces', dir, '--speed', '0']);
let session = 0;

// A client in a session of its own, brought to exchange `i` by replaying the ones before it.
async function clientAt(id, exchanges, i) {
  const name = `messages-sdk-${++session}`;
  await replayUpTo(server.url, id, exchanges, i, name);
  const x = exchanges[i];
  return new Anthropic({
    apiKey: 'test-key',
    baseURL: `${server.url}/t/${encodeURIComponent(id)}${x.request.path.replace(/\/v1\/messages(\/count_tokens)?$/, '')}`,
    defaultHeaders: { 'X-Mockllm-Session': name },
    maxRetries: 0,
  });
}

const tests = {};
let streams = 0;
for (const { id, exchanges } of recordedCorpus(dir)) {
  exchanges.forEach((x, i) => {
    const name = `${id} exchange ${i + 1}`;
    const countTokens = x.request.path.endsWith('/count_tokens');
    const call = (client, body) => (countTokens ? client.messages.countTokens(body) : client.messages.create(body));
    if (x.response.status >= 400) {
      tests[`${name}: ${countTokens ? 'messages.countTokens' : 'messages.create'} gets an APIError`] = async () => {
        const client = await clientAt(id, exchanges, i);
        await assert.rejects(call(client, x.request.body), (e) => {
          assert.ok(e instanceof Anthropic.APIError, `expected an APIError, got ${e}`);
          assert.equal(e.status, x.response.status);
          assert.equal(e.error?.error?.type, x.response.body.error.type);
          return true;
        });
      };
      return;
    }
    const final = finalOf(x);
    if (!x.response.chunks) {
      tests[`${name}: ${countTokens ? 'messages.countTokens' : 'messages.create'}`] = async () => {
        const client = await clientAt(id, exchanges, i);
        const m = await call(client, x.request.body);
        if (countTokens) return assert.equal(m.input_tokens, final.input_tokens);
        assert.equal(textOf(m), textOf(final));
        assert.deepEqual(callsOf(m), callsOf(final));
        assert.deepEqual(thinkingOf(m), thinkingOf(final));
        assert.equal(m.stop_reason, final.stop_reason);
        assert.deepEqual(m.usage, final.usage);
      };
      return;
    }
    streams++;
    tests[`${name}: messages.create({stream: true})`] = async () => {
      const client = await clientAt(id, exchanges, i);
      const stream = await client.messages.create(x.request.body);
      let text = '';
      let events = 0;
      let stop;
      for await (const event of stream) {
        events++;
        if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text;
        if (event.type === 'message_delta') stop = event.delta.stop_reason;
      }
      assert.ok(events > 0, 'no events read');
      assert.equal(text, textOf(final));
      assert.equal(stop, final.stop_reason);
    };
    tests[`${name}: messages.stream() finalMessage`] = async () => {
      const client = await clientAt(id, exchanges, i);
      const { stream: _, ...body } = x.request.body;
      const m = await client.messages.stream(body).finalMessage();
      assert.equal(textOf(m), textOf(final));
      assert.deepEqual(callsOf(m), callsOf(final));
      assert.deepEqual(thinkingOf(m), thinkingOf(final));
      assert.equal(m.content.length, final.content.length);
      assert.deepEqual(
        m.content.map((b) => b.type),
        final.content.map((b) => b.type),
      );
      assert.equal(m.stop_reason, final.stop_reason);
      assert.equal(m.usage.output_tokens, final.usage.output_tokens);
    };
  });
}
try {
  assert.ok(streams >= 12, `only ${streams} recorded Messages streams`);
  await runTests(tests);
} finally {
  await server.stop();
}
