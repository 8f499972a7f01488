// End to end: the official `openai` SDK reads every recorded stream of the
// corpus (fixtures/recorded) from a real `mockllm serve` without error, and
// gets the same text the recorded chunks carry.
//   node tests/e2e/mockllm_recorded_sdk.mjs MOCKLLM_BINARY RECORDED_DIR
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

import OpenAI from 'openai';

import { e2eArgs, replayUpTo, runTests, startMockllm } from './mockllm_process.mjs';

const { binary, fixtures: recorded } = e2eArgs();
const walk = (d) => readdirSync(d).flatMap((n) => (statSync(join(d, n)).isDirectory() ? walk(join(d, n)) : [join(d, n)]));

const server = await startMockllm(binary, ['serve', '--traces', recorded, '--speed', '0']);
const tests = {};
let session = 0;
for (const file of walk(recorded).filter((p) => p.endsWith('.trace.jsonl')).sort()) {
  const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '');
  const id = JSON.parse(lines[0]).id;
  const exchanges = lines.slice(1).map((l) => JSON.parse(l));
  exchanges.forEach((x, i) => {
    // Chat Completions streams; the Responses API's have mockllm_recorded_responses_sdk.mjs.
    if (!x.response.chunks || !x.request.path.endsWith('/chat/completions')) return;
    tests[`${id} exchange ${i + 1}`] = async () => {
      // A session of its own, brought to this exchange by replaying the ones before it.
      const name = `sdk-${++session}`;
      await replayUpTo(server.url, id, exchanges, i, name);
      const path = x.request.path;
      const query = x.request.query;
      const client = new OpenAI({
        apiKey: 'test-key',
        baseURL: `${server.url}/t/${encodeURIComponent(id)}${path.replace(/\/chat\/completions$/, '')}`,
        defaultQuery: query ? Object.fromEntries(new URLSearchParams(query)) : undefined,
        defaultHeaders: { 'X-Mockllm-Session': name },
        maxRetries: 0,
      });
      let want = '';
      for (const c of x.response.chunks) {
        for (const m of (c.raw ?? '').matchAll(/^data: (.*)$/gm)) {
          if (m[1] === '[DONE]') continue;
          const chunk = JSON.parse(m[1]);
          const d = chunk.choices?.[0]?.delta?.content;
          if (typeof d === 'string') want += d;
        }
      }
      let text = '';
      let chunks = 0;
      try {
        const stream = await client.chat.completions.create(x.request.body);
        for await (const chunk of stream) {
          chunks++;
          const d = chunk.choices?.[0]?.delta?.content;
          if (typeof d === 'string') text += d;
        }
      } catch (e) {
        // A stream that carries an error object (DIA-ERROR-IN-STREAM) is
        // reported by the SDK as an APIError: that is reading it correctly.
        if (!/"error"/.test(x.response.chunks.map((c) => c.raw ?? '').join(''))) throw e;
        assert.ok(e instanceof OpenAI.APIError, `expected an APIError, got ${e}`);
        return;
      }
      assert.ok(chunks > 0, 'no chunks read');
      assert.equal(text, want);
    };
  });
}
try {
  assert.ok(Object.keys(tests).length > 0, 'no recorded streams');
  await runTests(tests);
} finally {
  await server.stop();
}
