// @llmconform/mockllm: start llmconform's mockllm from Node tests.
// Contracts are in index.d.ts; the user's view is in README.md.
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';

export const DEB_PATH = '/usr/bin/mockllm';
const START_TIMEOUT_MS = 60_000;

export class MockllmError extends Error {
  constructor(message, kind = 'error') {
    super(message);
    this.name = 'MockllmError';
    /** 'binary-not-found' | 'trace' | 'port-in-use' | 'admin' | 'error' */
    this.kind = kind;
  }
}

function executable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The mockllm program: `bin`, $MOCKLLM_BIN, `mockllm` on PATH, then the .deb's /usr/bin/mockllm. */
export function findMockllm(bin) {
  for (const [label, candidate] of [['bin', bin], ['$MOCKLLM_BIN', process.env.MOCKLLM_BIN]]) {
    if (!candidate) continue;
    if (executable(candidate)) return candidate;
    throw new MockllmError(`${label} names "${candidate}", which is not an executable file`,
      'binary-not-found');
  }
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && executable(join(dir, 'mockllm'))) return join(dir, 'mockllm');
  }
  if (executable(DEB_PATH)) return DEB_PATH;
  throw new MockllmError(
    'the mockllm program was not found (looked at $MOCKLLM_BIN, mockllm on PATH, ' + DEB_PATH +
      '). Build it (cmake --preset release && cmake --build --preset release: ' +
      'build/release/mockllm/mockllm) or install llmconform\'s .deb, then put it on PATH or set ' +
      'MOCKLLM_BIN=/path/to/mockllm.',
    'binary-not-found');
}

function faultFlags(faults) {
  if (!faults) return [];
  const items = typeof faults === 'string' ? [faults]
    : Array.isArray(faults) ? faults
    : Object.entries(faults).map(([k, v]) => (v === true ? k : `${k}=${JSON.stringify(v)}`));
  return items.flatMap((f) => ['--fault', String(f)]);
}

function serveArgs(o, traces) {
  const args = ['serve', '--port', String(o.port ?? 0)];
  for (const t of traces) args.push('--traces', t);
  if (o.dialect) args.push('--dialect', o.dialect);
  if (o.speed !== null) args.push('--speed', String(o.speed ?? 0));
  return [...args, ...faultFlags(o.faults), ...(o.args ?? [])];
}

// Resolves with the URL of the "listening on URL" line, or rejects with an
// error a user can act on when the process exits first.
function waitForListening(child, o, bin, traces, stderr) {
  return new Promise((resolveUrl, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new MockllmError(`mockllm did not say "listening on" within ${START_TIMEOUT_MS} ms`));
    }, START_TIMEOUT_MS);
    const onData = (d) => {
      out += d;
      const m = /^listening on (\S+)$/m.exec(out);
      if (!m) return;
      clearTimeout(timer);
      child.stdout.off('data', onData);
      child.off('close', onExit);
      resolveUrl(m[1]);
    };
    const onExit = (code) => {
      clearTimeout(timer);
      const err = stderr().trim();
      if (/cannot listen on/.test(err)) {
        reject(new MockllmError(`mockllm cannot listen on port ${o.port}: ${err}\n` +
          'Another program holds it: stop that program, choose another port, or use port 0 ' +
          '(the default: a free port).', 'port-in-use'));
        return;
      }
      if (code === 2 && traces.length) {
        const lint = spawnSync(bin, ['lint', ...traces], { cwd: o.cwd, encoding: 'utf8' });
        const problems = `${lint.stdout ?? ''}${lint.stderr ?? ''}`.trim();
        if (lint.status !== 0 && problems) {
          reject(new MockllmError(`mockllm cannot load the traces; \`mockllm lint\` says:\n${problems}`,
            'trace'));
          return;
        }
      }
      reject(new MockllmError(`mockllm did not start (exit ${code}): ${err}`));
    };
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', onData);
    child.once('close', onExit);  // after stderr is read to its end
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(new MockllmError(`cannot run ${bin}: ${e.message}`, 'binary-not-found'));
    });
  });
}

