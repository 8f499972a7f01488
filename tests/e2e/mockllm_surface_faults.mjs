// End to end: faults in each surface's own shape, read by the official SDKs
// from a real `mockllm serve` replaying the recorded corpus
// (docs/mockllm.md, "Faults per surface"):
// - `@anthropic-ai/sdk` retries an injected 529 and a 429 (honouring its
//   retry-after) and then reads the recorded answer; without retries it
//   reads each as an APIError of Anthropic's shape (overloaded_error,
//   rate_limit_error with the anthropic-ratelimit headers), and an in-stream
//   `error` event as an APIError. The same 529 and 429 under every Messages
//   dialect (X-Mockllm-Dialect): the SDK retries on the status under each;
//   without retries a dialect whose error bodies are OpenAI's
//   (DIA-MSG-OPENAI-ERROR-BODY) leaves it the right class (by status) but no
//   Anthropic error type (`error.error.type` reads LiteLLM's "None").
// - `@google/genai` reads an injected 429 as an ApiError whose body is
//   Gemini's (RESOURCE_EXHAUSTED), and an in-stream error as an ApiError.
// - the openai SDK's `responses.create` follows a previous_response_id chain
//   in order, and reads an unknown id as the API's 400
//   previous_response_not_found; a stream with an injected `error` event or
//   `response.failed` ends with that event.
//   node tests/e2e/mockllm_surface_faults.mjs MOCKLLM_BINARY RECORDED_DIR
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

