// End to end: the official `openai` SDK reads OpenAI's recorded Responses
// streams (fixtures/recorded/openai-responses) rewritten into every Responses
// dialect by a real `mockllm serve` (X-Mockllm-Dialect per request). Under
// every dialect `responses.create({stream: true})` yields the text deltas
// and the function call the recording's terminal response lists. Where a real
// dialect breaks the SDK's `responses.stream()` helper, the break is asserted:
// without `output_item.added` (DIA-RESP-NO-ITEM-ADDED, LiteLLM) the helper
// has no item to add a delta to and throws "missing output at index 0".
//   node tests/e2e/mockllm_dialect_responses_sdk.mjs MOCKLLM_BINARY RECORDED_DIR
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

import OpenAI from 'openai';

import { e2eArgs, readTrace, runTests, startMockllm } from './mockllm_process.mjs';

const { binary, fixtures: recorded } = e2eArgs();
const dir = join(recorded, 'openai-responses');
const dialects = JSON.parse(
  execFileSync(binary, ['dialects', '--json', '--surface', 'responses'], { encoding: 'utf8' }),
);
// Streamed, with text and a function call (the call's `call_id` in its output_item.added).
const trace = readTrace(join(dir, 'test_openai_responses_phase_streamed_on_part_start.trace.jsonl'));
const x = trace.exchanges[0];

const server = await startMockllm(binary, ['serve', '--traces', dir, '--speed', '0']);
let session = 0;
const client = (dialect) =>
  new OpenAI({
    apiKey: 'test-key',
    baseURL: `${server.url}/t/${encodeURIComponent(trace.id)}/v1`,
    defaultHeaders: { 'X-Mockllm-Session': `resp-dialect-${++session}`, 'X-Mockllm-Dialect': dialect },
    maxRetries: 0,
  });

// The recording's terminal response.
let final;
for (const c of x.response.chunks)
  for (const m of c.raw.matchAll(/^data: (.*)$/gm)) {
    const d = JSON.parse(m[1]);
    if (d.type === 'response.completed') final = d.response;
  }
const text = final.output
  .filter((o) => o.type === 'message')
  .flatMap((o) => o.content)
  .filter((p) => p.type === 'output_text')
  .map((p) => p.text)
  .join('');
const calls = final.output.filter((o) => o.type === 'function_call').map((o) => o.name);

const tests = {};
for (const [dialect, deviations] of Object.entries(dialects)) {
  tests[`${dialect}: responses.create({stream: true}) events`] = async () => {
    let got = '';
    const done = [];
    for await (const event of await client(dialect).responses.create(x.request.body)) {
      if (event.type === 'response.output_text.delta') got += event.delta;
      if (event.type === 'response.output_item.done' && event.item.type === 'function_call') done.push(event.item.name);
    }
    assert.equal(got, text);
    assert.deepEqual(done, calls);
  };
  tests[`${dialect}: responses.stream() finalResponse`] = async () => {
    const stream = client(dialect).responses.stream(x.request.body);
    if (deviations.includes('DIA-RESP-NO-ITEM-ADDED')) {
      await assert.rejects(stream.finalResponse(), /missing output at index 0/);
      return;
    }
    const r = await stream.finalResponse();
    assert.equal(r.output_text, text);
    assert.deepEqual(
      r.output.filter((o) => o.type === 'function_call').map((o) => o.name),
      calls,
    );
  };
}
try {
  assert.ok(Object.keys(dialects).length >= 5, `only ${Object.keys(dialects).length} Responses dialects`);
  await runTests(tests);
} finally {
  await server.stop();
}
