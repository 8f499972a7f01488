// The helper against a real mockllm ($MOCKLLM_BIN or PATH), with plain fetch.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEB_PATH, MockllmError, findMockllm, startMockllm } from '../index.js';

const here = dirname(fileURLToPath(import.meta.url));
const probe = join(here, '../../../fixtures/probe');
const plainBody = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello in five words.' }] };

async function chat(m, body, headers = m.headers) {
  return fetch(`${m.baseURL}/chat/completions`, {
    method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body),
  });
}

describe('startMockllm', () => {
  let m;
  beforeAll(async () => {
    m = await startMockllm({ traces: [join(probe, 'plain.trace.jsonl'), join(probe, 'tool.trace.jsonl')], pin: 'probe/plain' });
  });
  afterAll(async () => {
    expect(await m.stop()).toBe(0);
  });

  it('replays the pinned trace in its session and journals it', async () => {
    expect(m.baseURL).toBe(`${m.url}/t/probe%2Fplain/v1`);
    const r = await chat(m, plainBody);
    expect(r.status).toBe(200);
    expect((await r.json()).choices[0].message.content).toBe('Hello there, nice to meet you.');
    const [entry, ...rest] = await m.journal();
    expect(rest).toEqual([]);
    expect(entry.session).toBe(m.session);
    expect(entry.trace).toBe('probe/plain');
    expect(await m.problems()).toEqual([]);
  });

  it('gives a new session its own cursor and journal', async () => {
    const before = m.session;
    await m.newSession('second');
    expect(m.session).not.toBe(before);
    expect(await m.journal()).toEqual([]);
    expect(await m.problems()).toEqual([`pinned trace "probe/plain" was never requested (send X-Mockllm-Session: ${m.session} to ${m.baseURL})`]);
    expect((await chat(m, plainBody)).status).toBe(200);
    expect(await m.problems()).toEqual([]);
  });

  it('names a refused request among the problems', async () => {
    await m.newSession('refused');
    const r = await chat(m, { ...plainBody, messages: [{ role: 'user', content: 'not recorded' }] });
    expect(r.status).toBe(400);
    const [entry] = await m.unmatched();
    expect(entry.findings[0].rule).toBe('request_mismatch');
    const problems = await m.problems();
    expect(problems[0]).toMatch(/^mockllm refused request #\d+ POST \/t\/probe%2Fplain\/v1\/chat\/completions: request_mismatch/);
    // The mismatch touched the trace, whose exchange stays unused.
    expect(await m.problems({ failOnUnmatched: false })).toEqual(['trace "probe/plain": exchanges [0] were never requested']);
    expect(await m.problems({ failOnUnmatched: false, failOnUnused: false })).toEqual([]);
  });

  it('loads a stub, and reset forgets the journal', async () => {
    await m.newSession('stub');
    expect(await m.load({ id: 'node-stub', request: { path: '/v1/chat/completions', body: { model: 'x', messages: [] } },
      response: { status: 200, body: { stubbed: true } } })).toEqual(['node-stub']);
    const r = await fetch(`${m.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', ...m.headers },
      body: JSON.stringify({ model: 'x', messages: [] }) });
    expect(await r.json()).toEqual({ stubbed: true });
    expect((await m.journal()).length).toBe(1);
    await m.reset();
    expect(await m.journal()).toEqual([]);
    await m.unload('node-stub');
    expect((await m.health()).traces).not.toContain('node-stub');
  });
});

describe('errors a user can act on', () => {
  it('binary not found says how to get one', () => {
    const saved = { bin: process.env.MOCKLLM_BIN, path: process.env.PATH };
    delete process.env.MOCKLLM_BIN;
    process.env.PATH = '/nonexistent';
    try {
      let err;
      try { findMockllm(); } catch (e) { err = e; }
      if (existsSync(DEB_PATH)) return;  // the .deb is installed: found there
      expect(err).toBeInstanceOf(MockllmError);
      expect(err.kind).toBe('binary-not-found');
      expect(err.message).toMatch(/MOCKLLM_BIN=/);
    } finally {
      if (saved.bin !== undefined) process.env.MOCKLLM_BIN = saved.bin;
      process.env.PATH = saved.path;
    }
  });

  it('a broken trace is named with line and column', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mockllm-node-'));
    writeFileSync(join(dir, 'bad.trace.jsonl'), '{"format":"llmconform-trace/1","id":"bad"}\n{"seq":1,"request":{"method":"POST"},"response":{}}\n');
    const err = await startMockllm({ traces: dir }).catch((e) => e);
    expect(err).toBeInstanceOf(MockllmError);
    expect(err.kind).toBe('trace');
    expect(err.message).toMatch(/bad\.trace\.jsonl:2:\d+:/);
  });

  it('a port clash is reported', async () => {
    const taken = createServer();
    await new Promise((r) => taken.listen(0, '127.0.0.1', r));
    const { port } = taken.address();
    try {
      const err = await startMockllm({ traces: probe, port }).catch((e) => e);
      expect(err).toBeInstanceOf(MockllmError);
      expect(err.kind).toBe('port-in-use');
      expect(err.message).toMatch(new RegExp(`cannot listen on port ${port}`));
    } finally {
      taken.close();
    }
  });
});

describe('useMockllm', () => {
  it('fails a test whose request was refused, in a vitest run of its own', () => {
    const dir = join(here, 'use-fixture');
    const vitest = join(here, '../node_modules/vitest/vitest.mjs');
    const run = spawnSync(process.execPath, [vitest, 'run', '--root', dir], {
      encoding: 'utf8', env: { ...process.env, PROBE_TRACES: probe, HELPER: join(here, '../index.js'), CI: '1', NO_COLOR: '1', FORCE_COLOR: '0' },
    });
    const out = run.stdout + run.stderr;
    expect(run.status, out).toBe(1);
    expect(out).toMatch(/mockllm refused request #\d+ POST .*request_mismatch/);
    expect(out).toMatch(/1 failed \| 2 passed/);
  });
});