import Anthropic from '@anthropic-ai/sdk';
import { ApiError, GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';

import { e2eArgs, readTrace, runTests, startMockllm } from './mockllm_process.mjs';

const { binary, fixtures: recorded } = e2eArgs();
const anthropicText = readTrace(join(recorded, 'anthropic', 'test_anthropic_model_instructions.trace.jsonl'));
const anthropicStream = readTrace(join(recorded, 'anthropic', 'test_anthropic_model_thinking_part_stream.trace.jsonl'));
const geminiText = readTrace(join(recorded, 'gemini', 'test_google_model.trace.jsonl'));
const geminiStream = readTrace(join(recorded, 'gemini', 'test_google_model_stream.trace.jsonl'));
const chain = readTrace(join(recorded, 'openai-responses', 'test_openai_previous_response_id.trace.jsonl'));
const responsesStream = readTrace(join(recorded, 'openai-responses', 'test_openai_responses_stream.trace.jsonl'));

const serve = (dirs, faults) =>
  startMockllm(binary, [
    'serve', '--speed', '0', '--match', 'sdk',
    ...dirs.flatMap((d) => ['--traces', join(recorded, d)]),
    ...faults.flatMap((f) => ['--fault', f]),
  ]);
const overloaded = await serve(['anthropic'], ['status=529', 'retry_after=0.01', 'times=1']);
const limited = await serve(['anthropic', 'gemini'], ['status=429', 'retry_after=0.01', 'times=1']);
const broken = await serve(['anthropic', 'gemini'], ['error_event={"after_events":2}']);
const plain = await serve(['openai-responses'], []);
const erring = await serve(['openai-responses'], ['error_event={"after_events":2}']);
const failing = await serve(['openai-responses'], ['error_event={"after_events":2,"as":"failed"}']);
const servers = [overloaded, limited, broken, plain, erring, failing];

let sessions = 0;
const anthropic = (server, maxRetries, dialect) =>
  new Anthropic({
    apiKey: 'test-key',
    baseURL: server.url,
    maxRetries,
    defaultHeaders: {
      'X-Mockllm-Session': `anthropic-${++sessions}`,
      ...(dialect ? { 'X-Mockllm-Dialect': dialect } : {}),
    },
  });
const messagesDialects = JSON.parse(
  execFileSync(binary, ['dialects', '--json', '--surface', 'messages'], { encoding: 'utf8' }),
);
const gemini = (server) =>
  new GoogleGenAI({ apiKey: 'test-key', httpOptions: { baseUrl: server.url, apiVersion: 'v1beta' } });
// The recorded Gemini request as the SDK's parameters.
function geminiParams(x) {
  const { contents, generationConfig, ...rest } = x.request.body ?? {};
  const model = decodeURIComponent(x.request.path.match(/\/models\/([^/:]+):/)[1]);
  return { model, contents, config: { ...(generationConfig ?? {}), ...rest } };
}
// Statuses the server answered, in order, for the requests on `path`.
async function statuses(server, path) {
  const journal = await (await fetch(`${server.url}/__admin/journal`)).json();
  return journal.filter((e) => e.path === path).map((e) => e.response.status);
}
// Statuses the server answered, in order, to the last client's session, and
// the dialect each was answered in.
async function sessionStatuses(server) {
  const journal = await (await fetch(`${server.url}/__admin/journal`)).json();
  const mine = journal.filter((e) => e.request.headers['x-mockllm-session'] === `anthropic-${sessions}`);
  return { statuses: mine.map((e) => e.response.status), dialects: [...new Set(mine.map((e) => e.dialect))] };
}

// The injected 529 and 429 under one Messages dialect: retried on the status,
// read as the class of the status; the Anthropic error type survives unless
// the dialect answers errors in OpenAI's envelope.
function dialectRetryTests(tests, dialect, deviations) {
  const openaiBody = deviations.includes('DIA-MSG-OPENAI-ERROR-BODY');
  const x = anthropicText.exchanges[0];
  for (const [status, server, errorClass, type] of [
    [529, overloaded, Anthropic.InternalServerError, 'overloaded_error'],
    [429, limited, Anthropic.RateLimitError, 'rate_limit_error'],
  ]) {
    tests[`${dialect}: anthropic SDK retries an injected ${status}`] = async () => {
      const m = await anthropic(server, 2, dialect).messages.create(x.request.body);
      assert.equal(textOf(m), textOf(x.response.body));
      assert.deepEqual(await sessionStatuses(server), { statuses: [status, 200], dialects: [dialect] });
    };
    tests[`${dialect}: anthropic SDK reads an injected ${status} without retries`] = async () => {
      await assert.rejects(anthropic(server, 0, dialect).messages.create(x.request.body), (e) => {
        assert.ok(e instanceof errorClass, `expected a ${errorClass.name}, got ${e}`);
        assert.equal(e.status, status);
        assert.equal(e.headers.get('retry-after'), '0.01');
        if (openaiBody) {
          // The finding: the status still classifies the error, its Anthropic type is lost.
          assert.equal(e.error.type, undefined);
          assert.equal(e.error.error.type, 'None');
          assert.equal(e.error.error.code, String(status));
        } else {
          assert.equal(e.error.type, 'error');
          assert.equal(e.error.error.type, type);
        }
        return true;
      });
    };
  }
}

const textOf = (m) => m.content.filter((b) => b.type === 'text').map((b) => b.text).join('');

const dialectTests = {};
for (const [dialect, deviations] of Object.entries(messagesDialects)) dialectRetryTests(dialectTests, dialect, deviations);

try {
  assert.ok(Object.keys(messagesDialects).length >= 7, `only ${Object.keys(messagesDialects).length} Messages dialects`);
  await runTests({
    async 'anthropic SDK retries an injected 529 overloaded_error'() {
      const x = anthropicText.exchanges[0];
      const m = await anthropic(overloaded, 2).messages.create(x.request.body);
      assert.equal(textOf(m), textOf(x.response.body));
      assert.deepEqual(await statuses(overloaded, '/v1/messages'), [529, 200]);
    },

    async 'anthropic SDK reads a 529 as overloaded_error'() {
      await assert.rejects(anthropic(overloaded, 0).messages.create(anthropicText.exchanges[0].request.body), (e) => {
        assert.ok(e instanceof Anthropic.InternalServerError, `expected an InternalServerError, got ${e}`);
        assert.equal(e.status, 529);
        assert.equal(e.error.type, 'error');
        assert.equal(e.error.error.type, 'overloaded_error');
        return true;
      });
    },

    async 'anthropic SDK retries a 429 with retry-after'() {
      const x = anthropicText.exchanges[0];
      const m = await anthropic(limited, 2).messages.create(x.request.body);
      assert.equal(textOf(m), textOf(x.response.body));
      assert.deepEqual(await statuses(limited, '/v1/messages'), [429, 200]);
    },

    async 'anthropic SDK reads a 429 as rate_limit_error with the rate-limit headers'() {
      await assert.rejects(anthropic(limited, 0).messages.create(anthropicText.exchanges[0].request.body), (e) => {
        assert.ok(e instanceof Anthropic.RateLimitError, `expected a RateLimitError, got ${e}`);
        assert.equal(e.error.error.type, 'rate_limit_error');
        assert.equal(e.headers.get('retry-after'), '0.01');
        assert.equal(e.headers.get('anthropic-ratelimit-requests-remaining'), '0');
        return true;
      });
    },

    async 'anthropic SDK reads an in-stream error event as an APIError'() {
      const stream = await anthropic(broken, 0).messages.create(anthropicStream.exchanges[0].request.body);
      const seen = [];
      await assert.rejects(
        (async () => {
          for await (const event of stream) seen.push(event.type);
        })(),
        (e) => {
          assert.ok(e instanceof Anthropic.APIError, `expected an APIError, got ${e}`);
          assert.equal(e.error.error.type, 'overloaded_error');
          return true;
        },
      );
      assert.equal(seen.length, 2);
    },

    async 'google/genai reads a 429 as RESOURCE_EXHAUSTED'() {
      await assert.rejects(gemini(limited).models.generateContent(geminiParams(geminiText.exchanges[0])), (e) => {
        assert.ok(e instanceof ApiError, `expected an ApiError, got ${e}`);
        assert.equal(e.status, 429);
        const body = JSON.parse(e.message);
        assert.equal(body.error.code, 429);
        assert.equal(body.error.status, 'RESOURCE_EXHAUSTED');
        assert.equal(body.error.details[0].retryDelay, '0.01s');
        return true;
      });
    },

    async 'google/genai reads an in-stream error as an ApiError'() {
      const read = [];
      await assert.rejects(
        (async () => {
          for await (const chunk of await gemini(broken).models.generateContentStream(geminiParams(geminiStream.exchanges[0])))
            read.push(chunk);
        })(),
        (e) => {
          assert.ok(e instanceof ApiError, `expected an ApiError, got ${e}`);
          assert.equal(e.status, 500);
          return true;
        },
      );
      assert.equal(read.length, 2);
    },

    async 'openai SDK responses.create follows a previous_response_id chain'() {
      const client = new OpenAI({ apiKey: 'test-key', baseURL: `${plain.url}/v1`, maxRetries: 0 });
      const [one, two] = chain.exchanges.map((x) => x.request.body);
      const first = await client.responses.create(one);
      assert.equal(first.id, chain.exchanges[0].response.body.id);
      const second = await client.responses.create({ ...two, previous_response_id: first.id });
      assert.equal(second.output_text, 'sesame');
      assert.equal(second.previous_response_id, first.id);
    },

    async 'openai SDK reads an unknown previous_response_id as the API does'() {
      const client = new OpenAI({ apiKey: 'test-key', baseURL: `${plain.url}/v1`, maxRetries: 0 });
      const two = chain.exchanges[1].request.body;
      await assert.rejects(client.responses.create({ ...two, previous_response_id: 'resp_unknown' }), (e) => {
        assert.ok(e instanceof OpenAI.BadRequestError, `expected a BadRequestError, got ${e}`);
        assert.equal(e.code, 'previous_response_not_found');
        assert.equal(e.param, 'previous_response_id');
        assert.match(e.message, /Previous response with id 'resp_unknown' not found/);
        return true;
      });
      const journal = await (await fetch(`${plain.url}/__admin/journal`)).json();
      assert.equal(journal.at(-1).response.status, 400);
      assert.equal(journal.at(-1).findings[0].rule, 'malformed_request');
    },

    async 'openai SDK reads a Responses error event mid-stream'() {
      const client = new OpenAI({ apiKey: 'test-key', baseURL: `${erring.url}/v1`, maxRetries: 0 });
      const events = [];
      for await (const event of await client.responses.create(responsesStream.exchanges[0].request.body)) events.push(event);
      assert.deepEqual(events.map((e) => e.type), ['response.created', 'response.in_progress', 'error']);
      assert.equal(events[2].code, 'server_error');
      assert.equal(events[2].sequence_number, 2);
    },

    async 'openai SDK reads a Responses response.failed mid-stream'() {
      const client = new OpenAI({ apiKey: 'test-key', baseURL: `${failing.url}/v1`, maxRetries: 0 });
      const events = [];
      for await (const event of await client.responses.create(responsesStream.exchanges[0].request.body)) events.push(event);
      assert.deepEqual(events.map((e) => e.type), ['response.created', 'response.in_progress', 'response.failed']);
      const failed = events[2].response;
      assert.equal(failed.id, events[0].response.id);
      assert.equal(failed.status, 'failed');
      assert.equal(failed.error.code, 'server_error');
    },

    ...dialectTests,
  });
} finally {
  await Promise.all(servers.map((s) => s.stop()));
}
