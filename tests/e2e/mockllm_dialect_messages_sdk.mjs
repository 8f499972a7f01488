// End to end: real Anthropic clients read the probe's canonical Messages
// replies (fixtures/probe/messages) rewritten into every Messages dialect by
// one real `mockllm serve` (X-Mockllm-Dialect per request): the official
// `@anthropic-ai/sdk` (messages.create streamed and not, messages.stream with
// tool use and thinking, an HTTP 429), the Vercel AI SDK's `@ai-sdk/anthropic`
// (streamText, generateText) and LangChain's `@langchain/anthropic`
// (ChatAnthropic invoke and stream, a thinking stream and the next turn that
// sends its thinking back). Under every dialect each client reads
// what the recording says; where a dialect really breaks a client, that
// break is asserted as it is (docs/dialects.md, "Anthropic Messages"):
//   DIA-MSG-START-USAGE-ZERO: message_start's usage reads 0 input tokens, and
//     LangChain's streamed usage_metadata keeps that 0;
//   DIA-MSG-TOOL-INPUT-AT-START: LangChain's stream reads each call's args as {};
//   DIA-MSG-THINKING-NO-SIGNATURE: the thinking block's signature is "" (the AI
//     SDK's reasoning carries none), and LangChain sends it back next turn
//     with signature "" (a request Anthropic refuses);
//   DIA-MSG-OPENAI-ERROR-BODY: the error's Anthropic type is gone.
//   node tests/e2e/mockllm_dialect_messages_sdk.mjs MOCKLLM_BINARY PROBE_DIR
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

import { createAnthropic } from '@ai-sdk/anthropic';
import Anthropic from '@anthropic-ai/sdk';
import { ChatAnthropic } from '@langchain/anthropic';
import { HumanMessage } from '@langchain/core/messages';
import { generateText, jsonSchema, streamText, tool } from 'ai';

import { callsOf, finalOf, textOf, thinkingOf } from './messages_recording.mjs';
import { e2eArgs, readTrace, runTests, sessionJournal, startMockllm } from './mockllm_process.mjs';

const { binary, fixtures: probe } = e2eArgs();
const dir = join(probe, 'messages');
const dialects = JSON.parse(
  execFileSync(binary, ['dialects', '--json', '--surface', 'messages'], { encoding: 'utf8' }),
);
const x = Object.fromEntries(
  ['stream', 'streamed-tools', 'reasoning', 'tool', 'rate-limited'].map((n) => [
    n,
    readTrace(join(dir, `${n}.trace.jsonl`)).exchanges[0],
  ]),
);
const final = Object.fromEntries(Object.entries(x).map(([n, e]) => [n, e.response.chunks || e.response.status < 400 ? finalOf(e) : null]));
// message_start's usage as recorded.
const startUsage = (n) => {
  for (const c of x[n].response.chunks)
    for (const m of c.raw.matchAll(/^data: (.*)$/gm)) {
      const d = JSON.parse(m[1]);
      if (d.type === 'message_start') return d.message.usage;
    }
};

// The clients answer from the recorded reply whatever they send (their
// bodies are not the recorded ones): pinned routes with lenient matching.
const server = await startMockllm(binary, ['serve', '--traces', dir, '--speed', '0', '--match', 'lenient']);
let session = 0;
const headers = (dialect) => ({ 'X-Mockllm-Session': `msg-dialect-${++session}`, 'X-Mockllm-Dialect': dialect });
const pinned = (n) => `${server.url}/t/${encodeURIComponent(`probe/messages/${n}`)}`;
const sdk = (dialect, n) =>
  new Anthropic({ apiKey: 'test-key', baseURL: pinned(n), defaultHeaders: headers(dialect), maxRetries: 0 });
const vercel = (dialect, n) =>
  createAnthropic({ apiKey: 'test-key', baseURL: `${pinned(n)}/v1`, headers: headers(dialect) })(
    x[n].request.body.model,
  );
const langchain = (dialect, n) =>
  new ChatAnthropic({
    apiKey: 'test-key',
    model: x[n].request.body.model,
    anthropicApiUrl: pinned(n),
    clientOptions: { defaultHeaders: headers(dialect) },
    maxRetries: 0,
  });
const tools = (n) => x[n].request.body.tools;
const prompt = (n) => x[n].request.body.messages[0].content;
const weather = {
  get_weather: tool({ description: 'Current weather of a city.', inputSchema: jsonSchema(tools('tool')[0].input_schema) }),
};

