// The skill protocol (seed 000; docs/protocols.md "skill") for the example
// client examples/openai_client.mjs: a terminal assistant that runs a skill
// step by step — the model answers [CMD], [ASK], [ASK:optional], [MESSAGE] or
// [DONE]; commands run and questions are answered, and their results go back
// as the next user message, until [DONE], an unusable reply, a failed request
// or the step limit.
//
// The terminal and the user are the scenario's script (LLMCONFORM_INPUT):
// `commands[i]` is what the i-th [CMD] gives — its output, or {"skip": true}
// when the user declines to run it — and `answers[i]` the i-th [ASK]'s answer.
// Nothing is run for real. The output is the session's record:
// {"transcript", "states", "steps", "parsed", "end"} (docs/gate.md).
import OpenAI from 'openai';

export const SKILL_SYSTEM_PROMPT_WITH_ASK = `You are a terminal AI assistant executing a multi-step skill.

RESPONSE FORMAT - Use EXACTLY ONE of these formats per response:

1. [CMD] command_here
   Execute this shell command. You will receive the command output.

2. [ASK] question here
   Ask the user a question and WAIT for their required response.
   Use this when you MUST have user input (commit message, confirmation, choice).
   Examples: "Введи сообщение коммита:", "Продолжить? (yes/no):"

3. [ASK:optional] question here
   Ask the user an optional question. They can skip by pressing Enter.
   Example: "Хочешь добавить тег? (оставь пустым для пропуска):"

4. [MESSAGE] informational text here
   Show an informational message and CONTINUE immediately without waiting.
   Use for progress updates, status messages, warnings.
   Examples: "Обрабатываю папку 1 из 3...", "Проверяю ветку dev..."

5. [DONE] final message here
   The skill is complete. Show this final message to the user.

RULES:
- Always start your response with [CMD], [ASK], [ASK:optional], [MESSAGE], or [DONE]
- Only ONE format per response
- [CMD]: provide only the command, no explanations
- [ASK]: BLOCKS execution - user MUST respond (required input)
- [ASK:optional]: BLOCKS execution - user CAN respond or skip (optional input)
- [MESSAGE]: does NOT block - execution continues automatically (info only)
- [DONE]: summarize what was accomplished`;

// Unicode white space (White_Space and the BOM): JavaScript's \s lacks U+0085.
const trim = (s) => s.replace(/^[\s\u0085]+|[\s\u0085]+$/g, '');
const trimStart = (s) => s.replace(/^[\s\u0085]+/, '');
const trimEnd = (s) => s.replace(/[\s\u0085]+$/, '');

// SKILL.md without its YAML front matter (--- lines), trimmed.
export function skillBody(markdown) {
  const lineAt = (pos) => {
    const nl = markdown.indexOf('\n', pos);
    const line = markdown.slice(pos, nl < 0 ? undefined : nl).replace(/\r$/, '');
    return [line, nl < 0 ? -1 : nl + 1];
  };
  let [line, next] = lineAt(0);
  if (line === '---' && next >= 0) {
    for (let pos = next; pos >= 0;) {
      [line, next] = lineAt(pos);
      if (line === '---') return trim(next < 0 ? '' : markdown.slice(next));
      pos = next;
    }
  }
  return trim(markdown);
}

export function buildSkillSystemPrompt(base, serverContext, skillName, skillMarkdown) {
  const context = trim(serverContext);
  return base + (context ? `\n\n--- System Context ---\n${context}` : '') +
         `\n\n--- Active Skill: ${skillName} ---\n${skillBody(skillMarkdown)}`;
}

const stepMarker = (step, max) => `\n\n[Step ${step} of ${max}]`;

export function buildInitialUserPrompt(skillName, parameters, customPrompt, step, maxSteps) {
  let out = customPrompt || `Execute skill: ${skillName}`;
  if (parameters.length) {
    out += '\n\nParameters:';
    for (const [key, value] of parameters) out += `\n- ${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`;
  }
  return out + stepMarker(step, maxSteps);
}

// ---- parsing a reply
const TAGS = [['CMD', '[CMD]'], ['ASK_OPTIONAL', '[ASK:optional]'], ['ASK', '[ASK]'],
              ['MESSAGE', '[MESSAGE]'], ['DONE', '[DONE]']];
