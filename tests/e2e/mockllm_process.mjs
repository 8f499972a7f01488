// Starting and stopping real `mockllm` processes for end-to-end tests.
//
//   const server = await startMockllm(binary, ['serve', '--traces', dir, '--speed', '0']);
//   ... server.url ...
//   await server.stop();            // SIGTERM, then waits for the exit
//
// startMockllm waits for the "listening on http://HOST:PORT" line on stdout
// (at most 60 s). Every process started here is killed when the test process
// exits, whatever happens, so no test leaves a server behind.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const running = new Set();
const killAll = () => {
  for (const child of running) child.kill('SIGKILL');
};
process.on('exit', killAll);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    killAll();
    process.exit(130);
  });
}

export function startMockllm(binary, args, { timeoutMs = 60000 } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(child);
    let stdout = '';
    let stderr = '';
    let settled = false;
    const exited = new Promise((done) => {
      child.on('exit', (code, signal) => {
        running.delete(child);
        done({ code, signal });
        if (!settled) {
          settled = true;
          reject(new Error(`mockllm ${args.join(' ')} exited (${code ?? signal}) before listening:\n${stderr}`));
        }
      });
    });
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      child.kill('SIGKILL');
      reject(new Error(`mockllm ${args.join(' ')} did not print "listening on" within ${timeoutMs} ms:\n${stderr}`));
    }, timeoutMs);
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.stdout.on('data', (d) => {
      stdout += d;
      const m = stdout.match(/^listening on (http:\/\/\S+)$/m);
      if (m && !settled) {
        settled = true;
        clearTimeout(timer);
        resolve({
          url: m[1],
          child,
          stderr: () => stderr,
          // Stops with SIGTERM (or `signal`) and resolves with the exit.
          async stop(signal = 'SIGTERM') {
            if (child.exitCode === null && child.signalCode === null) child.kill(signal);
            return exited;
          },
        });
      }
    });
  });
}

// A trace file read whole: { id, header, exchanges } (the JSON lines after
// the header, in order).
export function readTrace(tracePath) {
  const lines = readFileSync(tracePath, 'utf8').split('\n').filter((l) => l.trim() !== '');
  const header = JSON.parse(lines[0]);
  return { id: header.id, header, exchanges: lines.slice(1).map((l) => JSON.parse(l)) };
}

// Every trace of a corpus folder (its *.trace.jsonl files, by name).
export function recordedCorpus(dir) {
  return readdirSync(dir)
    .filter((n) => n.endsWith('.trace.jsonl'))
    .sort()
    .map((n) => readTrace(join(dir, n)));
}

// The bytes of a trace's streamed response (a Buffer): its chunks joined.
export function recordedStream(tracePath, exchangeIndex) {
  const exchange = readTrace(tracePath).exchanges[exchangeIndex];
  return Buffer.concat(
    exchange.response.chunks.map((c) => (c.raw !== undefined ? Buffer.from(c.raw, 'utf8') : Buffer.from(c.raw_b64, 'base64'))),
  );
}

// Brings session `session` of the pinned trace `id` to exchange `i` by
// replaying the exchanges before it (each request sent as recorded).
export async function replayUpTo(url, id, exchanges, i, session) {
  for (const before of exchanges.slice(0, i)) {
    const r = await fetch(`${url}/t/${encodeURIComponent(id)}${before.request.path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-mockllm-session': session },
      body: JSON.stringify(before.request.body),
    });
    await r.arrayBuffer();
  }
}

// A recorded Responses API exchange's response object: the body, or the
// response of the stream's terminal event (response.completed, .incomplete
// or .failed; a closing `data: [DONE]` is skipped).
export function recordedResponse(exchange) {
  if (!exchange.response.chunks) return exchange.response.body;
  let last;
  for (const c of exchange.response.chunks)
    for (const m of (c.raw ?? '').matchAll(/^data: (.*)$/gm)) {
      if (m[1] === '[DONE]') continue;
      const d = JSON.parse(m[1]);
      if (['response.completed', 'response.incomplete', 'response.failed'].includes(d.type)) last = d.response;
    }
  return last;
}

// A Responses API response object's output text: its messages' output_text parts joined.
export function outputText(response) {
  return (response.output ?? [])
    .filter((o) => o.type === 'message')
    .flatMap((o) => o.content ?? [])
    .filter((p) => p.type === 'output_text')
    .map((p) => p.text)
    .join('');
}

// The journal entries of one session of a pinned trace (GET /__admin/journal).
export async function sessionJournal(url, session, trace) {
  const q = new URLSearchParams({ session, trace });
  return (await fetch(`${url}/__admin/journal?${q}`)).json();
}

// The request body of a trace's exchange.
export function recordedRequest(tracePath, exchangeIndex) {
  return readTrace(tracePath).exchanges[exchangeIndex].request.body;
}

// Runs the named async test functions in order, printing one line each;
// exits 1 if any failed.
export async function runTests(tests) {
  let failed = 0;
  for (const [name, fn] of Object.entries(tests)) {
    try {
      await fn();
      console.log(`ok   ${name}`);
    } catch (e) {
      failed++;
      console.log(`FAIL ${name}\n${e && e.stack ? e.stack : e}`);
    }
  }
  process.exitCode = failed ? 1 : 0;
}

// The command-line arguments every e2e script takes: the mockllm binary and
// the fixtures folder.
export function e2eArgs() {
  const [binary, fixtures] = process.argv.slice(2);
  if (!binary || !fixtures) {
    console.error(`usage: node ${process.argv[1]} MOCKLLM_BINARY FIXTURES_DIR`);
    process.exit(2);
  }
  return { binary, fixtures };
}