function sdkTests(tests, dialect, has) {
  tests[`${dialect}: anthropic-sdk messages.create({stream: true})`] = async () => {
    let text = '';
    let start;
    for await (const e of await sdk(dialect, 'stream').messages.create(x.stream.request.body)) {
      if (e.type === 'message_start') start = e.message.usage;
      if (e.type === 'content_block_delta' && e.delta.type === 'text_delta') text += e.delta.text;
    }
    assert.equal(text, textOf(final.stream));
    // A client that reads the prompt's size at the start (Claude Code) reads 0.
    assert.equal(start.input_tokens, has('DIA-MSG-START-USAGE-ZERO') ? 0 : startUsage('stream').input_tokens);
  };
  tests[`${dialect}: anthropic-sdk messages.stream() usage`] = async () => {
    const { stream: _, ...body } = x.stream.request.body;
    const m = await sdk(dialect, 'stream').messages.stream(body).finalMessage();
    assert.equal(textOf(m), textOf(final.stream));
    // The final message takes message_delta's counts: nothing is lost at the end.
    assert.equal(m.usage.input_tokens, startUsage('stream').input_tokens);
    assert.equal(m.usage.output_tokens, final.stream.usage.output_tokens);
  };
  tests[`${dialect}: anthropic-sdk messages.stream() tool use`] = async () => {
    const { stream: _, ...body } = x['streamed-tools'].request.body;
    const m = await sdk(dialect, 'streamed-tools').messages.stream(body).finalMessage();
    assert.deepEqual(callsOf(m), callsOf(final['streamed-tools']));
    assert.equal(m.stop_reason, 'tool_use');
  };
  tests[`${dialect}: anthropic-sdk messages.stream() thinking`] = async () => {
    const { stream: _, ...body } = x.reasoning.request.body;
    const m = await sdk(dialect, 'reasoning').messages.stream(body).finalMessage();
    const want = thinkingOf(final.reasoning);
    if (has('DIA-MSG-THINKING-NO-SIGNATURE')) for (const t of want) t.signature = '';
    assert.deepEqual(thinkingOf(m), want);
    assert.equal(textOf(m), textOf(final.reasoning));
  };
  tests[`${dialect}: anthropic-sdk messages.create() tool use`] = async () => {
    const m = await sdk(dialect, 'tool').messages.create(x.tool.request.body);
    assert.deepEqual(callsOf(m), callsOf(final.tool));
  };
  tests[`${dialect}: anthropic-sdk 429 is a RateLimitError`] = async () => {
    await assert.rejects(sdk(dialect, 'rate-limited').messages.create(x['rate-limited'].request.body), (e) => {
      assert.ok(e instanceof Anthropic.RateLimitError, `expected a RateLimitError, got ${e}`);
      const recorded = x['rate-limited'].response.body.error;
      if (has('DIA-MSG-OPENAI-ERROR-BODY')) {
        // The status still classifies it; the Anthropic error type is gone.
        assert.equal(e.error?.error?.type, 'None');
        assert.equal(e.error?.type, undefined);
      } else {
        assert.equal(e.error?.error?.type, recorded.type);
      }
      assert.equal(e.error?.error?.message, recorded.message);
      return true;
    });
  };
}

function vercelTests(tests, dialect, has) {
  tests[`${dialect}: @ai-sdk/anthropic streamText text and usage`] = async () => {
    const r = streamText({ model: vercel(dialect, 'stream'), prompt: prompt('stream'), maxRetries: 0 });
    assert.equal(await r.text, textOf(final.stream));
    const usage = await r.usage;
    assert.equal(usage.inputTokens, startUsage('stream').input_tokens);
    assert.equal(usage.outputTokens, final.stream.usage.output_tokens);
  };
  tests[`${dialect}: @ai-sdk/anthropic streamText tool calls`] = async () => {
    const r = streamText({
      model: vercel(dialect, 'streamed-tools'),
      prompt: prompt('streamed-tools'),
      tools: weather,
      maxRetries: 0,
    });
    const calls = (await r.toolCalls).map((c) => ({ id: c.toolCallId, name: c.toolName, input: c.input }));
    assert.deepEqual(calls, callsOf(final['streamed-tools']));
  };
  tests[`${dialect}: @ai-sdk/anthropic streamText reasoning`] = async () => {
    const r = streamText({ model: vercel(dialect, 'reasoning'), prompt: prompt('reasoning'), maxRetries: 0 });
    const got = (await r.reasoning).map((p) => ({ thinking: p.text, signature: p.providerMetadata?.anthropic?.signature }));
    // Unsigned thinking reaches the app with no signature to send back.
    const want = thinkingOf(final.reasoning);
    if (has('DIA-MSG-THINKING-NO-SIGNATURE')) for (const t of want) t.signature = undefined;
    assert.deepEqual(got, want);
  };
  tests[`${dialect}: @ai-sdk/anthropic generateText tool call`] = async () => {
    const r = await generateText({ model: vercel(dialect, 'tool'), prompt: prompt('tool'), tools: weather, maxRetries: 0 });
    const calls = r.toolCalls.map((c) => ({ id: c.toolCallId, name: c.toolName, input: c.input }));
    assert.deepEqual(calls, callsOf(final.tool));
  };
}