const FENCE = '```';
const startsWithNoCase = (s, prefix) => s.slice(0, prefix.length).toLowerCase() === prefix.toLowerCase();
const lineEnd = (text, pos) => { while (pos < text.length && text[pos] !== '\n' && text[pos] !== '\r') pos++; return pos; };
const nextLine = (text, end) => (end >= text.length ? text.length
                                 : text[end] === '\r' && text[end + 1] === '\n' ? end + 2 : end + 1);
const startsWithTag = (line) => TAGS.some(([, t]) => startsWithNoCase(line, t));

// The command starting at `start`: the rest of its line, or a code fence's content.
function extractCommand(text, start) {
  const end = lineEnd(text, start);
  let line = trimEnd(text.slice(start, end));
  if (line.startsWith(FENCE)) {
    const inner = line.slice(FENCE.length);
    const close = inner.lastIndexOf(FENCE);
    if (close >= 0) return trim(inner.slice(0, close));  // ```ls```
    const body = nextLine(text, end);
    let pos = body;
    while (pos < text.length) {
      const e = lineEnd(text, pos);
      const l = text.slice(pos, e);
      if (trimStart(l).startsWith(FENCE) || startsWithTag(l)) break;
      pos = nextLine(text, e);
    }
    return trim(text.slice(body, pos));
  }
  if (line.endsWith(FENCE)) line = trimEnd(line.slice(0, -FENCE.length));
  return line;
}

// Where `tag` first starts a line with text after it ([DONE]: with or without).
function findTag(text, [kind, tag]) {
  for (let line = 0; line < text.length;) {
    if (startsWithNoCase(text.slice(line), tag)) {
      const after = line + tag.length;
      if (kind === 'DONE' || trimStart(text.slice(after)) !== '') return after;
    }
    const end = lineEnd(text, line);
    if (end >= text.length) break;
    line = end + 1;
  }
  return -1;
}

const unknown = (content) => ({ type: 'UNKNOWN', content, error: 'Empty or invalid AI response' });

export function parseSkillResponse(reply) {
  const text = trim(reply);
  for (const tag of TAGS) {
    const after = findTag(text, tag);
    if (after < 0) continue;
    const rest = trim(text.slice(after));
    switch (tag[0]) {
      case 'CMD': {
        const command = extractCommand(text, text.length - trimStart(text.slice(after)).length);
        return command ? { type: 'CMD', content: text, command } : unknown(text);
      }
      case 'ASK_OPTIONAL':
      case 'ASK':
        return { type: 'ASK', content: text, question: rest, required: tag[0] === 'ASK' };
      default:
        return { type: tag[0], content: text, message: rest || 'Skill completed' };
    }
  }
  const first = trimEnd(text.slice(0, lineEnd(text, 0)));
  if (!text || TAGS.some(([, t]) => first.length === t.length && startsWithNoCase(first, t))) return unknown(text);
  const command = extractCommand(text, 0);  // no tag: the first line is the command
  return command ? { type: 'CMD', content: `[CMD] ${command}`, command } : unknown(text);
}

// ---- cleaning terminal output
const ESCAPES = new RegExp([
  '(?:\\x1b\\[|\\u009b)[\\x30-\\x3f]*[\\x20-\\x2f]*[\\x40-\\x7e]?',                      // CSI
  '(?:\\x1b[\\]PX^_]|[\\u0090\\u0098\\u009d\\u009e\\u009f])[^\\x07\\n\\x1b\\u0080-\\u009f]*(?:\\x07|\\x1b\\\\|\\u009c)?',  // OSC and string controls
  '\\x1b[\\x20-\\x2f]+[\\x30-\\x7e]?',                                                   // nF
  '\\x1b[\\x30-\\x7e]?',                                                                 // short escapes, a lone ESC
  '[\\u0080-\\u009f]',                                                                   // other C1 controls
].join('|'), 'g');

