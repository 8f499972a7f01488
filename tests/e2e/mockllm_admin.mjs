// End to end: mockllm's runtime control with plain `fetch`, as a test suite
// in any language would drive it (docs/mockllm.md, "Admin API"): loading and
// unloading traces, the filtered journal, the unmatched requests with their
// nearest match, CORS for browser clients, and the --fail-on-* exit codes.
//   node tests/e2e/mockllm_admin.mjs MOCKLLM_BINARY FIXTURES_DIR
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { e2eArgs, recordedRequest, runTests, startMockllm } from './mockllm_process.mjs';

const { binary, fixtures } = e2eArgs();
const chat = join(fixtures, 'mockllm_chat.trace.jsonl');

const json = async (res) => ({ status: res.status, body: await res.json() });
const post = (url, body, contentType = 'application/json', headers = {}) =>
  fetch(url, { method: 'POST', headers: { 'content-type': contentType, ...headers }, body });

const stub = {
  id: 'e2e/stub',
  request: { method: 'POST', path: '/v1/chat/completions', body: { model: 'stub-model', messages: [{ role: 'user', content: 'ping' }] } },
  response: { status: 200, body: { id: 'chatcmpl-stub', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'pong' }, finish_reason: 'stop' }] } },
};

await runTests({
  async 'traces are loaded, answered, filtered and unloaded at runtime'() {
    const server = await startMockllm(binary, ['serve', '--traces', chat, '--speed', '0']);
    try {
      const admin = `${server.url}/__admin`;
      // JSON: a stub.
      let r = await json(await post(`${admin}/traces`, JSON.stringify(stub)));
      assert.equal(r.status, 201, JSON.stringify(r.body));
      assert.deepEqual(r.body.loaded, ['e2e/stub']);
      r = await json(await post(`${server.url}/v1/chat/completions`, JSON.stringify(stub.request.body)));
      assert.equal(r.body.choices[0].message.content, 'pong');
      // JSON Lines: a trace file under another id.
      const lines = readFileSync(chat, 'utf8').replace('"test/mockllm-chat"', '"e2e/copy"');
      r = await json(await post(`${admin}/traces`, lines, 'application/x-ndjson'));
      assert.equal(r.status, 201);
      assert.match(r.body.warnings[0], /identical requests/);
      assert.equal((await post(`${admin}/traces`, lines, 'application/x-ndjson')).status, 409);
      r = await json(await post(`${admin}/traces`, '{"id":"x","exchanges":[{"request":{}}]}'));
      assert.equal(r.status, 400);
      // Located in the body itself: its line and column, the pointer from its root.
      assert.equal(r.body.error.message, 'POST /__admin/traces:1:35: /exchanges/0/request: missing field "path"');
      // Pinned requests in two sessions; the journal filtered by session and trace.
      const pinned = `${server.url}/t/${encodeURIComponent('e2e/copy')}/v1/chat/completions`;
      for (const session of ['a', 'b']) {
        r = await json(await post(pinned, JSON.stringify(recordedRequest(chat, 0)), 'application/json', { 'X-Mockllm-Session': session }));
        assert.equal(r.status, 200);
      }
      const filtered = await (await fetch(`${admin}/journal?session=b&trace=e2e%2Fcopy`)).json();
      assert.deepEqual(filtered.map((e) => [e.session, e.trace]), [['b', 'e2e/copy']]);
      // Unload, then the stub's request matches nothing: it is listed with its nearest match.
      assert.equal((await fetch(`${admin}/traces/${encodeURIComponent('e2e/stub')}`, { method: 'DELETE' })).status, 200);
      assert.equal((await fetch(`${admin}/traces/${encodeURIComponent('e2e/stub')}`, { method: 'DELETE' })).status, 404);
      r = await json(await post(`${server.url}/v1/chat/completions`, JSON.stringify(stub.request.body)));
      assert.equal(r.status, 404);
      assert.equal(r.body.error.type, 'mockllm_no_match');
      const unmatched = await (await fetch(`${admin}/unmatched`)).json();
      assert.equal(unmatched.length, 1);
      assert.equal(unmatched[0].request.body.model, 'stub-model');
      assert.ok(unmatched[0].nearest.differences.some((d) => d.pointer === '/model'), JSON.stringify(unmatched[0].nearest));
    } finally {
      await server.stop();
    }
  },

  async 'CORS preflight and headers for a browser origin'() {
    const server = await startMockllm(binary, ['serve', '--traces', chat, '--speed', '0', '--cors', 'http://localhost:5173']);
    try {
      const pre = await fetch(`${server.url}/v1/chat/completions`, {
        method: 'OPTIONS',
        headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
      });
      assert.equal(pre.status, 204);
      assert.equal(pre.headers.get('access-control-allow-origin'), 'http://localhost:5173');
      assert.match(pre.headers.get('access-control-allow-methods'), /POST/);
      assert.equal(pre.headers.get('access-control-allow-headers'), 'authorization,content-type');
      const res = await post(`${server.url}/v1/chat/completions`, JSON.stringify(recordedRequest(chat, 0)), 'application/json', { origin: 'http://localhost:5173' });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('access-control-allow-origin'), 'http://localhost:5173');
    } finally {
      await server.stop();
    }
  },

  async '--fail-on-unused and --fail-on-mismatch gate at shutdown'() {
    // Untouched traces are not reported; a touched one with unused exchanges is.
    const quiet = await startMockllm(binary, ['serve', '--traces', fixtures, '--speed', '0', '--fail-on-unused']);
    let exit = await quiet.stop();
    assert.equal(exit.code, 0, quiet.stderr());
    assert.doesNotMatch(quiet.stderr(), /unused exchanges/);

    const unused = await startMockllm(binary, ['serve', '--traces', fixtures, '--speed', '0', '--fail-on-unused']);
    const pinned = `${unused.url}/t/${encodeURIComponent('test/mockllm-chat')}/v1/chat/completions`;
    assert.equal((await post(pinned, JSON.stringify(recordedRequest(chat, 0)))).status, 200);
    exit = await unused.stop();
    assert.equal(exit.code, 1);
    const reported = unused.stderr().split('\n').filter((l) => l.includes('unused exchanges'));
    assert.deepEqual(reported, ['mockllm: trace "test/mockllm-chat" session "default": unused exchanges [1]']);

    const mismatch = await startMockllm(binary, ['serve', '--traces', chat, '--speed', '0', '--fail-on-mismatch']);
    assert.equal((await post(`${mismatch.url}/v1/chat/completions`, '{"model":"nothing"}')).status, 404);
    exit = await mismatch.stop();
    assert.equal(exit.code, 1);
    assert.match(mismatch.stderr(), /1 request\(s\) matched nothing/);
  },
});