// One HTTP request on a connection of its own (no keep-alive agent: mockllm
// closes idle connections after a second, and a reused one may be closed
// under a request). Resolves with { status, text }.
function request(method, target, body, headers = {}) {
  return new Promise((resolveRes, reject) => {
    const req = httpRequest(target, { method, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => {
        text += d;
      });
      res.on('end', () => resolveRes({ status: res.statusCode, text }));
      res.on('error', reject);
    });
    req.on('error', (e) => reject(new MockllmError(`${method} ${target}: ${e.message}`, 'admin')));
    req.end(body);
  });
}

const newSession = (label = 'test') =>
  `${String(label).replace(/[^A-Za-z0-9_.-]+/g, '_').slice(0, 80)}-${randomUUID().slice(0, 12)}`;

function belongsTo(entry, session, afterSeq) {
  if ((entry.seq ?? 0) <= afterSeq) return false;
  if (entry.session != null) return entry.session === session;
  const headers = entry.request?.headers ?? {};
  const sent = Object.entries(headers).find(([k]) => k.toLowerCase() === 'x-mockllm-session');
  return !sent || sent[1] === session;
}

/** Starts `mockllm serve`; see index.d.ts. */
export async function startMockllm(options = {}) {
  const o = { ...options };
  const bin = findMockllm(o.bin);
  const base = o.cwd ?? process.cwd();
  const traces = [o.traces ?? []].flat().map((t) => (isAbsolute(t) ? t : resolve(base, t)));
  let stderrText = '';
  const child = spawn(bin, serveArgs(o, traces), { cwd: o.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d) => {
    if (stderrText.length < 1 << 20) stderrText += d;
  });
  const url = await waitForListening(child, o, bin, traces, () => stderrText);
  const exited = new Promise((r) => {
    if (child.exitCode !== null) r(child.exitCode);
    else child.once('exit', (code) => r(code));
  });

  async function admin(method, path, body, contentType = 'application/json') {
    const res = await request(method, url + path, body, body === undefined ? {} : { 'content-type': contentType });
    if (res.status < 200 || res.status >= 300) {
      let detail = res.text;
      try {
        detail = JSON.parse(res.text).error.message;
      } catch {}
      throw new MockllmError(`${method} ${path}: HTTP ${res.status}: ${detail}`, 'admin');
    }
    return res.text.trim() ? JSON.parse(res.text) : null;
  }
  const query = (params) => {
    const kept = Object.entries(params).filter(([, v]) => v !== undefined && v !== null);
    return kept.length ? `?${new URLSearchParams(kept.map(([k, v]) => [k, String(v)]))}` : '';
  };
  const lastSeq = async () => Number((await admin('GET', '/__admin/health')).requests);

  const state = { session: o.session ?? newSession('node'), afterSeq: await lastSeqSafe() };
  async function lastSeqSafe() {
    try {
      return await lastSeq();
    } catch (e) {
      child.kill('SIGKILL');
      throw e;
    }
  }
  const pin = o.pin ? `/t/${encodeURIComponent(o.pin)}` : '';
  const loaded = [];

  const m = {
    url,
    get baseURL() {
      return `${url}${pin}/v1`;
    },
    get session() {
      return state.session;
    },
    get headers() {
      return { 'X-Mockllm-Session': state.session };
    },
    openaiOptions(apiKey) {
      return { baseURL: m.baseURL, apiKey: apiKey ?? process.env.OPENAI_API_KEY ?? 'mockllm',
        defaultHeaders: m.headers };
    },
    async newSession(label) {
      state.session = newSession(label);
      state.afterSeq = await lastSeq();
      return state.session;
    },
    async journal() {
      const all = await admin('GET', `/__admin/journal${query({ after: state.afterSeq })}`);
      return all.filter((e) => belongsTo(e, state.session, state.afterSeq));
    },
    async unmatched() {
      const all = await admin('GET', `/__admin/unmatched${query({ after: state.afterSeq })}`);
      return all.filter((e) => belongsTo(e, state.session, state.afterSeq));
    },
    async sessions() {
      return (await admin('GET', '/__admin/sessions')).filter((s) => s.session === state.session);
    },
    async health() {
      return admin('GET', '/__admin/health');
    },
    async metrics() {
      return (await request('GET', `${url}/__admin/metrics`)).text;
    },
    async load(trace) {
      let body;
      let type = 'application/json';
      if (typeof trace === 'string') {
        body = readFileSync(isAbsolute(trace) ? trace : resolve(base, trace));
        type = 'application/x-ndjson';
      } else {
        body = JSON.stringify(trace);
      }
      const ids = (await admin('POST', '/__admin/traces', body, type)).loaded;
      loaded.push(...ids);
      return ids;
    },
    async unload(id) {
      await admin('DELETE', `/__admin/traces/${encodeURIComponent(id)}`);
      const i = loaded.indexOf(id);
      if (i >= 0) loaded.splice(i, 1);
    },
    async reset() {
      await admin('POST', '/__admin/reset', '');
      state.afterSeq = await lastSeq();
    },
    async problems({ failOnUnmatched = true, failOnUnused = true } = {}) {
      const out = [];
      if (failOnUnmatched) {
        for (const e of await m.unmatched()) {
          const f = (e.findings ?? [])[0] ?? {};
          out.push(`mockllm refused request #${e.seq} ${e.method} ${e.path}: ${f.rule ?? '?'}: ${f.message ?? ''}`.trimEnd());
        }
      }
      if (failOnUnused) {
        const mine = await m.sessions();
        for (const s of mine) {
          if (s.touched && s.unused?.length) {
            out.push(`trace "${s.trace}": exchanges ${JSON.stringify(s.unused)} were never requested`);
          }
        }
        if (o.pin && !mine.some((s) => s.trace === o.pin)) {
          out.push(`pinned trace "${o.pin}" was never requested (send X-Mockllm-Session: ${state.session} to ${m.baseURL})`);
        }
      }
      return out;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
    get stderr() {
      return stderrText;
    },
  };
  return m;
}

/**
 * Starts one mockllm for the file (beforeAll), gives each test its own
 * session (beforeEach), fails a test whose requests were refused or whose
 * traces were left unused (afterEach), and stops the server (afterAll).
 */
export function useMockllm(options = {}, hooks = globalThis) {
  const { beforeAll, afterAll, beforeEach, afterEach } = hooks;
  if (![beforeAll, afterAll, beforeEach, afterEach].every((f) => typeof f === 'function')) {
    throw new MockllmError('useMockllm needs beforeAll, afterAll, beforeEach and afterEach: ' +
      'use jest or vitest with globals, or pass them: useMockllm(options, { beforeAll, afterAll, ' +
      "beforeEach, afterEach }) (import them from 'vitest')");
  }
  const { failOnUnmatched = true, failOnUnused = true, ...start } = options;
  let server = null;
  const handle = new Proxy({}, {
    get(_, key) {
      if (server === null) {
        throw new MockllmError(`mockllm is not started yet (read .${String(key)} inside a test)`);
      }
      const v = server[key];
      return typeof v === 'function' ? v.bind(server) : v;
    },
  });
  beforeAll(async () => {
    server = await startMockllm(start);
  }, START_TIMEOUT_MS + 5_000);
  // Rest parameters keep the arity 0: jest takes a one-parameter hook for a `done` callback.
  beforeEach(async (...args) => {
    const name = args[0]?.task?.name ?? globalThis.expect?.getState?.().currentTestName;
    await server.newSession(name);
  });
  afterEach(async () => {
    const problems = await server.problems({ failOnUnmatched, failOnUnused });
    if (problems.length) throw new MockllmError(`mockllm:\n  ${problems.join('\n  ')}`);
  });
  afterAll(async () => {
    if (server) await server.stop();
  });
  return handle;
}
