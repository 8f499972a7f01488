// End to end: Google's `@google/genai` SDK and the Vercel AI SDK's
// `@ai-sdk/google` provider read the canonical Gemini battery
// (fixtures/probe/gemini) and a recorded Gemini 3 function call with its
// thoughtSignature (fixtures/recorded/gemini) rewritten into every Gemini
// dialect by a real `mockllm serve` (X-Mockllm-Dialect per request):
// generateContent and generateContentStream with function calls, an error
// answered to a streamed request, generateText and streamText with tools.
// Where a dialect really breaks a client, the break is asserted:
// DIA-GEM-STREAM-JSON-ARRAY (a stream framed as one JSON array, Google's
// framing without alt=sse) makes @google/genai throw "Incomplete JSON segment
// at the end", and the AI SDK's SSE reader finds no event in it, so streamText
// ends with no text and no tool call, silently.
// Vertex AI's paths: `@google/genai` with `vertexai: true`, a project and a
// location sends `/v1beta1/projects/P/locations/L/publishers/google/models/
// M:…` with a bearer token from its auth client (here one holding a fixed
// token: no Google network); under `--match sdk` the Developer API's
// recording of the same model and method answers it, pinned and not, in the
// `vertex` dialect's shape, and the journal keeps the Vertex path and
// redacts the token.
//   node tests/e2e/mockllm_dialect_gemini_sdk.mjs MOCKLLM_BINARY FIXTURES_DIR
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { ApiError, GoogleGenAI } from '@google/genai';
import { generateText, jsonSchema, streamText, tool } from 'ai';

import { e2eArgs, runTests, startMockllm } from './mockllm_process.mjs';

const { binary, fixtures } = e2eArgs();
const probe = join(fixtures, 'probe', 'gemini');
const recorded = join(fixtures, 'recorded', 'gemini');
const dialects = JSON.parse(execFileSync(binary, ['dialects', '--json', '--surface', 'gemini'], { encoding: 'utf8' }));
const exchange = (dir, name) => JSON.parse(readFileSync(join(dir, `${name}.trace.jsonl`), 'utf8').split('\n')[1]);

// Lenient: the AI SDK writes a body of its own; the pinned route names the reply.
const server = await startMockllm(binary, ['serve', '--traces', probe, recorded, '--speed', '0', '--match', 'lenient']);
let session = 0;
const headers = (dialect) => ({ 'X-Mockllm-Session': `gem-dialect-${++session}`, 'X-Mockllm-Dialect': dialect });
const genai = (id, dialect) =>
  new GoogleGenAI({
    apiKey: 'test-key',
    httpOptions: { baseUrl: `${server.url}/t/${encodeURIComponent(id)}`, apiVersion: 'v1beta', headers: headers(dialect) },
  });
const provider = (id, dialect) =>
  createGoogleGenerativeAI({ apiKey: 'test-key', baseURL: `${server.url}/t/${encodeURIComponent(id)}/v1beta`, headers: headers(dialect) });

// The recorded request as @google/genai's parameters.
function paramsOf(x) {
  const { contents, ...config } = x.request.body;
  return { model: x.request.path.match(/\/models\/([^/:]+):/)[1], contents, config };
}
const callsOf = (responses) => responses.flatMap((r) => r.functionCalls ?? []).map((c) => ({ name: c.name, args: c.args }));
const textOf = (responses) =>
  responses
    .flatMap((r) => r.candidates?.[0]?.content?.parts ?? [])
    .filter((p) => typeof p.text === 'string' && !p.thought)
    .map((p) => p.text)
    .join('');

const weather = { get_weather: tool({ description: 'Current weather of a city.', inputSchema: jsonSchema({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }) }) };
// Vertex AI through @google/genai, against a server matching `sdk` (pinned
// too). The auth client stands in for google-auth-library's: the SDK asks it
// for the request's headers.
const sdkServer = await startMockllm(binary, ['serve', '--traces', recorded, '--speed', '0', '--match', 'sdk']);
const fixedToken = { getRequestHeaders: async () => new Headers({ authorization: 'Bearer ya29.e2e-fixed-token' }) };
const vertexGenai = (base, dialect) =>
  new GoogleGenAI({
    vertexai: true,
    project: 'e2e-project',
    location: 'us-central1',
    googleAuthOptions: { authClient: fixedToken },
    httpOptions: { baseUrl: base, headers: headers(dialect) },
  });