// The length of a terminal prompt at the start of `line` ("C:\dir>", "user@host:path$").
function promptLength(line) {
  if (/^[A-Za-z]:\\/.test(line)) { const gt = line.indexOf('>', 3); return gt < 0 ? 0 : gt + 1; }
  const m = /^[\w.-]+@[\w.-]+:/.exec(line);
  if (!m) return 0;
  const end = line.slice(m[0].length).search(/[$#>]/);
  return end < 0 ? 0 : m[0].length + end + 1;
}
const isWindowsBanner = (line) =>
  (line.startsWith('Microsoft Windows [Version') && line.indexOf(']', 26) >= 0) ||
  line.startsWith('(c) Microsoft Corporation');

// A CR returns to the line's start and what follows overwrites, one code point a
// column, as the terminal showed it (docs/protocols.md); escapes go again where
// two writes meet.
function overwritten(line) {
  if (!line.includes('\r')) return line;
  const shown = [];
  for (const part of line.split('\r')) [...part].forEach((c, i) => { shown[i] = c; });
  return shown.join('').replace(ESCAPES, '');
}

export function cleanOutputForAI(raw, lastCommand) {
  if (!raw) return '(no output)';
  const echo = trim(lastCommand ?? '');
  const kept = [];
  let first = true;
  for (let line of raw.replace(ESCAPES, '').split('\n')) {
    line = trimStart(overwritten(line));
    for (let n; (n = promptLength(line));) line = trimStart(line.slice(n));
    line = trimEnd(line);
    if (!line || isWindowsBanner(line)) continue;
    const echoed = first && echo !== '' && line === echo;  // the terminal's echo of the command
    first = false;
    if (!echoed && !kept.includes(line)) kept.push(line);
  }
  return kept.length ? kept.join('\n') : '(no output)';
}

// ---- the model
// The error a provider's body carries, in its several shapes: {"error": {…}},
// Gemini's [{"error": {…}}], a flat {"message", "type"|"code"|"object":"error"}
// (docs/protocols.md, "Provider dialects"); null for none.
export function errorOf(body) {
  const e = Array.isArray(body) ? body[0]?.error
    : body?.error ?? (typeof body?.message === 'string' && !body.choices &&
                      (body.object === 'error' || 'type' in body || 'code' in body) ? body : undefined);
  if (typeof e === 'string') return { message: e };
  return e && typeof e === 'object' ? e : null;
}

// The SDK keeps only body.error of an HTTP error: a fetch that remembers the
// last error body whole, for the shapes above (pass it as OpenAI's `fetch`).
let lastErrorBody = null;
export async function fetchKeepingErrorBody(url, init) {
  const response = await fetch(url, init);
  if (!response.ok) lastErrorBody = await response.clone().text().catch(() => null);
  return response;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
// A rate limit's wait (retry-after-ms, else retry-after seconds), when at most 2 s.
function retryDelay(headers) {
  const header = (k) => headers?.get?.(k) ?? null;
  const ms = header('retry-after-ms') !== null ? Number(header('retry-after-ms'))
    : header('retry-after') !== null ? Number(header('retry-after')) * 1000 : NaN;
  return ms >= 0 && ms <= 2000 ? ms : null;
}
const isRateLimit = (e) => e && (e.code === 429 || e.code === '429' || e.code === 'rate_limit_exceeded');

// [system, ...] → the reply text, or throws an Error whose message ends the session.
export async function askModel(client, messages, { model, timeoutMs }) {
  for (let attempt = 0; ; attempt++) {
    let completion, response;
    try {
      lastErrorBody = null;
      ({ data: completion, response } = await client.chat.completions
        .create({ model, messages, temperature: 0.3, max_tokens: 512 }, { timeout: timeoutMs })
        .withResponse());
    } catch (e) {
      if (e instanceof OpenAI.APIConnectionTimeoutError) throw new Error(`LLM request timed out after ${timeoutMs} ms`);
      if (!(e instanceof OpenAI.APIError) || !e.status) throw e;
      const delay = e.status === 429 ? retryDelay(e.headers) : null;
      if (delay !== null && attempt < 2) { await sleep(delay); continue; }  // a rate limit: wait as told
      let body = null;
      try { body = JSON.parse(lastErrorBody); } catch { /* not JSON */ }
      throw new Error(`LLM answered HTTP ${e.status}: ${errorOf(body)?.message || lastErrorBody?.slice(0, 200) || e.message}`);
    }
    const content = completion.choices?.[0]?.message?.content;
    // A provider's inline reasoning is not the reply; reasoning alone is an empty reply.
    const reply = typeof content === 'string' ? content.replace(/^\s*<think>[\s\S]*?<\/think>/, '') : '';
    if (reply) return reply;
    const error = errorOf(completion);  // an error in a 200 (DIA-ERROR-WITH-200)
    const delay = isRateLimit(error) ? retryDelay(response.headers) : null;
    if (delay !== null && attempt < 2) { await sleep(delay); continue; }
    throw new Error(error ? `LLM answer holds an error: ${error.message}` : 'LLM answer has no choices[0].message.content');
  }
}

// ---- the session
export async function runSkill(client, input, impl = {}) {
  const parse = impl.parseSkillResponse ?? parseSkillResponse;
  const clean = impl.cleanOutputForAI ?? cleanOutputForAI;
  const maxSteps = input.maxSteps ?? 100;
  const commands = [...(input.commands ?? [])], answers = [...(input.answers ?? [])];
  let context = input.serverContext ?? '';
  if (input.knowledge) context = input.knowledge.project ?? input.knowledge.home ?? '';
  const messages = [
    { role: 'system', content: buildSkillSystemPrompt(input.basePrompt ?? SKILL_SYSTEM_PROMPT_WITH_ASK, context,
                                                      input.skillName, input.skillMarkdown) },
    { role: 'user', content: buildInitialUserPrompt(input.skillName, input.parameters ?? [], input.customPrompt ?? '', 1, maxSteps) },
  ];
  let step = 1, state = 'idle', end = null;
  const transcript = [{ event: 'start', step, state, text: messages[1].content }];
  const finish = (reason, message) => {
    state = 'done';
    end = { reason, message };
    transcript.push({ event: 'end', step, state, end });
  };
  // The next user message, or the end when it would pass the step limit.
  const next = (entry, text) => {
    if (step + 1 > maxSteps) {
      transcript.push({ ...entry, step, state: 'done' });
      return finish('max_steps', 'Maximum steps reached');
    }
    step++;
    messages.push({ role: 'user', content: text + stepMarker(step, maxSteps) });
    state = 'idle';
    transcript.push({ ...entry, step, state });
  };
  let last = null;
  while (state !== 'done') {
    if (state === 'idle') {
      let reply;
      try {
        reply = await askModel(client, messages, { model: input.model ?? 'CHEAP', timeoutMs: input.timeoutMs ?? 30000 });
      } catch (e) {
        transcript.push({ event: 'model_error', step, state: 'done', text: e.message });
        finish('model_error', e.message);
        break;
      }
      last = parse(reply);
      messages.push({ role: 'assistant', content: last.content });
      state = { CMD: 'waiting_cmd', ASK: 'waiting_user', MESSAGE: 'idle' }[last.type] ?? 'done';
      transcript.push({ event: 'reply', step, state, text: reply, reply: last });
      if (last.type === 'MESSAGE') next({ event: 'continue' }, '[Continue after informational message]');
      else if (last.type === 'DONE') finish('completed', last.message);
      else if (last.type === 'UNKNOWN') finish('invalid_reply', last.error);
    } else if (state === 'waiting_cmd') {
      const ran = commands.shift();
      if (!ran) throw new Error(`the script has no terminal output for ${JSON.stringify(last.command)}`);
      if (ran.skip) {
        next({ event: 'command_skipped', command: last.command }, 'User skipped the command.');
      } else {
        const cleaned = clean(ran.output, last.command);
        next({ event: 'command_output', command: last.command, text: ran.output, cleaned }, `Command output:\n${cleaned}`);
      }
    } else {
      const answer = answers.shift();
      if (!answer) throw new Error(`the script has no answer to ${JSON.stringify(last.question)}`);
      if (answer.skip && last.required) throw new Error('a required question cannot be skipped');
      const text = answer.skip ? '' : answer.text;
      next({ event: 'answer', text, skipped: !!answer.skip }, `User response: ${text}`);
    }
  }
  return {
    transcript,
    states: transcript.map((e) => e.state),
    steps: transcript.filter((e) => e.event === 'reply' || e.event === 'model_error').map((e) => e.step),
    parsed: transcript.filter((e) => e.reply).map((e) => e.reply),
    end,
  };
}