function langchainTests(tests, dialect, has) {
  tests[`${dialect}: @langchain/anthropic stream tool calls`] = async () => {
    const model = langchain(dialect, 'streamed-tools').bindTools(tools('streamed-tools'));
    let whole;
    for await (const chunk of await model.stream(prompt('streamed-tools'))) whole = whole ? whole.concat(chunk) : chunk;
    const calls = whole.tool_calls.map((c) => ({ id: c.id, name: c.name, input: c.args }));
    const want = callsOf(final['streamed-tools']);
    // LangChain builds a streamed call's args from input_json_delta alone:
    // an input sent whole in content_block_start is read as {}.
    if (has('DIA-MSG-TOOL-INPUT-AT-START')) for (const c of want) c.input = {};
    assert.deepEqual(calls, want);
  };
  tests[`${dialect}: @langchain/anthropic invoke tool call`] = async () => {
    const m = await langchain(dialect, 'tool').bindTools(tools('tool')).invoke(prompt('tool'));
    assert.deepEqual(
      m.tool_calls.map((c) => ({ id: c.id, name: c.name, input: c.args })),
      callsOf(final.tool),
    );
  };
  tests[`${dialect}: @langchain/anthropic stream text and usage`] = async () => {
    let whole;
    for await (const chunk of await langchain(dialect, 'stream').stream(prompt('stream'))) whole = whole ? whole.concat(chunk) : chunk;
    const text = typeof whole.content === 'string' ? whole.content : whole.content.map((p) => p.text ?? '').join('');
    assert.equal(text, textOf(final.stream));
    // LangChain takes input tokens from message_start only and adds the output
    // tokens of message_start and message_delta: with message_start's usage
    // all zeros it reads 0 input tokens (message_delta's count is ignored).
    const start = has('DIA-MSG-START-USAGE-ZERO') ? { input_tokens: 0, output_tokens: 0 } : startUsage('stream');
    assert.equal(whole.usage_metadata.input_tokens, start.input_tokens);
    assert.equal(whole.usage_metadata.output_tokens, start.output_tokens + final.stream.usage.output_tokens);
  };
  tests[`${dialect}: @langchain/anthropic stream thinking, sent back next turn`] = async () => {
    const thinking = (d) =>
      new ChatAnthropic({
        apiKey: 'test-key',
        model: x.reasoning.request.body.model,
        maxTokens: x.reasoning.request.body.max_tokens,
        thinking: x.reasoning.request.body.thinking,
        anthropicApiUrl: pinned('reasoning'),
        clientOptions: { defaultHeaders: headers(d) },
        maxRetries: 0,
      });
    let whole;
    for await (const chunk of await thinking(dialect).stream(prompt('reasoning'))) whole = whole ? whole.concat(chunk) : chunk;
    const blocks = whole.content.filter((b) => b.type === 'thinking').map((b) => ({ thinking: b.thinking, signature: b.signature }));
    // LangChain joins a thinking block's deltas by index: the start's empty
    // signature (or none, minimax) and the signature_delta; unsigned thinking
    // stays "".
    const want = thinkingOf(final.reasoning);
    if (has('DIA-MSG-THINKING-NO-SIGNATURE')) for (const t of want) t.signature = '';
    assert.deepEqual(blocks, want);
    assert.equal(whole.content.filter((b) => b.type === 'text').map((b) => b.text).join(''), textOf(final.reasoning));
    // The next turn sends the thinking block back as it was read: unsigned
    // thinking goes back with signature "" (which Anthropic refuses).
    const next = thinking(dialect);
    const session = next.clientOptions.defaultHeaders['X-Mockllm-Session'];
    // (streamed: the pinned reply is the recorded stream)
    for await (const _ of await next.stream([new HumanMessage(prompt('reasoning')), whole, new HumanMessage('And 7907?')]));
    const [sent] = await sessionJournal(server.url, session, 'probe/messages/reasoning');
    const back = sent.request.body.messages[1].content.filter((b) => b.type === 'thinking');
    assert.deepEqual(back.map((b) => ({ thinking: b.thinking, signature: b.signature })), want);
  };
}

const tests = {};
for (const [dialect, deviations] of Object.entries(dialects)) {
  const has = (id) => deviations.includes(id);
  sdkTests(tests, dialect, has);
  vercelTests(tests, dialect, has);
  langchainTests(tests, dialect, has);
}
try {
  assert.ok(Object.keys(dialects).length >= 7, `only ${Object.keys(dialects).length} Messages dialects`);
  await runTests(tests);
} finally {
  await server.stop();
}
