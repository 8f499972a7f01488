// End to end: `mockllm record` and `mockllm serve --proxy` against hostile
// upstreams on 127.0.0.1 (raw node sockets). One streams its response head
// without end: mockllm answers 502 naming the 64 KiB cap, promptly, and stops
// reading (the upstream manages to write only a bounded amount before mockllm
// closes the connection). One never answers: with --upstream-timeout 1 the
// answer is a 502 "timed out after 1000 ms". Nothing is recorded.
//   node tests/e2e/mockllm_record_hostile.mjs MOCKLLM_BINARY FIXTURES_DIR
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { e2eArgs, runTests, startMockllm } from './mockllm_process.mjs';

const { binary } = e2eArgs();
const work = mkdtempSync(join(tmpdir(), 'mockllm-hostile-'));
// serve needs a trace: one without exchanges, so every request is proxied.
const emptyTrace = join(work, 'empty.trace.jsonl');
writeFileSync(emptyTrace, `${JSON.stringify({ format: 'llmconform-trace/1', id: 'empty' })}\n`);
const cap = 'the response head (status line and headers) is longer than 65536 bytes';

// Header lines for as long as the peer takes them; `written` counts the bytes
// the peer accepted before it closed.
let written = 0;
let closed = null;
const endless = createServer((socket) => {
  let head = '';
  let started = false;
  socket.on('error', () => {});
  socket.on('close', () => closed && closed());
  socket.on('data', (d) => {
    head += d.toString('latin1');
    if (started || !head.includes('\r\n\r\n')) return;
    started = true;
    socket.write('HTTP/1.1 200 OK\r\n');
    const line = `X-Filler: ${'a'.repeat(1000)}\r\n`;
    const pump = () => {
      while (!socket.destroyed && socket.writable) {
        written += line.length;
        if (!socket.write(line)) return socket.once('drain', pump);
      }
    };
    pump();
  });
});
// Reads the request and says nothing.
const silent = createServer((socket) => {
  socket.on('error', () => {});
  socket.resume();
});
await new Promise((r) => endless.listen(0, '127.0.0.1', r));
await new Promise((r) => silent.listen(0, '127.0.0.1', r));
const endlessUrl = `http://127.0.0.1:${endless.address().port}`;
const silentUrl = `http://127.0.0.1:${silent.address().port}`;

const post = (url) =>
  fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'go' }] }),
    signal: AbortSignal.timeout(60000),
  });

const started = [];
const start = async (args) => {
  const m = await startMockllm(binary, args);
  started.push(m);
  return m;
};

try {
  await runTests({
    async 'record: an endless response head is a 502 naming the cap, and reading stops'() {
      const out = join(work, 'endless.trace.jsonl');
      const recorder = await start(['record', '--upstream', endlessUrl, '--out', out]);
      const gone = new Promise((r) => (closed = r));
      const t0 = Date.now();
      const res = await post(recorder.url);
      assert.ok(Date.now() - t0 < 30000, 'the answer took too long');
      assert.equal(res.status, 502);
      const body = await res.json();
      assert.equal(body.error.type, 'mockllm_upstream_error');
      assert.ok(body.error.message.includes(cap), body.error.message);
      await gone;  // mockllm closed the upstream connection
      assert.ok(written < 16 * 1024 * 1024, `the upstream wrote ${written} bytes before mockllm stopped`);
      assert.equal((await recorder.stop('SIGINT')).code, 0, recorder.stderr());
      assert.equal(readFileSync(out, 'utf8').trim().split('\n').length, 1, 'an exchange was recorded');
    },
    async 'record: a silent upstream is a 502 after --upstream-timeout'() {
      const out = join(work, 'silent.trace.jsonl');
      const recorder = await start(['record', '--upstream', silentUrl, '--upstream-timeout', '1', '--out', out]);
      const res = await post(recorder.url);
      assert.equal(res.status, 502);
      const body = await res.json();
      assert.ok(body.error.message.includes('timed out after 1000 ms'), body.error.message);
      assert.equal((await recorder.stop('SIGINT')).code, 0, recorder.stderr());
    },
    async 'serve --proxy: both are a 502 mockllm_proxy_failed, journaled'() {
      for (const [upstream, why] of [[endlessUrl, cap], [silentUrl, 'timed out after 1000 ms']]) {
        const out = join(work, `proxy-${upstream.split(':')[2]}.trace.jsonl`);
        const server = await start(['serve', '--traces', emptyTrace, '--proxy', upstream, '--record-to', out, '--upstream-timeout', '1']);
        const res = await post(server.url);
        assert.equal(res.status, 502);
        const body = await res.json();
        assert.equal(body.error.type, 'mockllm_proxy_failed');
        assert.ok(body.error.message.includes(why), body.error.message);
        const journal = await (await fetch(`${server.url}/__admin/journal`)).text();
        assert.ok(journal.includes('proxy_failed') && journal.includes(why.slice(-20)), journal);
        await server.stop();
        assert.equal(readFileSync(out, 'utf8').trim().split('\n').length, 1, 'an exchange was recorded');
      }
    },
  });
} finally {
  for (const m of started) await m.stop();
  endless.close();
  silent.close();
  rmSync(work, { recursive: true, force: true });
}
