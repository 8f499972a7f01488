// End to end: the Vercel AI SDK's OpenAI provider in its Responses mode
// (`@ai-sdk/openai`'s `provider.responses(model)`) with `generateText` and
// `streamText`, against a real `mockllm serve` replaying Responses API
// recordings of the corpus (fixtures/recorded/openai-responses), untouched:
// text, and a function call whose result the SDK sends back for the final
// text (two steps, `stopWhen: stepCountIs(2)`), from bodies and from
// streams; and OpenRouter's recorded stream (a real non-OpenAI server).
//
// The recordings were made by pydantic-ai, so matching is `sdk` and leaves
// out what only says which client sent the request (the AI SDK sends the
// prompt as `input_text` parts, no tool `description` or `strict`, the zod
// schema's `$schema`, no empty `instructions`; the streamed recording's second request cites the
// item id as `call_id`, a pydantic-ai bug of the time). What the SDK did
// send is asserted from mockllm's journal instead: the prompt, and in the
// second request the first response's call and the tool's output.
//
// Every case runs again under every Responses dialect (X-Mockllm-Dialect);
// where a dialect breaks the SDK the test asserts the break (docs/dialects.md,
// "What the clients do").
//   node tests/e2e/mockllm_vercel_responses_sdk.mjs MOCKLLM_BINARY RECORDED_DIR
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs, streamText, tool } from 'ai';
import { z } from 'zod';

import { e2eArgs, outputText, readTrace, recordedResponse, runTests, sessionJournal, startMockllm } from './mockllm_process.mjs';

const { binary, fixtures: recorded } = e2eArgs();
const dir = join(recorded, 'openai-responses');
const dialects = JSON.parse(
  execFileSync(binary, ['dialects', '--json', '--surface', 'responses'], { encoding: 'utf8' }),
);

const trace = (name) => readTrace(join(dir, `${name}.trace.jsonl`));
const cases = {
  'generateText, text': {
    trace: trace('test_openai_responses_model_simple_response'),
    question: 'What is the capital of France?',
    stream: false,
  },
  'generateText, a function call then text': {
    trace: trace('test_openai_responses_model_simple_response_with_tool_call'),
    question: 'What is the capital of PotatoLand?',
    answer: 'Potato City',
    stream: false,
  },
  'streamText, a function call then text': {
    trace: trace('test_openai_responses_stream'),
    question: 'What is the capital of France?',
    answer: 'Paris',
    stream: true,
  },
  "streamText, text and reasoning from OpenRouter's recording": {
    trace: trace('test_openai_responses_raw_cot_stream_openrouter'),
    question: 'What is 2+2?',
    stream: true,
    recordedOnly: true, // a recording of another server: no dialect rewrites it
  },
};

const ignored = ['/input/0/content', '/tools/*/parameters/$schema', '/tools/*/description', '/tools/*/strict', '/input/*/status', '/input/*/call_id', '/instructions'];
const matching = ['--match', 'sdk', ...ignored.flatMap((pointer) => ['--ignore', pointer])];
const server = await startMockllm(binary, ['serve', '--traces', dir, '--speed', '0', ...matching]);
let sessions = 0;

// Runs case `c` in a session of its own under `dialect` (none: untouched).
// Returns { text, steps, usage, error, journal } (journal: the session's entries).
async function runCase(c, dialect) {
  const session = `vercel-${++sessions}`;
  const headers = { 'X-Mockllm-Session': session };
  if (dialect) headers['X-Mockllm-Dialect'] = dialect;
  const provider = createOpenAI({
    apiKey: 'test-key',
    baseURL: `${server.url}/t/${encodeURIComponent(c.trace.id)}${c.trace.exchanges[0].request.path.replace(/\/responses$/, '')}`,
    headers,
  });
  const args = {
    model: provider.responses(c.trace.header.model),
    prompt: c.question,
    maxRetries: 0,
  };
  if (c.answer) {
    args.tools = {
      get_capital: tool({ inputSchema: z.object({ country: z.string() }), execute: async () => c.answer }),
    };
    args.stopWhen = stepCountIs(2);
  }
  const got = {};
  try {
    if (c.stream) {
      const r = streamText({ ...args, onError: ({ error }) => (got.error ??= error) });
      got.text = '';
      for await (const part of r.fullStream) {
        if (part.type === 'text-delta') got.text += part.text;
        if (part.type === 'error') got.error ??= part.error;
      }
      got.steps = await r.steps;
      got.usage = await r.totalUsage;
    } else {
      const r = await generateText(args);
      got.text = r.text;
      got.steps = r.steps;
      got.usage = r.totalUsage;
    }
  } catch (e) {
    got.error ??= e;
  }
  got.journal = await sessionJournal(server.url, session, c.trace.id);
  return got;
}