// A recorded request as the SDK's parameters, generationConfig's fields as
// config, so that the body the SDK writes is the recorded one.
function recordedParams(x) {
  const { contents, generationConfig, ...rest } = x.request.body;
  return { ...paramsOf(x), config: { ...(generationConfig ?? {}), ...rest } };
}
// The journal entries of the last client's session (its X-Mockllm-Session header).
async function lastSession(url) {
  const journal = await (await fetch(`${url}/__admin/journal`)).json();
  return journal.filter((e) => e.request.headers['x-mockllm-session'] === `gem-dialect-${session}`);
}

const paris = { name: 'get_weather', args: { city: 'Paris' } };
const london = { name: 'get_weather', args: { city: 'London' } };
const signed = exchange(recorded, 'test_google_streaming_tool_call_thought_signature');

const tests = {};
for (const [dialect, deviations] of Object.entries(dialects)) {
  const array = deviations.includes('DIA-GEM-STREAM-JSON-ARRAY');
  const vertex = deviations.includes('DIA-GEM-VERTEX-FIELDS');

  tests[`${dialect}: @google/genai generateContent with function calls`] = async () => {
    for (const [name, calls] of [['tool', [paris]], ['parallel-tools', [paris, london]]]) {
      const r = await genai(`probe/gemini/${name}`, dialect).models.generateContent(paramsOf(exchange(probe, name)));
      assert.deepEqual(callsOf([r]), calls, name);
      assert.equal(r.candidates[0].finishReason, 'STOP');
      // A Developer API client keeps usageMetadata whole (Vertex's trafficType
      // with it) but copies only the fields it knows: createTime is dropped.
      assert.equal(r.usageMetadata.trafficType, vertex ? 'ON_DEMAND' : undefined, name);
      assert.equal(r.createTime, undefined, name);
    }
  };

  tests[`${dialect}: @google/genai generateContentStream`] = async () => {
    for (const [id, x, text, calls] of [
      ['probe/gemini/stream', exchange(probe, 'stream'), 'Hello there, nice to meet you.', []],
      ['probe/gemini/streamed-tools', exchange(probe, 'streamed-tools'), '', [paris, london]],
      ['gemini/test_google_streaming_tool_call_thought_signature', signed, '', [{ name: 'get_country', args: {} }]],
    ]) {
      const read = async () => {
        const out = [];
        for await (const chunk of await genai(id, dialect).models.generateContentStream(paramsOf(x))) out.push(chunk);
        return out;
      };
      if (array) {
        await assert.rejects(read(), /Incomplete JSON segment at the end/, id);
        continue;
      }
      const chunks = await read();
      assert.equal(textOf(chunks), text, id);
      assert.deepEqual(callsOf(chunks), calls, id);
      assert.equal(chunks.at(-1).candidates[0].finishReason, 'STOP', id);
      assert.ok(chunks.at(-1).usageMetadata?.totalTokenCount > 0, id);
      // Usage only at the end (Vertex), or on every chunk (the Developer API).
      const earlier = chunks.slice(0, -1).map((c) => c.usageMetadata !== undefined);
      assert.deepEqual(earlier, earlier.map(() => !deviations.includes('DIA-GEM-USAGE-LAST-ONLY')), id);
      if (id.includes('thought_signature'))
        assert.ok(chunks[0].candidates[0].content.parts[0].thoughtSignature?.length > 100, 'the thoughtSignature is kept');
    }
  };

  if (vertex) {
    tests[`${dialect}: @google/genai on Vertex AI's path replays the Developer API's recordings`] = async () => {
      const text = exchange(recorded, 'test_google_model');
      const r = await vertexGenai(sdkServer.url, dialect).models.generateContent(recordedParams(text));
      assert.equal(textOf([r]), text.response.body.candidates[0].content.parts[0].text);
      // A Vertex AI client keeps Vertex's createTime (a Developer API client drops it).
      assert.equal(typeof r.createTime, 'string');
      const [unpinned] = await lastSession(sdkServer.url);
      assert.equal(unpinned.path, '/v1beta1/projects/e2e-project/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent');
      assert.equal(unpinned.trace, 'gemini/test_google_model');
      assert.equal(unpinned.dialect, dialect);
      assert.equal(unpinned.request.headers.authorization, '[redacted]');

      const id = 'gemini/test_google_streaming_tool_call_thought_signature';
      const chunks = [];
      for await (const c of await vertexGenai(`${sdkServer.url}/t/${encodeURIComponent(id)}`, dialect).models.generateContentStream(recordedParams(signed)))
        chunks.push(c);
      assert.deepEqual(callsOf(chunks), [{ name: 'get_country', args: {} }]);
      assert.ok(chunks[0].candidates[0].content.parts[0].thoughtSignature?.length > 100, 'the thoughtSignature is kept');
      assert.ok(chunks.at(-1).usageMetadata?.totalTokenCount > 0);
      const [pinned] = await lastSession(sdkServer.url);
      assert.match(pinned.path, /^\/t\/.*\/v1beta1\/projects\/e2e-project\/locations\/us-central1\/publishers\/google\/models\/gemini-3-pro-preview:streamGenerateContent$/);
      assert.deepEqual([pinned.response.status, pinned.findings ?? []], [200, []]);
      const journal = await (await fetch(`${sdkServer.url}/__admin/journal`)).text();
      assert.ok(!journal.includes('e2e-fixed-token'), 'the bearer token is redacted');
    };
  }

  tests[`${dialect}: @google/genai error to a streamed request`] = async () => {
    const x = exchange(probe, 'server-error-stream');
    await assert.rejects(
      (async () => {
        for await (const _ of await genai('probe/gemini/server-error-stream', dialect).models.generateContentStream(paramsOf(x)));
      })(),
      (e) => {
        assert.ok(e instanceof ApiError, `expected an ApiError, got ${e}`);
        assert.equal(e.status, 503);
        // The SDK hands the body over as its message: an array under DIA-GEM-ERROR-ARRAY.
        const body = JSON.parse(e.message);
        const error = deviations.includes('DIA-GEM-ERROR-ARRAY') ? body[0].error : body.error;
        assert.equal(error.status, 'UNAVAILABLE');
        return true;
      },
    );
  };

  tests[`${dialect}: @ai-sdk/google generateText and streamText`] = async () => {
    const model = (name) => provider(`probe/gemini/${name}`, dialect)('gemini-2.5-flash');
    const g = await generateText({ model: model('parallel-tools'), prompt: 'What is the weather in Paris and in London?', tools: weather, maxRetries: 0 });
    assert.deepEqual(g.toolCalls.map((c) => ({ name: c.toolName, args: c.input })), [paris, london]);
    assert.equal(g.usage.totalTokens, 60);

    const s = streamText({ model: model('stream-usage'), prompt: 'Say hello in five words, and report usage.', maxRetries: 0 });
    const t = streamText({ model: model('streamed-tools'), prompt: 'What is the weather in Paris and in London?', tools: weather, maxRetries: 0 });
    if (array) {
      // No SSE event in the array: the stream ends with nothing read and no error.
      assert.equal(await s.text, '');
      assert.deepEqual(await t.toolCalls, []);
      return;
    }
    assert.equal(await s.text, 'Hello there, nice to meet you.');
    assert.ok((await s.usage).totalTokens > 0);
    assert.deepEqual((await t.toolCalls).map((c) => ({ name: c.toolName, args: c.input })), [paris, london]);
  };
}
try {
  assert.ok(Object.keys(dialects).length >= 3, `only ${Object.keys(dialects).length} Gemini dialects`);
  await runTests(tests);
} finally {
  await Promise.all([server.stop(), sdkServer.stop()]);
}
