// End to end: `mockllm record` against an https upstream (a node server with
// a throwaway self-signed certificate) that streams slowly: a 6 s silence
// mid-stream, longer than httplib's default 5 s read timeout, must not cut
// the recording short; the client gets the bytes as they come and the trace
// keeps each piece with its time.
//   node tests/e2e/mockllm_record_https.mjs MOCKLLM_BINARY FIXTURES_DIR
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { e2eArgs, runTests, startMockllm } from './mockllm_process.mjs';

const { binary } = e2eArgs();
const work = mkdtempSync(join(tmpdir(), 'mockllm-https-'));
const key = join(work, 'key.pem');
const cert = join(work, 'cert.pem');
execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1',
  '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'pipe' });

const pieces = ['data: {"choices":[{"delta":{"content":"slow"}}]}\n\n', 'data: {"choices":[{"delta":{"content":" stream"}}]}\n\n', 'data: [DONE]\n\n'];
const gapsMs = [0, 6000, 100];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const upstream = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, async (req, res) => {
  for await (const _ of req);  // read the body
  res.writeHead(200, { 'content-type': 'text/event-stream', 'x-upstream': 'node-https' });
  for (let i = 0; i < pieces.length; i++) {
    await sleep(gapsMs[i]);
    res.write(pieces[i]);
  }
  res.end();
});
await new Promise((r) => upstream.listen(0, '127.0.0.1', r));
const upstreamUrl = `https://127.0.0.1:${upstream.address().port}`;
const out = join(work, 'https.trace.jsonl');
let recorder;

try {
  await runTests({
    async 'an https upstream streaming slowly is recorded whole'() {
      recorder = await startMockllm(binary, ['record', '--upstream', upstreamUrl, '--upstream-ca', cert, '--out', out]);
      const res = await fetch(`${recorder.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'go' }], stream: true }),
      });
      assert.equal(res.status, 200);
      const received = [];
      for await (const piece of res.body) received.push(Buffer.from(piece).toString('utf8'));
      assert.equal(received.join(''), pieces.join(''));
      assert.ok(received.length >= 2, 'the answer was not streamed back as it arrived');
      assert.equal((await recorder.stop('SIGINT')).code, 0, recorder.stderr());

      const lines = readFileSync(out, 'utf8').trim().split('\n');
      assert.equal(lines.length, 2);
      const exchange = JSON.parse(lines[1]);
      assert.equal(exchange.response.headers['x-upstream'], 'node-https');
      assert.equal(exchange.fault, undefined, 'the stream was cut');
      const chunks = exchange.response.chunks;
      assert.equal(chunks.map((c) => c.raw).join(''), pieces.join(''));
      const beforeGap = chunks.findIndex((c) => c.raw.includes('stream'));
      assert.ok(chunks[beforeGap].t_ms - chunks[beforeGap - 1].t_ms >= 5000, 'the recorded gap is missing');
    },
  });
} finally {
  if (recorder) await recorder.stop();
  upstream.close();
  rmSync(work, { recursive: true, force: true });
}
