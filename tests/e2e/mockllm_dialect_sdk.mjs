// End to end: the official `openai` SDK reads the canonical battery
// (fixtures/probe) rewritten into every dialect by a real `mockllm serve`,
// chosen per request with the X-Mockllm-Dialect header: streamed text arrives
// whole, streamed tool calls carry both calls' arguments, and an error inside
// a 200 stream (DIA-ERROR-IN-STREAM) is an APIError. Under DIA-CONTENT-ARRAY
// (Mistral's reasoning models) the SDK hands `delta.content` over as the
// array it is, so code that appends it as a string reads "[object Object]":
// that break is asserted.
//   node tests/e2e/mockllm_dialect_sdk.mjs MOCKLLM_BINARY PROBE_DIR
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import OpenAI from 'openai';

import { e2eArgs, runTests, startMockllm } from './mockllm_process.mjs';

const { binary, fixtures: probe } = e2eArgs();
const dialects = JSON.parse(execFileSync(binary, ['dialects', '--json', '--surface', 'chat'], { encoding: 'utf8' }));
const request = (name) => JSON.parse(readFileSync(join(probe, `${name}.trace.jsonl`), 'utf8').split('\n')[1]).request.body;

const server = await startMockllm(binary, ['serve', '--traces', probe, '--speed', '0']);
let session = 0;
const client = (name, dialect) =>
  new OpenAI({
    apiKey: 'test-key',
    baseURL: `${server.url}/t/${encodeURIComponent(`probe/${name}`)}/v1`,
    defaultHeaders: { 'X-Mockllm-Session': `sdk-${++session}`, 'X-Mockllm-Dialect': dialect },
    maxRetries: 0,
  });

const tests = {};
for (const [dialect, deviations] of Object.entries(dialects)) {
  tests[`${dialect}: streamed text`] = async () => {
    for (const name of ['stream', 'stream-usage']) {
      let text = '';
      let naive = '';
      let thinking = '';
      let usage = null;
      for await (const chunk of await client(name, dialect).chat.completions.create(request(name))) {
        const d = chunk.choices?.[0]?.delta?.content;
        if (typeof d === 'string') text += d;
        if (Array.isArray(d)) for (const b of d) if (b.type === 'thinking') thinking += b.thinking.map((p) => p.text).join('');
        if (d != null) naive += d;
        if (chunk.usage) usage = chunk.usage;
      }
      if (deviations.includes('DIA-CONTENT-ARRAY')) {
        assert.equal(thinking, 'I should think about what was asked before answering.', name);
        assert.ok(naive.startsWith('[object Object]'), `naive string appending breaks: ${naive}`);
      } else {
        assert.equal(naive, text, name);
      }
      if (deviations.includes('DIA-THINK-TAGS-IN-CONTENT')) text = text.replace(/^<think>[\s\S]*?<\/think>\n\n/, '');
      assert.equal(text, 'Hello there, nice to meet you.', name);
      if (name === 'stream-usage') assert.equal(usage?.total_tokens, 21);
    }
  };
  tests[`${dialect}: streamed tool calls`] = async () => {
    let args = '';
    const names = [];
    for await (const chunk of await client('streamed-tools', dialect).chat.completions.create(request('streamed-tools'))) {
      for (const tc of chunk.choices?.[0]?.delta?.tool_calls ?? []) {
        if (tc.function?.name) names.push(tc.function.name);
        args += tc.function?.arguments ?? '';
      }
    }
    assert.deepEqual(names, ['get_weather', 'get_weather']);
    assert.equal(args, '{"city":"Paris"}{"city":"London"}');
  };
  tests[`${dialect}: a server error on a stream`] = async () => {
    try {
      for await (const chunk of await client('server-error-stream', dialect).chat.completions.create(request('server-error-stream'))) {
        assert.fail(`no chunk expected, got ${JSON.stringify(chunk)}`);
      }
      assert.fail('no error');
    } catch (e) {
      assert.ok(e instanceof OpenAI.APIError, `expected an APIError, got ${e}`);
      if (deviations.includes('DIA-ERROR-IN-STREAM')) assert.equal(e.status, undefined);
      else assert.equal(e.status, 500);
    }
  };
}
try {
  assert.ok(Object.keys(dialects).length >= 10);
  await runTests(tests);
} finally {
  await server.stop();
}
