// A toolcalls client for `llmconform run --client-cmd` tests (not an example:
// it leans on the reference oracle for the deterministic parts). Its own code
// is the agent loop: it sends each request with the official openai SDK,
// appends the assistant message and one tool message per call, restarts the
// window when the state moved to another node, and stops on a reply without
// tool calls. The oracle (`llmconform ref --serve`: $LLMCONFORM, else this
// checkout's build, else PATH's) composes the system messages and the RUN_DIRECTIVE,
// NODE_BRIEF and USER_INPUT shells, declares the tools, and runs each tool
// on the workspace's folders (appending its audit line).
//
// llmconform sets LLMCONFORM_INPUT (the scenario's input), LLMCONFORM_WORKSPACE
// (pkg/ = @pkg, project/ = @project, state/ = @state) and LLMCONFORM_OUTPUT,
// where it writes {"phase","stopReason","message","error","turns"}
// (docs/gate.md, "toolcalls").
//
// main(impl) takes the parts a broken variant replaces
// (broken_toolcalls_client.mjs).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

// The SDK installed for the e2e tests.
const require = createRequire(new URL('../e2e/package.json', import.meta.url));
const sdk = await import(pathToFileURL(require.resolve('openai')).href);
const OpenAI = sdk.OpenAI ?? sdk.default?.OpenAI ?? sdk.default;

// ---- the oracle, one process for the run ---------------------------------------
// $LLMCONFORM, else this checkout's build (asan, then release), else PATH's.
function llmconformBinary() {
  if (process.env.LLMCONFORM) return process.env.LLMCONFORM;
  for (const preset of ['asan', 'release']) {
    const bin = new URL(`../../build/${preset}/harness/llmconform`, import.meta.url);
    if (existsSync(bin)) return bin.pathname;
  }
  return 'llmconform';
}

export class Oracle {
  constructor(bin = llmconformBinary()) {
    this.proc = spawn(bin, ['ref', '--serve'], { stdio: ['pipe', 'pipe', 'inherit'] });
    this.pending = new Map();
    this.next = 1;
    this.proc.on('error', (e) => {
      for (const p of this.pending.values()) p.reject(new Error(`oracle ${bin}: ${e.message}`));
      this.pending.clear();
      this.failed = e;
    });
    createInterface({ input: this.proc.stdout }).on('line', (line) => {
      const answer = JSON.parse(line);
      const p = this.pending.get(answer.id);
      this.pending.delete(answer.id);
      if (!p) return;
      if ('error' in answer) p.reject(new Error(`oracle: ${answer.error}`));
      else p.resolve(answer.output);
    });
  }

  call(op, input) {
    if (this.failed) return Promise.reject(new Error(`oracle: ${this.failed.message}`));
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.proc.stdin.write(JSON.stringify({ id, op, input }) + '\n');
    });
  }

  close() { this.proc.stdin.end(); }
}

// ---- the state document ----------------------------------------------------
// The top-level scalars and lists of a front matter in the block style the
// tools write ("key: \"v\"", "key: []", "key:\n  - \"a\""); nested mappings are
// skipped. null when the file has no front matter.
export function readFrontMatter(text) {
  const lines = text.split('\n');
  if (lines[0] !== '---') return null;
  const scalar = (v) => {
    v = v.trim();
    if (v.startsWith('"') || v === '[]' || v === '{}' || /^-?\d+$/.test(v) || v === 'true' ||
        v === 'false' || v === 'null') return JSON.parse(v);
    if (v.startsWith("'")) return v.slice(1, -1).replaceAll("''", "'");
    return v;
  };
  const out = {};
  let list = null;
  for (const line of lines.slice(1)) {
    if (line === '---' || line === '...') return out;
    const item = /^\s*- (.*)$/.exec(line);
    if (item && list) { list.push(scalar(item[1])); continue; }
    const kv = /^([A-Za-z_][\w-]*):(?: (.*))?$/.exec(line);
    if (!kv) { list = null; continue; }
    if (kv[2] === undefined || kv[2].trim() === '') { list = out[kv[1]] = []; continue; }
    list = null;
    out[kv[1]] = scalar(kv[2]);
  }
  return null;  // not closed
}

// ---- the run ---------------------------------------------------------------
export class Run {
  constructor({ input, workspace, oracle, client, impl }) {
    Object.assign(this, { input, oracle, client, impl });
    this.dirs = { '@pkg': join(workspace, 'pkg'), '@project': join(workspace, 'project'),
                  '@state': join(workspace, 'state') };
    this.mode = input.mode ?? 'run';
    this.window = [];
    this.turns = [];
    this.phase = 'Running';
  }

