// End to end: Google's official `@google/genai` SDK reads every recorded
// Gemini exchange of the corpus (fixtures/recorded/gemini) from a real
// `mockllm serve --match sdk`, untouched but for its base URL: a body with
// `models.generateContent`, a stream (`?alt=sse`) with
// `models.generateContentStream` (every chunk), an HTTP error as the SDK's
// ApiError. The request is the recorded one, given to the SDK as its
// parameters (contents; generationConfig, systemInstruction, tools, … as
// config), so the SDK writes its own body and `--match sdk` must match it.
// What it reads must be what the recording says: the text joined, the
// function calls (name, args), the finishReason.
//   node tests/e2e/mockllm_recorded_gemini_sdk.mjs MOCKLLM_BINARY RECORDED_DIR
import assert from 'node:assert/strict';
import { join } from 'node:path';

import { ApiError, GoogleGenAI } from '@google/genai';

import { e2eArgs, replayUpTo, runTests, startMockllm, recordedCorpus } from './mockllm_process.mjs';

const { binary, fixtures: recorded } = e2eArgs();
const dir = join(recorded, 'gemini');

const server = await startMockllm(binary, ['serve', '--traces', dir, '--speed', '0', '--match', 'sdk']);
let session = 0;

// What the recording says, read by hand: the GenerateContentResponses of a
// stream (each data: line) or the body.
function chunksOf(x) {
  if (!x.response.chunks) return [x.response.body];
  const out = [];
  for (const c of x.response.chunks) {
    for (const m of (c.raw ?? '').matchAll(/^data: (.*?)\r?$/gm)) out.push(JSON.parse(m[1]));
  }
  return out;
}
const partsOf = (chunks) =>
  chunks.flatMap((r) => (r.candidates ?? []).filter((c) => (c.index ?? 0) === 0).flatMap((c) => c.content?.parts ?? []));
const textOf = (chunks) =>
  partsOf(chunks)
    .filter((p) => typeof p.text === 'string' && !p.thought)
    .map((p) => p.text)
    .join('');
const callsOf = (chunks) => partsOf(chunks).filter((p) => p.functionCall).map((p) => ({ name: p.functionCall.name, args: p.functionCall.args ?? {} }));
const finishOf = (chunks) => {
  let f;
  for (const r of chunks) for (const c of r.candidates ?? []) if ((c.index ?? 0) === 0 && c.finishReason) f = c.finishReason;
  return f;
};
// The SDK's own reading of a response: its parts' text (thoughts left out, as its .text does) and calls.
const sdkText = (responses) =>
  responses
    .flatMap((r) => r.candidates?.[0]?.content?.parts ?? [])
    .filter((p) => typeof p.text === 'string' && !p.thought)
    .map((p) => p.text)
    .join('');
const sdkCalls = (responses) => responses.flatMap((r) => r.functionCalls ?? []).map((c) => ({ name: c.name, args: c.args ?? {} }));

// The recorded request as the SDK's parameters.
function paramsOf(x) {
  const { contents, generationConfig, ...rest } = x.request.body ?? {};
  const model = decodeURIComponent(x.request.path.match(/\/models\/([^/:]+):/)[1]);
  return { model, contents, config: { ...(generationConfig ?? {}), ...rest } };
}

// Vertex AI's exchanges: the SDK asks its auth client for the request's
// headers; this one holds a fixed token (no Google credentials, no network).
const fixedToken = { getRequestHeaders: async () => new Headers({ authorization: 'Bearer ya29.e2e-fixed-token' }) };

// A client in a session of its own, brought to exchange `i` by replaying the
// ones before it; its base URL is the trace's pinned route (the SDK adds
// /v1beta/models/…, or Vertex AI's path, itself).
async function clientAt(id, exchanges, i) {
  const name = `gemini-sdk-${++session}`;
  await replayUpTo(server.url, id, exchanges, i, name);
  const path = exchanges[i].request.path;
  const vertex = path.match(/^\/(v1[^/]*)\/projects\/([^/]+)\/locations\/([^/]+)\//);
  const httpOptions = {
    baseUrl: `${server.url}/t/${encodeURIComponent(id)}`,
    apiVersion: (vertex ? vertex[1] : path.split('/')[1]),
    headers: { 'X-Mockllm-Session': name },
  };
  return vertex
    ? new GoogleGenAI({ vertexai: true, project: vertex[2], location: vertex[3], httpOptions, googleAuthOptions: { authClient: fixedToken } })
    : new GoogleGenAI({ apiKey: 'test-key', httpOptions });
}

const tests = {};
let streams = 0;
for (const { id, exchanges } of recordedCorpus(dir)) {
  exchanges.forEach((x, i) => {
    const name = `${id} exchange ${i + 1}`;
    const want = chunksOf(x);
    if (x.response.status >= 400) {
      tests[`${name}: generateContent gets an ApiError`] = async () => {
        const ai = await clientAt(id, exchanges, i);
        await assert.rejects(ai.models.generateContent(paramsOf(x)), (e) => {
          assert.ok(e instanceof ApiError, `expected an ApiError, got ${e}`);
          assert.equal(e.status, x.response.status);
          return true;
        });
      };
      return;
    }
    if (!x.response.chunks) {
      tests[`${name}: generateContent`] = async () => {
        const ai = await clientAt(id, exchanges, i);
        const r = await ai.models.generateContent(paramsOf(x));
        assert.equal(sdkText([r]), textOf(want));
        assert.deepEqual(sdkCalls([r]), callsOf(want));
        assert.equal(r.candidates?.[0]?.finishReason, finishOf(want));
      };
      return;
    }
    streams++;
    tests[`${name}: generateContentStream`] = async () => {
      const ai = await clientAt(id, exchanges, i);
      const read = [];
      for await (const chunk of await ai.models.generateContentStream(paramsOf(x))) read.push(chunk);
      assert.equal(read.length, want.length, 'one response per recorded event');
      assert.equal(sdkText(read), textOf(want));
      assert.deepEqual(sdkCalls(read), callsOf(want));
      assert.equal(read.at(-1).candidates?.[0]?.finishReason, finishOf(want));
      assert.deepEqual(read.at(-1).usageMetadata, want.at(-1).usageMetadata);
    };
  });
}
try {
  assert.ok(streams >= 10, `only ${streams} recorded Gemini streams`);
  await runTests(tests);
} finally {
  await server.stop();
}
