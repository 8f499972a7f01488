// Shared by the client-profile adapters (docs/gate.md, "Client profile"):
// read LLMCONFORM_INPUT, build the request it describes (Chat Completions, or
// the neutral tools in another surface's shape), accumulate stream chunks,
// write LLMCONFORM_OUTPUT.
import { readFileSync, writeFileSync } from 'node:fs';

export const input = JSON.parse(readFileSync(process.env.LLMCONFORM_INPUT, 'utf8'));
export const options = input.options ?? {};
export const maxRetries = options.max_retries ?? 2;
// The call's timeout in milliseconds (LLMCONFORM_TIMEOUT_MS, set when the
// scenario gives the call one: options.timeout_ms), for the SDK's own timeout
// option; undefined: none given, the SDK's default.
export const timeoutMs = process.env.LLMCONFORM_TIMEOUT_MS ? Number(process.env.LLMCONFORM_TIMEOUT_MS) : undefined;

// {model, messages, tools?, stream?, ...options.params}: the recorded request.
export function requestBody() {
  const body = { model: input.model, messages: input.messages };
  if (input.tools) body.tools = input.tools;
  if (input.stream) body.stream = true;
  return { ...body, ...(options.params ?? {}) };
}

function blockText(t) {
  return typeof t === 'string' ? t : (t ?? []).map((p) => p.text ?? '').join('');
}

// Reasoning inlined as a leading <think>…</think> block (docs/protocols.md,
// "Inline reasoning"): {reasoning, text}; the text unchanged without one.
export function splitThink(text) {
  const m = /^<think>\n?([\s\S]*?)\n?<\/think>(?:\r?\n){0,2}/.exec(text);
  return m ? { reasoning: m[1], text: text.slice(m[0].length) } : { reasoning: '', text };
}

// What a Chat Completions message holds, in the output's shape.
export function fromMessage(message = {}) {
  const blocks = Array.isArray(message.content) ? message.content : [];
  return {
    text: typeof message.content === 'string' ? message.content : blocks.filter((b) => b.type === 'text').map((b) => b.text ?? '').join(''),
    reasoning: message.reasoning_content || message.reasoning || blocks.filter((b) => b.type === 'thinking').map((b) => blockText(b.thinking)).join(''),
    tool_calls: (message.tool_calls ?? []).map((c) => ({
      id: c.id ?? '', name: c.function?.name ?? '', arguments: c.function?.arguments ?? '',
    })),
  };
}

// Joins chat.completion.chunk objects into {message, usage, finish}: tool
// calls keyed by index, or, without one, each delta a whole call.
export function accumulate() {
  const message = { content: '', reasoning_content: '', tool_calls: [] };
  const out = { message, usage: null, finish: null };
  out.add = (chunk) => {
    if (chunk.usage) out.usage = chunk.usage;
    if (chunk.x_groq?.usage) out.usage = chunk.x_groq.usage;
    const choice = chunk.choices?.[0];
    if (!choice) return;
    if (choice.finish_reason) out.finish = choice.finish_reason;
    const d = choice.delta ?? {};
    if (typeof d.content === 'string') message.content += d.content;
    for (const b of Array.isArray(d.content) ? d.content : []) {  // Mistral's blocks
      if (b.type === 'text') message.content += b.text ?? '';
      if (b.type === 'thinking') message.reasoning_content += blockText(b.thinking);
    }
    message.reasoning_content += d.reasoning_content ?? d.reasoning ?? '';
    for (const tc of d.tool_calls ?? []) {
      const seen = message.tool_calls.find((c) => (tc.index !== undefined ? c.index === tc.index : tc.id && c.id === tc.id));
      const call = seen ?? { index: tc.index, id: '', function: { name: '', arguments: '' } };
      if (!seen) message.tool_calls.push(call);
      if (tc.id && !call.id) call.id = tc.id;
      if (tc.function?.name && !call.function.name) call.function.name = tc.function.name;
      call.function.arguments += tc.function?.arguments ?? '';
    }
  };
  return out;
}

// An SDK's or fetch's exception as the output's error.
export function errorOf(e, kind) {
  return { status: typeof e?.status === 'number' ? e.status : null, kind: kind ?? e?.constructor?.name ?? 'error', message: String(e?.message ?? e) };
}

export function writeOutput(output) {
  writeFileSync(process.env.LLMCONFORM_OUTPUT, JSON.stringify(output));
}

// The surfaces an adapter speaks: a scenario of another one is written as
// unsupported (every rule skipped with the reason), and the adapter exits.
export function speaks(surfaces) {
  const surface = input.surface ?? 'chat';
  if (surfaces.includes(surface)) return;
  writeOutput({ unsupported: `this adapter speaks ${surfaces.join(', ')}, not ${surface}` });
  process.exit(0);
}

// The neutral tools ({type: "function", function: {name, description,
// parameters}}) as `shape(name, description, parameters)` makes each.
export const toolsAs = (shape) => input.tools?.map(({ function: f }) => shape(f.name, f.description, f.parameters));

// The reply's token counts in the output's shape (null: not given).
export const usageOf = (prompt, completion, total) => ({
  prompt_tokens: prompt ?? null, completion_tokens: completion ?? null, total_tokens: total ?? null,
});

// Runs `call` (which returns the output's fields it read) and writes the
// output: an exception is the output's error; `attempts` counts the HTTP
// requests made through `countingFetch`; the `unsupported` fields (those the
// SDK does not expose) are left out.
let attempts = 0;
const realFetch = globalThis.fetch;
export const countingFetch = (url, init) => { attempts += 1; return realFetch(url, init); };
export async function runCall(call, { unsupported = [] } = {}) {
  const output = { text: '', reasoning: '', tool_calls: [], usage: null, finish: null, error: null };
  try {
    Object.assign(output, await call());
  } catch (e) {
    output.error = errorOf(e);
  }
  for (const field of unsupported) delete output[field];
  writeOutput({ ...output, attempts });
}