  file(mount, rel) { return join(this.dirs[mount], rel); }

  // The graph, the state, and the current node with its agent and persona.
  loadNode() {
    const graph = JSON.parse(readFileSync(this.file('@pkg', 'workflow.graph.json'), 'utf8'));
    const state = readFrontMatter(readFileSync(this.file('@state', 'workflow.md'), 'utf8'));
    if (!state) throw new Error('@state/workflow.md has no front matter');
    const nodeId = state.currentNodeId ?? graph.entryNodeId;
    const node = graph.nodes.find((n) => n.id === nodeId);
    if (!node) throw new Error(`currentNodeId "${nodeId}" is not a node of the graph`);
    const agentId = node.agentId || this.input.activeAgentId || '';
    let persona = '';
    const agents = this.file('@pkg', 'agents.json');
    if (existsSync(agents)) {
      persona = JSON.parse(readFileSync(agents, 'utf8')).agents?.find((a) => a.id === agentId)
        ?.persona ?? '';
    }
    return { graph, state, nodeId, node, agentId, persona,
             workflow: graph.workflowId || state.workflowType || '' };
  }

  isComplete(v) {
    const isEnd = v.node.type === 'end' || !v.graph.edges.some((e) => e.from === v.nodeId);
    return isEnd && (v.state.stepsCompleted ?? []).includes(v.nodeId);
  }

  async openWindow(intent) {
    const v = this.loadNode();
    const directive = await this.oracle.call('toolcalls.composeRunDirective', {
      intent, workflow: v.workflow, currentNodeId: v.nodeId, effectiveAgentId: v.agentId,
      autopilot: true });
    const brief = await this.oracle.call('toolcalls.composeNodeBrief', {
      currentNodeId: v.nodeId, stepFile: v.node.file ? `@pkg/${v.node.file}` : '',
      outputsMap: v.node.outputs ?? [],
      allowedNext: v.graph.edges.filter((e) => e.from === v.nodeId)
        .map((e) => ({ nodeId: e.to, label: e.label ?? '' })) });
    this.window.push({ role: 'user', content: directive.text }, { role: 'user', content: brief.text });
  }

  async start() {
    const state = this.file('@state', 'workflow.md');
    if (!existsSync(state)) {
      const template = this.file('@pkg', 'workflow.md');
      if (!existsSync(template)) throw new Error('the package has no workflow.md to start from');
      writeFileSync(state, readFileSync(template));
    }
    await this.openWindow('start');
    return this.loop();
  }

  async resume() {
    await this.openWindow('resume');
    return this.loop();
  }

  async submit(text) {
    const forNodeId = this.mode === 'chat' ? undefined : this.loadNode().nodeId;
    const shell = await this.oracle.call('toolcalls.composeUserInput', { text, forNodeId });
    this.window.push({ role: 'user', content: shell.text });
    return this.loop();
  }

  fail(turn, error) {
    this.phase = 'Failed';
    if (turn) {
      turn.response ??= { assistant: null };  // none arrived
      turn.uiAfter = { phase: 'Failed', stopReason: `error: ${error}` };
      this.turns.push(turn);
    }
    return { phase: 'Failed', stopReason: 'error', message: '', error };
  }

