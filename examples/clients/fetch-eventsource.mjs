// A client-profile adapter without an SDK: plain fetch, the stream split by
// eventsource-parser, chunks joined by hand; 429s retried after the wait they
// name, errors read in every dialect's shape (docs/protocols.md).
//   llmconform run --profile client --client-cmd 'node examples/clients/fetch-eventsource.mjs'
import { createParser } from 'eventsource-parser';
import { accumulate, errorOf, fromMessage, input, maxRetries, requestBody, speaks, splitThink, timeoutMs, writeOutput } from './common.mjs';

speaks(['chat']);

const url = `${process.env.OPENAI_BASE_URL}/chat/completions`;
const headers = { 'content-type': 'application/json', authorization: `Bearer ${process.env.OPENAI_API_KEY}` };
const output = { text: '', reasoning: '', tool_calls: [], usage: null, finish: null, error: null, attempts: 0 };

// An error body in any dialect's shape ({error}, [{error}], {object:"error"}), or null.
const errorIn = (j) => (Array.isArray(j) ? j[0]?.error : j?.error ?? (j?.object === 'error' ? j : null)) ?? null;
const waitOf = (res, body) => {
  const ms = Number(res.headers.get('retry-after-ms') ?? NaN);
  const s = Number(res.headers.get('retry-after') ?? NaN);
  const limited = res.status === 429 || [429, '429', 'rate_limit_exceeded'].includes(errorIn(body)?.code);
  return limited ? (!Number.isNaN(ms) ? ms : !Number.isNaN(s) ? s * 1000 : null) : null;
};

async function call() {
  for (;;) {
    output.attempts += 1;
    const signal = timeoutMs ? AbortSignal.timeout(timeoutMs) : undefined;  // the whole call, its stream included
    const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(requestBody()), signal });
    if (res.headers.get('content-type')?.includes('event-stream') && res.ok) return readStream(res);
    const text = await res.text();
    let body = null;
    try { body = JSON.parse(text); } catch { /* not JSON */ }
    const wait = waitOf(res, body);
    if (wait !== null && wait <= 2000 && output.attempts <= maxRetries) {
      await new Promise((r) => setTimeout(r, wait));
      continue;
    }
    const error = errorIn(body);
    if (!res.ok || error || !body?.choices) {
      return { status: res.ok ? null : res.status, kind: res.ok ? 'in_body' : 'http', message: error?.message ?? text.slice(0, 200) };
    }
    const choice = body.choices[0];
    Object.assign(output, fromMessage(choice.message), { usage: body.usage ?? null, finish: choice.finish_reason ?? null });
    return null;
  }
}

async function readStream(res) {
  const acc = accumulate();
  let error = null, done = false;
  const parser = createParser({
    onEvent(ev) {
      if (ev.data === '[DONE]') { done = true; return; }
      const chunk = JSON.parse(ev.data);
      if (errorIn(chunk)) error ??= { status: null, kind: 'in_stream', message: errorIn(chunk).message ?? '' };
      else acc.add(chunk);
    },
  });
  const decoder = new TextDecoder();
  for await (const bytes of res.body) parser.feed(decoder.decode(bytes, { stream: true }));
  Object.assign(output, fromMessage(acc.message), { usage: acc.usage, finish: acc.finish });
  if (!error && !done && !acc.finish) error = { status: null, kind: 'cut', message: 'the stream ended unfinished' };
  return error;
}

try {
  output.error = await call();
} catch (e) {
  output.error = errorOf(e, e?.name === 'TimeoutError' ? 'timeout' : 'cut');
}
const { reasoning, text } = splitThink(output.text);
if (reasoning) Object.assign(output, { text, reasoning: output.reasoning ? `${output.reasoning}\n${reasoning}` : reasoning });
writeOutput(output);
