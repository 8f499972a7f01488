// Types of @llmconform/mockllm.

/** Why mockllm could not do what was asked; `kind` says which problem. */
export declare class MockllmError extends Error {
  kind: 'binary-not-found' | 'trace' | 'port-in-use' | 'admin' | 'error';
}

/** The Debian package's path of the program. */
export declare const DEB_PATH: string;

/** A fault for every replayed response: `{status: 429, times: 1}` or `["status=429", "times=1"]`. */
export type Faults = Record<string, unknown> | string[] | string;

export interface MockllmOptions {
  /** Trace files or folders (relative to `cwd`). */
  traces?: string | string[];
  /** Provider dialect for every reply (`mockllm dialects` lists them). */
  dialect?: string;
  faults?: Faults;
  /** This handle's X-Mockllm-Session (default: a fresh unique one). */
  session?: string;
  /** Pin one trace: baseURL becomes .../t/{pin}/v1. */
  pin?: string;
  /** The mockllm program (default: $MOCKLLM_BIN, PATH, /usr/bin/mockllm). */
  bin?: string;
  /** Port to listen on; 0 (the default) takes a free one. */
  port?: number;
  /** --speed: 0 (the default) sends recorded streams without waiting; null keeps mockllm's default (1). */
  speed?: number | null;
  /** More `mockllm serve` arguments. */
  args?: string[];
  /** Folder relative trace paths are read from (default: process.cwd()). */
  cwd?: string;
}

/** A journal entry (docs/mockllm.md, Journal). */
export interface JournalEntry {
  seq: number;
  session: string | null;
  trace?: string | null;
  method: string;
  path: string;
  dialect?: string;
  request: { headers: Record<string, string>; body?: unknown; body_cut?: boolean };
  response: { status: number; exchange?: number; stream?: boolean; bytes?: number; cut?: boolean; outcome?: string };
  fault?: Record<string, unknown>;
  findings?: { rule: string; message: string }[];
  nearest?: unknown;
  [key: string]: unknown;
}

export interface SessionState {
  trace: string;
  session: string | null;
  cursor: number;
  unused: number[];
  touched: boolean;
  [key: string]: unknown;
}

/** A trace object, a stub `{request, response[, fault][, id]}`, or an array of them. */
export type TraceObject = Record<string, unknown> | Record<string, unknown>[];

export interface Mockllm {
  /** The server's root, http://127.0.0.1:PORT. */
  readonly url: string;
  /** The OpenAI base URL: .../v1, or .../t/{pin}/v1. */
  readonly baseURL: string;
  /** The current session (sent as X-Mockllm-Session). */
  readonly session: string;
  /** Headers every request must carry: { 'X-Mockllm-Session': session }. */
  readonly headers: Record<string, string>;
  /** Options for `new OpenAI(...)`: baseURL, apiKey, defaultHeaders. */
  openaiOptions(apiKey?: string): { baseURL: string; apiKey: string; defaultHeaders: Record<string, string> };
  /** Starts a new session; journal() and unmatched() then see only its requests. */
  newSession(label?: string): Promise<string>;
  /** This session's journal entries, oldest first. */
  journal(): Promise<JournalEntry[]>;
  /** This session's requests that nothing answered (no match, mismatch, exhausted, unknown trace). */
  unmatched(): Promise<JournalEntry[]>;
  /** Cursor and unused exchanges of each trace in this session. */
  sessions(): Promise<SessionState[]>;
  health(): Promise<Record<string, unknown>>;
  /** GET /__admin/metrics: Prometheus text. */
  metrics(): Promise<string>;
  /** Loads a trace file (a path relative to cwd) or objects while serving; the ids loaded. */
  load(trace: string | TraceObject): Promise<string[]>;
  unload(id: string): Promise<void>;
  /** Forgets every session and the journal. */
  reset(): Promise<void>;
  /** Why the current session should fail a test (refused requests, unused exchanges). */
  problems(opts?: { failOnUnmatched?: boolean; failOnUnused?: boolean }): Promise<string[]>;
  /** Stops the server (SIGTERM, SIGKILL after 10 s); its exit code. */
  stop(): Promise<number | null>;
  /** What mockllm wrote on stderr so far. */
  readonly stderr: string;
}

/** Finds the program: `bin`, $MOCKLLM_BIN, PATH, /usr/bin/mockllm; throws MockllmError('binary-not-found'). */
export declare function findMockllm(bin?: string): string;

/**
 * Starts `mockllm serve` and resolves once it listens. Rejects with a
 * MockllmError: 'binary-not-found', 'trace' (with `mockllm lint`'s
 * file:line:col problems), 'port-in-use'.
 */
export declare function startMockllm(options?: MockllmOptions): Promise<Mockllm>;

export interface UseMockllmOptions extends MockllmOptions {
  /** Fail a test whose request mockllm refused (default true). */
  failOnUnmatched?: boolean;
  /** Fail a test that left exchanges of a touched or pinned trace unused (default true). */
  failOnUnused?: boolean;
}

export interface Hooks {
  beforeAll(fn: () => unknown, timeout?: number): unknown;
  afterAll(fn: () => unknown, timeout?: number): unknown;
  beforeEach(fn: (...args: any[]) => unknown, timeout?: number): unknown;
  afterEach(fn: (...args: any[]) => unknown, timeout?: number): unknown;
}

/**
 * For vitest and jest: one server for the file (beforeAll/afterAll), one
 * session per test (beforeEach), a test failed in afterEach when mockllm
 * refused its requests or it left exchanges unused. `hooks` defaults to the
 * globals (jest, vitest with `globals: true`); pass vitest's imports otherwise.
 * The handle's members can be read inside tests only.
 */
export declare function useMockllm(options?: UseMockllmOptions, hooks?: Hooks): Mockllm;