  async loop() {
    this.phase = 'Running';
    const run = this.mode !== 'chat';
    const { tools } = await this.oracle.call('toolcalls.functionTools', {});
    for (let call = 0; call < 50; call++) {
      const v = run ? this.loadNode() : null;
      const system = await this.oracle.call('toolcalls.composeSystemMessages', {
        mode: this.mode, persona: v?.persona ?? '', limits: this.input.limits ?? null });
      const messages = [...system.messages, ...this.window];
      const n = this.turns.length + 1;
      const turn = { id: `C${n < 10 ? '0' : ''}${n}`, phaseBefore: 'Running',
                     request: { messages, tools }, toolRuns: [] };
      let assistant;
      try {
        assistant = await this.impl.complete(this, { messages, tools });
      } catch (e) {
        return this.fail(turn, e.message);
      }
      turn.response = { assistant };
      this.window.push(this.impl.echo(assistant));
      const calls = assistant.tool_calls ?? [];
      if (calls.length === 0) {
        const complete = run && this.impl.isComplete(this, this.loadNode());
        this.phase = complete ? 'Completed' : 'WaitingUser';
        const stopReason = complete ? 'assistant_no_toolCalls_and_complete'
                                    : 'assistant_no_toolCalls_and_not_complete';
        turn.uiAfter = { phase: this.phase, stopReason };
        this.turns.push(turn);
        return { phase: this.phase, stopReason, message: assistant.content ?? '', error: '' };
      }
      const answers = [];
      for (const c of calls) {
        const started = Date.now();
        const { result, content } = await this.impl.runTool(this, c);
        answers.push({ role: 'tool', tool_call_id: c.id, content });
        let args;
        try { args = JSON.parse(c.function.arguments); } catch { args = c.function.arguments; }
        turn.toolRuns.push({ toolCallId: c.id, toolName: c.function.name, args, result,
                             durationMs: Date.now() - started });
      }
      this.window.push(...answers);
      if (run && this.loadNode().nodeId !== v.nodeId) {
        // A new node: the state carries the run; keep the last exchange only.
        this.window = [this.impl.echo(assistant), ...answers];
        await this.openWindow('continue');
      }
      turn.uiAfter = { phase: 'Running' };
      this.turns.push(turn);
    }
    return this.fail(null, 'no end after 50 LLM calls');
  }
}

// ---- the parts a broken variant replaces -------------------------------------
// One LLM call: the assistant message as received (streamed deltas joined).
export async function complete(run, { messages, tools }) {
  const body = { model: run.input.model ?? 'gpt-4o-mini', messages, tools };
  if (!run.input.stream) {
    const r = await run.client.chat.completions.create(body);
    return { ...r.choices[0].message, role: 'assistant' };
  }
  const stream = await run.client.chat.completions.create({ ...body, stream: true });
  let content = '', anyContent = false, reasoning = '', anyReasoning = false;
  const calls = [];
  for await (const chunk of stream) {
    const delta = chunk.choices?.[0]?.delta ?? {};
    if (typeof delta.content === 'string') { content += delta.content; anyContent = true; }
    if (typeof delta.reasoning_content === 'string') {
      reasoning += delta.reasoning_content;
      anyReasoning = true;
    }
    for (const d of delta.tool_calls ?? []) {
      const c = (calls[d.index ?? calls.length - 1] ??= {
        id: '', type: 'function', function: { name: '', arguments: '' } });
      if (d.id) c.id = d.id;
      if (d.type) c.type = d.type;
      if (d.function?.name) c.function.name += d.function.name;
      if (d.function?.arguments) c.function.arguments += d.function.arguments;
    }
  }
  const m = { role: 'assistant', content: !anyContent && calls.length ? null : content };
  if (anyReasoning) m.reasoning_content = reasoning;
  if (calls.length) m.tool_calls = calls;
  return m;
}

// The assistant message as it goes back: provider fields kept (reasoning_content),
// the placeholders OpenAI does not take in requests and stream indexes dropped.
export function echo(m) {
  const out = { ...m };
  if (out.refusal === null) delete out.refusal;
  if (Array.isArray(out.annotations) && out.annotations.length === 0) delete out.annotations;
  if (out.tool_calls) out.tool_calls = out.tool_calls.map(({ index, ...c }) => c);
  return out;
}

// One tool call on the workspace's folders: {result, content} (content: the tool
// message's text).
export function runTool(run, call) {
  return run.oracle.call('toolcalls.toolhost', {
    mounts: run.dirs, tool: call.function.name, args: call.function.arguments,
    toolCallId: call.id, limits: run.input.limits ?? null });
}

export function isComplete(run, v) { return run.isComplete(v); }

export async function main(overrides = {}) {
  const impl = { complete, echo, runTool, isComplete, ...overrides };
  const input = JSON.parse(readFileSync(process.env.LLMCONFORM_INPUT, 'utf8'));
  const oracle = new Oracle();
  const client = new OpenAI({ maxRetries: 0 });
  const run = new Run({ input, workspace: process.env.LLMCONFORM_WORKSPACE, oracle, client, impl });
  let outcome;
  try {
    if (run.mode !== 'chat') outcome = input.intent === 'resume' ? await run.resume() : await run.start();
    for (const text of input.userInputs ?? []) {
      if (run.mode !== 'chat' && run.phase !== 'WaitingUser') break;
      outcome = await run.submit(text);
    }
  } catch (e) {
    outcome = run.fail(null, e.message);
  } finally {
    oracle.close();
  }
  writeFileSync(process.env.LLMCONFORM_OUTPUT, JSON.stringify({ ...outcome, turns: run.turns }));
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await main();
