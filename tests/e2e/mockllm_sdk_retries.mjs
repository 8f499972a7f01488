// End to end: three SDKs with their default retries on, against a real
// `mockllm serve --fault status=429 --fault times=1`: every exchange is
// answered 429 on its first attempt, and each SDK's retry must get the same
// exchange, not the session's next one (docs/mockllm.md, "Retries"). The SDKs
// shape their requests differently (tool_choice, stream:false,
// stream_options …); `--match sdk` lets one recording answer all of them.
// LangChain.js retries a 429 only when it carries Retry-After (a headerless
// 429 counts as out of capacity), hence retry_after.
//   node tests/e2e/mockllm_sdk_retries.mjs MOCKLLM_BINARY FIXTURES_DIR
import assert from 'node:assert/strict';
import { join } from 'node:path';

import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { AIMessage, HumanMessage, SystemMessage } from '@langchain/core/messages';
import { ChatOpenAI } from '@langchain/openai';
import { generateText, streamText } from 'ai';
import OpenAI from 'openai';

import { e2eArgs, runTests, startMockllm } from './mockllm_process.mjs';

const { binary, fixtures } = e2eArgs();
const chat = join(fixtures, 'mockllm_chat.trace.jsonl');

const server = await startMockllm(binary, [
  'serve', '--traces', chat, '--speed', '0', '--match', 'sdk',
  '--fault', 'status=429', '--fault', 'retry_after=0.01', '--fault', 'retry_after_ms=10', '--fault', 'times=1',
]);
const base = `${server.url}/t/${encodeURIComponent('test/mockllm-chat')}/v1`;
const journal = async (session) =>
  (await fetch(`${server.url}/__admin/journal?session=${encodeURIComponent(session)}`)).json();

// Each exchange answered twice: 429 (injected), then the recorded response.
async function assertRetriedEach(session, exchanges) {
  const entries = await journal(session);
  assert.deepEqual(
    entries.map((e) => [e.response.exchange, e.response.status]),
    exchanges.flatMap((x) => [[x, 429], [x, 200]]),
    JSON.stringify(entries.map((e) => [e.request.body, e.findings]), null, 1),
  );
}

const system = 'You are terse.';
const hello = 'Say hello.';
const count = 'Count to three.';

try {
  await runTests({
    async 'openai SDK retries a 429 and continues the session'() {
      const client = new OpenAI({ apiKey: 'test-key', baseURL: base, defaultHeaders: { 'X-Mockllm-Session': 'openai' } });
      const messages = [{ role: 'system', content: system }, { role: 'user', content: hello }];
      const completion = await client.chat.completions.create({ model: 'gpt-4o-mini', messages });
      assert.equal(completion.choices[0].message.content, 'Hello.');
      const stream = await client.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [...messages, { role: 'assistant', content: 'Hello.' }, { role: 'user', content: count }],
        stream: true,
      });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
      assert.equal(text, 'One, two, three.');
      await assertRetriedEach('openai', [0, 1]);
    },

    async 'Vercel AI SDK (openai-compatible) retries a 429'() {
      const provider = createOpenAICompatible({
        name: 'mockllm', baseURL: base, apiKey: 'test-key', headers: { 'X-Mockllm-Session': 'vercel-ai' },
      });
      const model = provider.chatModel('gpt-4o-mini');
      const first = await generateText({ model, system, prompt: hello });
      assert.equal(first.text, 'Hello.');
      const result = streamText({
        model,
        system,
        messages: [{ role: 'user', content: hello }, { role: 'assistant', content: 'Hello.' }, { role: 'user', content: count }],
        onError: () => {},
      });
      let text = '';
      for await (const delta of result.textStream) text += delta;
      assert.equal(text, 'One, two, three.');
      await assertRetriedEach('vercel-ai', [0, 1]);
    },

    async 'LangChain.js ChatOpenAI retries a 429'() {
      const model = new ChatOpenAI({
        model: 'gpt-4o-mini',
        apiKey: 'test-key',
        configuration: { baseURL: base, defaultHeaders: { 'X-Mockllm-Session': 'langchain' } },
      });
      const reply = await model.invoke([new SystemMessage(system), new HumanMessage(hello)]);
      assert.equal(reply.content, 'Hello.');
      let text = '';
      const stream = await model.stream([
        new SystemMessage(system), new HumanMessage(hello), new AIMessage('Hello.'), new HumanMessage(count),
      ]);
      for await (const chunk of stream) text += chunk.content;
      assert.equal(text, 'One, two, three.');
      await assertRetriedEach('langchain', [0, 1]);
      // LangChain sends what the recording left out: --match sdk lets it match.
      const [first, , streamed] = await journal('langchain');
      assert.equal(first.request.body.stream, false);
      assert.deepEqual(streamed.request.body.stream_options, { include_usage: true });
    },

    async 'a recorded 429 followed by its recorded retry replays in order'() {
      // Loaded at runtime: exchange 0 is a recorded 429 (no injected fault),
      // exchange 1 the recorded retry with the same request.
      const request = { method: 'POST', path: '/v1/chat/completions', body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'again' }] } };
      const trace = {
        id: 'e2e/recorded-retry',
        exchanges: [
          { request, response: { status: 429, headers: { 'retry-after-ms': '10' }, body: { error: { message: 'slow down', type: 'requests', param: null, code: 'rate_limit_exceeded' } } } },
          { request, response: { status: 200, body: { id: 'chatcmpl-again', object: 'chat.completion', created: 0, model: 'gpt-4o-mini', choices: [{ index: 0, message: { role: 'assistant', content: 'Again.' }, finish_reason: 'stop' }] } } },
        ],
      };
      const plain = await startMockllm(binary, ['serve', '--traces', chat, '--speed', '0']);
      try {
        const loaded = await fetch(`${plain.url}/__admin/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(trace) });
        assert.equal(loaded.status, 201);
        const client = new OpenAI({ apiKey: 'k', baseURL: `${plain.url}/t/${encodeURIComponent(trace.id)}/v1` });
        const completion = await client.chat.completions.create(request.body);
        assert.equal(completion.choices[0].message.content, 'Again.');
        const entries = await (await fetch(`${plain.url}/__admin/journal?trace=${encodeURIComponent(trace.id)}`)).json();
        assert.deepEqual(entries.map((e) => [e.response.exchange, e.response.status]), [[0, 429], [1, 200]]);
      } finally {
        await plain.stop();
      }
    },
  });
} finally {
  const exit = await server.stop();
  if (exit.code !== 0) {
    console.log(`FAIL mockllm exited ${exit.code ?? exit.signal}:\n${server.stderr()}`);
    process.exitCode = 1;
  }
}
