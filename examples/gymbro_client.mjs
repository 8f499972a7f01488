// The gymbro and thinkingml protocols (seed 002 §6–§7; docs/protocols.md
// "gymbro SSE") for the example client examples/openai_client.mjs: a GymBro
// service run for one message — it streams the reply from the LLM and
// publishes the event stream for it (status queued → working → routed, one
// content_delta per piece of at most 256 characters, a heartbeat while the LLM
// is silent, then completed or error) — and a client that reads that stream:
// the deltas joined by seq, a failure unless it completed. The output is
// {"stream": {"events": [{"event","data"}]}, "client": {"reply","succeeded"}}
// (docs/gate.md); the service's HTTP endpoints are not served, so the output
// reports no "post" and no stream status.
import { randomUUID } from 'node:crypto';
import OpenAI from 'openai';

const MAX_DELTA = 256, TARGET_DELTA = 128;

// A piece of upstream text as content_delta pieces of at most 256 code points,
// cut as near 128 as possible after a line or sentence break (else at 256).
export function splitDelta(text) {
  const pieces = [];
  let rest = Array.from(text);
  while (rest.length > MAX_DELTA) {
    let cut = MAX_DELTA;
    let best = Infinity;
    for (let k = 1; k <= MAX_DELTA; k++) {
      const prev = rest[k - 1];
      const breakHere = prev === '\n' || '。！？'.includes(prev) ||
                        ('.!?'.includes(prev) && k < rest.length && /\s/.test(rest[k]));
      if (breakHere && Math.abs(k - TARGET_DELTA) < best) { best = Math.abs(k - TARGET_DELTA); cut = k; }
    }
    pieces.push(rest.slice(0, cut).join(''));
    rest = rest.slice(cut);
  }
  if (rest.length) pieces.push(rest.join(''));
  return pieces;
}

// The events of one message, as the service publishes them.
export class EventPublisher {
  constructor(messageId, requestId) {
    Object.assign(this, { messageId, requestId, events: [], seq: 1, replyLen: 0, lastAt: Date.now() });
  }
  publish(event, fields) {
    this.events.push({ event, data: JSON.stringify({ message_id: this.messageId, request_id: this.requestId, ...fields }) });
    this.lastAt = Date.now();
  }
  status(state, route) { this.publish('status', { state, ...(state === 'routed' ? route : {}) }); }
  delta(text) {
    for (const piece of splitDelta(text)) {
      this.replyLen += Array.from(piece).length;
      this.publish('content_delta', { seq: this.seq++, delta: piece });
    }
  }
  heartbeat() { this.publish('heartbeat', { ts: Date.now() }); }
  completed(route) { this.publish('completed', { ...route, reply_len: this.replyLen, metadata: null }); }
  error(code, message, route) { this.publish('error', { code, message, error: message, ...route }); }
}

// Streams the reply of [system?, user] from the LLM into `pub`, with a
// heartbeat after every `heartbeatMs` in which the upstream sent nothing.
export async function relayMessage(client, input, pub) {
  const model = input.model ?? 'gpt-4o-mini';
  const route = { provider: 'openai', resolved_model: model, endpoint_id: 1, upstream_request_id: null };
  const heartbeatMs = input.heartbeatMs ?? 1000;
  pub.status('queued');
  pub.status('working');
  const messages = [...(input.system !== undefined ? [{ role: 'system', content: input.system }] : []),
                    { role: 'user', content: input.text }];
  const timer = setInterval(() => { if (Date.now() - pub.lastAt >= heartbeatMs) pub.heartbeat(); },
                            Math.max(10, Math.floor(heartbeatMs / 4)));
  try {
    pub.status('routed', route);
    let stream;
    try {
      stream = await client.chat.completions.create({ model, messages, stream: true },
                                                    { timeout: input.timeoutMs ?? 30000 });
    } catch (e) {
      if (e instanceof OpenAI.APIConnectionTimeoutError) return pub.error('upstream_timeout', e.message, route);
      if (e instanceof OpenAI.APIConnectionError) return pub.error('provider_unavailable', e.message, route);
      return pub.error('provider_error', e.message, route);
    }
    let finished = false;
    try {
      for await (const chunk of stream) {
        const choice = chunk.choices?.[0];
        if (choice?.delta?.content) pub.delta(choice.delta.content);
        if (choice?.finish_reason) finished = true;
      }
    } catch (e) {
      // An error object inside the stream is the provider's; a broken stream is incomplete.
      if (e instanceof OpenAI.APIError && !(e instanceof OpenAI.APIConnectionError))
        return pub.error('provider_error', e.message, route);
      return pub.error('upstream_incomplete', e.message, route);
    }
    if (!finished) return pub.error('upstream_incomplete', 'the upstream stream ended before it finished', route);
    pub.completed(route);
  } finally {
    clearInterval(timer);
  }
}

// The client's side: the deltas joined by seq; a failure unless the stream completed.
export function readEvents(events) {
  const deltas = [];
  let end = null;
  events.forEach(({ event, data }, i) => {
    const d = JSON.parse(data);
    if (event === 'content_delta') deltas.push({ seq: Number.isInteger(d.seq) ? d.seq : Infinity, i, delta: d.delta });
    if ((event === 'completed' || event === 'error') && end === null) end = event;
  });
  deltas.sort((a, b) => a.seq - b.seq || a.i - b.i);
  return { reply: deltas.map((d) => d.delta).join(''), succeeded: end === 'completed' };
}

export async function gymbroMessage(client, input, impl) {
  const pub = new EventPublisher(`msg-${randomUUID()}`, input.requestId ?? `req-${randomUUID()}`);
  await impl.relayMessage(client, input, pub);
  return { stream: { events: pub.events }, client: impl.readEvents(pub.events) };
}
