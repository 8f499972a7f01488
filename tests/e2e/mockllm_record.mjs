// End to end: `mockllm record` in front of a `mockllm serve`, driven by the
// official `openai` SDK with a real-looking key; the recording holds no
// secret, passes `mockllm lint`, and replays byte for byte.
//   node tests/e2e/mockllm_record.mjs MOCKLLM_BINARY FIXTURES_DIR
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import OpenAI from 'openai';

import { e2eArgs, recordedRequest, recordedStream, runTests, startMockllm } from './mockllm_process.mjs';

const { binary, fixtures } = e2eArgs();
const chat = join(fixtures, 'mockllm_chat.trace.jsonl');
const work = mkdtempSync(join(tmpdir(), 'mockllm-record-'));
const out = join(work, 'recorded.trace.jsonl');
const secretKey = 'sk-live-abcdefghijklmnopqrstuvwxyz0123456789';

const post = async (url, body, headers = {}) => {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${secretKey}`, ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
};

const upstream = await startMockllm(binary, ['serve', '--traces', fixtures, '--speed', '0']);
const servers = [upstream];
try {
  await runTests({
    async 'record through the proxy, then replay the recording byte for byte'() {
      // What the upstream itself answers, in a session of its own.
      const direct = [];
      for (const i of [0, 1]) {
        direct.push(
          await post(`${upstream.url}/t/test%2Fmockllm-chat/v1/chat/completions`, recordedRequest(chat, i), {
            'x-mockllm-session': 'direct',
          }),
        );
      }

      const recorder = await startMockllm(binary, [
        'record', '--upstream', `${upstream.url}/t/test%2Fmockllm-chat`, '--out', out,
        '--redact-header', 'X-Org-Token', '--provider', 'mock',
      ]);
      servers.push(recorder);
      const client = new OpenAI({
        apiKey: secretKey,
        baseURL: `${recorder.url}/v1`,
        maxRetries: 0,
        defaultHeaders: { 'X-Org-Token': 'org-secret-1' },
      });
      const completion = await client.chat.completions.create(recordedRequest(chat, 0));
      assert.equal(completion.choices[0].message.content, 'Hello.');
      const streamed = await post(`${recorder.url}/v1/chat/completions`, recordedRequest(chat, 1));
      assert.equal(streamed.status, 200);
      assert.deepEqual(streamed.bytes, direct[1].bytes);
      assert.deepEqual(streamed.bytes, recordedStream(chat, 1));
      const stopped = await recorder.stop('SIGINT');
      assert.equal(stopped.code, 0, recorder.stderr());
      assert.match(recorder.stderr(), /recorded 2 exchange\(s\)/);

      const text = readFileSync(out, 'utf8');
      assert.ok(!text.includes('sk-live'), 'the API key reached the trace');
      assert.ok(!text.includes('org-secret'), 'a --redact-header value reached the trace');
      execFileSync(binary, ['lint', out], { stdio: 'pipe' });  // throws unless exit 0

      const replay = await startMockllm(binary, ['serve', '--traces', out, '--speed', '0']);
      servers.push(replay);
      for (const i of [0, 1]) {
        const again = await post(`${replay.url}/t/recorded/v1/chat/completions`, recordedRequest(chat, i));
        assert.equal(again.status, 200);
        assert.deepEqual(again.bytes, direct[i].bytes, `exchange ${i} replays differently`);
      }
      assert.equal((await replay.stop()).code, 0, replay.stderr());
    },

    async 'lint refuses a trace holding a key'() {
      const leaky = join(work, 'leaky.trace.jsonl');
      const header = { format: 'llmconform-trace/1', id: 'leaky' };
      const exchange = {
        request: { path: '/v1/chat/completions', headers: { authorization: `Bearer ${secretKey}` } },
        response: { status: 200, body: {} },
      };
      writeFileSync(leaky, `${JSON.stringify(header)}\n${JSON.stringify(exchange)}\n`);
      let result;
      try {
        execFileSync(binary, ['lint', leaky], { stdio: 'pipe' });
      } catch (e) {
        result = e;
      }
      assert.equal(result?.status, 1);
      assert.match(
        result.stdout.toString(),
        /leaky\.trace\.jsonl:2:\d+: \/request\/headers\/authorization: holds a secret/,
      );
    },
  });
} finally {
  for (const s of servers) await s.stop();
  rmSync(work, { recursive: true, force: true });
}
