// End to end: the OpenAI Agents SDK (`@openai/agents`) runs an agent with one
// function tool to its final output against a real `mockllm serve` replaying
// two-turn Responses API recordings of the corpus (fixtures/recorded/
// openai-responses), untouched: turn 1 the model calls `get_capital`, the SDK
// runs the tool and sends its result with the conversation's input items
// (the SDK's default: no `previous_response_id`), turn 2 the final text.
//
// The recordings were made by pydantic-ai, not by the Agents SDK, so matching
// is `sdk` and leaves out what only says which client sent the request: the
// zod schema's `$schema`, an input item's `id` and `status` (the Agents SDK
// echoes them, pydantic-ai does not), empty `instructions` (pydantic-ai sends
// "", the SDK nothing) and an input item's `call_id` (the streamed recording's
// second request cites the item id where the API's call_id belongs, a
// pydantic-ai bug of the time). What the SDK did send is asserted from
// mockllm's journal instead: the second request carries the first response's
// function call (its call_id, name, arguments) and the tool's output for that
// call_id.
//
// The streamed run is repeated under every Responses dialect
// (X-Mockllm-Dialect); a dialect that breaks the run has its break asserted.
//   node tests/e2e/mockllm_agents_responses_sdk.mjs MOCKLLM_BINARY RECORDED_DIR
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

import { Agent, OpenAIResponsesModel, run, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai';
import { z } from 'zod';

import { e2eArgs, outputText, readTrace, recordedResponse, runTests, sessionJournal, startMockllm } from './mockllm_process.mjs';

const { binary, fixtures: recorded } = e2eArgs();
const dir = join(recorded, 'openai-responses');
const dialects = JSON.parse(
  execFileSync(binary, ['dialects', '--json', '--surface', 'responses'], { encoding: 'utf8' }),
);
setTracingDisabled(true);

// The two recordings: a body per turn, and a stream per turn.
const conversations = {
  body: {
    trace: readTrace(join(dir, 'test_openai_responses_model_simple_response_with_tool_call.trace.jsonl')),
    question: 'What is the capital of PotatoLand?',
    description: null,
    answer: 'Potato City',
    stream: false,
  },
  stream: {
    trace: readTrace(join(dir, 'test_openai_responses_stream.trace.jsonl')),
    question: 'What is the capital of France?',
    description: '',
    answer: 'Paris',
    stream: true,
  },
};

const ignored = ['/tools/*/parameters/$schema', '/input/*/id', '/input/*/status', '/input/*/call_id', '/instructions'];
const matching = ['--match', 'sdk', ...ignored.flatMap((pointer) => ['--ignore', pointer])];
const server = await startMockllm(binary, ['serve', '--traces', dir, '--speed', '0', ...matching]);
let sessions = 0;

// Runs the conversation's agent in a session of its own under `dialect`;
// returns { result, error, journal } (the session's journal entries).
async function runAgent(c, dialect) {
  const session = `agents-${++sessions}`;
  const headers = { 'X-Mockllm-Session': session };
  if (dialect) headers['X-Mockllm-Dialect'] = dialect;
  const client = new OpenAI({
    apiKey: 'test-key',
    baseURL: `${server.url}/t/${encodeURIComponent(c.trace.id)}/v1`,
    defaultHeaders: headers,
    maxRetries: 0,
  });
  const getCapital = tool({
    name: 'get_capital',
    description: c.description,
    parameters: z.object({ country: z.string() }),
    execute: async () => c.answer,
  });
  const agent = new Agent({
    name: 'capitals',
    instructions: '',
    model: new OpenAIResponsesModel(client, c.trace.header.model),
    tools: [getCapital],
  });
  let result;
  let error;
  try {
    result = await run(agent, c.question, { stream: c.stream });
    if (c.stream) {
      for await (const _ of result) {
        // drains the run's events
      }
      await result.completed;
      if (result.error) throw result.error;
    }
  } catch (e) {
    error = e;
  }
  const journal = await sessionJournal(server.url, session, c.trace.id);
  return { result, error, journal };
}

// The agent's final output is the recording's last text, and mockllm
// answered both turns from the recording: the second request carried the
// first response's function call and the tool's output for its call_id.
// Each turn's usage is the recorded response's, or 0 tokens where the reply
// had none (`usageDropped`).
function assertRanToFinalOutput(c, { result, error, journal }, { usageDropped = false } = {}) {
  assert.equal(error, undefined, `the agent run failed: ${error}`);
  const [first, second] = c.trace.exchanges.map(recordedResponse);
  assert.equal(result.finalOutput, outputText(second));
  assert.deepEqual(
    result.rawResponses.map((r) => r.usage.totalTokens),
    [first, second].map((r) => (usageDropped ? 0 : r.usage.total_tokens)),
  );
  assert.equal(journal.length, 2, `expected 2 requests, got ${journal.length}`);
  for (const [i, e] of journal.entries()) {
    assert.equal(e.response.status, 200, `request ${i + 1}: ${JSON.stringify(e.findings)}`);
    assert.equal(e.response.exchange, i);
    assert.deepEqual(e.findings ?? [], []);
  }
  const call = first.output.find((o) => o.type === 'function_call');
  const input = journal[1].request.body.input;
  const sentCall = input.find((o) => o.type === 'function_call');
  assert.deepEqual(
    { call_id: sentCall.call_id, name: sentCall.name, arguments: sentCall.arguments },
    { call_id: call.call_id, name: call.name, arguments: call.arguments },
  );
  const output = input.find((o) => o.type === 'function_call_output');
  assert.deepEqual({ call_id: output.call_id, output: output.output }, { call_id: call.call_id, output: c.answer });
  assert.equal(journal[1].request.body.previous_response_id, undefined);
}

const tests = {
  'agent run to its final output over recorded bodies (input items)': async () =>
    assertRanToFinalOutput(conversations.body, await runAgent(conversations.body)),
  'agent run to its final output over recorded streams (input items)': async () =>
    assertRanToFinalOutput(conversations.stream, await runAgent(conversations.stream)),
};
for (const [dialect, deviations] of Object.entries(dialects)) {
  for (const [kind, c] of Object.entries(conversations)) {
    tests[`${dialect}: agent run over recorded ${kind === 'body' ? 'bodies' : 'streams'}`] = async () => {
      const got = await runAgent(c, dialect);
      // Without usage on the terminal response (DIA-RESP-NO-USAGE) the run
      // still ends, and counts the turns as 0 tokens without a word: the
      // break is a silent one.
      assertRanToFinalOutput(c, got, { usageDropped: deviations.includes('DIA-RESP-NO-USAGE') });
      for (const e of got.journal) assert.equal(e.dialect, dialect);
    };
  }
}
try {
  assert.ok(Object.keys(dialects).length >= 5, `only ${Object.keys(dialects).length} Responses dialects`);
  await runTests(tests);
} finally {
  await server.stop();
}