// What the SDK read is what the recording says: the last response's text,
// the first one's function call (call_id, name, arguments), the usage summed
// over the steps (or none, `usageDropped`); and mockllm answered every
// request from the recording, the prompt in the first and the call with the
// tool's output in the second.
function assertReadAsRecorded(c, got, { usageDropped = false } = {}) {
  assert.equal(got.error, undefined, `the SDK failed: ${got.error}`);
  const recorded = c.trace.exchanges.map(recordedResponse);
  const calls = c.answer ? 1 : 0;
  assert.equal(got.text, outputText(recorded[calls]));
  assert.equal(got.steps.length, calls + 1);
  assert.equal(got.journal.length, calls + 1);
  for (const [i, e] of got.journal.entries()) {
    assert.equal(e.response.status, 200, `request ${i + 1}: ${JSON.stringify(e.findings)}`);
    assert.equal(e.response.exchange, i);
    assert.deepEqual(e.findings ?? [], []);
  }
  assert.deepEqual(got.journal[0].request.body.input[0].content, [{ type: 'input_text', text: c.question }]);
  const total = recorded.slice(0, calls + 1).reduce((n, r) => n + r.usage.total_tokens, 0);
  // Without usage on the terminal response the SDK reports none, without a word.
  assert.equal(got.usage.totalTokens, usageDropped ? undefined : total);
  if (!calls) return;
  const call = recorded[0].output.find((o) => o.type === 'function_call');
  const read = got.steps[0].toolCalls[0];
  assert.deepEqual(
    { id: read.toolCallId, name: read.toolName, input: read.input },
    { id: call.call_id, name: call.name, input: JSON.parse(call.arguments) },
  );
  const input = got.journal[1].request.body.input;
  const sentCall = input.find((o) => o.type === 'function_call');
  assert.deepEqual(
    { call_id: sentCall.call_id, name: sentCall.name, arguments: sentCall.arguments },
    { call_id: call.call_id, name: call.name, arguments: call.arguments },
  );
  const output = input.find((o) => o.type === 'function_call_output');
  assert.equal(output.call_id, call.call_id);
  assert.equal(output.output, c.answer);
}

// The breaks of a streamed function call then text, by the deviation that
// causes them; null when the dialect shows none of them.
function streamBreak(deviations) {
  // No `output_item.added` (LiteLLM): the call, read at its `.done`, runs and
  // is answered, and the second step's text deltas reach `fullStream`; but
  // no text part was opened for them (the SDK opens one at the message's
  // `.added`), so each is an error part (a string, no exception) and the
  // step keeps no text.
  if (deviations.includes('DIA-RESP-NO-ITEM-ADDED'))
    return (c, got, recorded) => {
      assert.equal(typeof got.error, 'string');
      assert.match(got.error, /^text part msg_\w+ not found$/);
      assert.equal(got.text, outputText(recorded[1]));
      assert.deepEqual(
        got.steps.map((s) => [s.finishReason, s.text, s.toolResults.length]),
        [
          ['tool-calls', '', 1],
          ['stop', '', 0],
        ],
      );
      assert.equal(got.journal.length, 2);
    };
  // A function call added without `call_id` (llama.cpp): the SDK's event
  // schema requires it there, validation fails, the step ends in an error
  // with the call unanswered and the run stops: no second request, no text.
  if (deviations.includes('DIA-RESP-CALL-ID-AT-DONE'))
    return (c, got) => {
      assert.equal(got.error?.name, 'AI_TypeValidationError');
      assert.match(got.error.message, /"type":"response\.output_item\.added"/);
      assert.equal(got.text, '');
      assert.deepEqual(
        got.steps.map((s) => [s.finishReason, s.toolResults.length]),
        [['error', 0]],
      );
      assert.equal(got.journal.length, 1);
      assert.equal(got.journal[0].response.status, 200);
    };
  return null;
}

const tests = {};
for (const [name, c] of Object.entries(cases)) {
  tests[`${name}: as recorded`] = async () => assertReadAsRecorded(c, await runCase(c));
  if (c.recordedOnly) continue;
  for (const [dialect, deviations] of Object.entries(dialects)) {
    tests[`${dialect}: ${name}`] = async () => {
      const got = await runCase(c, dialect);
      for (const e of got.journal) assert.equal(e.dialect, dialect);
      const broken = c.stream && c.answer ? streamBreak(deviations) : null;
      if (broken) return broken(c, got, c.trace.exchanges.map(recordedResponse));
      assertReadAsRecorded(c, got, { usageDropped: deviations.includes('DIA-RESP-NO-USAGE') });
    };
  }
}
try {
  assert.ok(Object.keys(dialects).length >= 5, `only ${Object.keys(dialects).length} Responses dialects`);
  await runTests(tests);
} finally {
  await server.stop();
}
