// What a recorded Anthropic Messages exchange says, read plainly (no SDK):
// the e2e tests compare what each client reads with it.
// The message a recording says, read plainly: a body as it is; a stream's
// blocks from content_block_start, their deltas joined in order, the stop
// reason and usage of message_delta over message_start's.
export function finalOf(x) {
  if (!x.response.chunks) return x.response.body;
  let message;
  const json = {};
  for (const c of x.response.chunks) {
    for (const m of (c.raw ?? '').matchAll(/^data: (.*)$/gm)) {
      const d = JSON.parse(m[1]);
      if (d.type === 'message_start') message = { ...d.message, content: [] };
      if (d.type === 'content_block_start') message.content[d.index] = { ...d.content_block };
      if (d.type === 'content_block_delta') {
        const b = message.content[d.index];
        if (d.delta.type === 'text_delta') b.text += d.delta.text;
        if (d.delta.type === 'thinking_delta') b.thinking += d.delta.thinking;
        if (d.delta.type === 'signature_delta') b.signature = d.delta.signature;
        if (d.delta.type === 'input_json_delta') json[d.index] = (json[d.index] ?? '') + d.delta.partial_json;
      }
      if (d.type === 'message_delta') {
        Object.assign(message, d.delta);
        for (const [k, v] of Object.entries(d.usage ?? {})) if (v !== null) message.usage[k] = v;
      }
    }
  }
  for (const [i, text] of Object.entries(json)) if (text) message.content[i].input = JSON.parse(text);
  return message;
}
export const textOf = (m) =>
  (m.content ?? [])
    .filter((b) => b.type === 'text')
    .map((b) => b.text)
    .join('');
export const callsOf = (m) =>
  (m.content ?? []).filter((b) => b.type === 'tool_use').map((b) => ({ id: b.id, name: b.name, input: b.input }));
export const thinkingOf = (m) =>
  (m.content ?? [])
    .filter((b) => b.type === 'thinking')
    .map((b) => ({ thinking: b.thinking, signature: b.signature }));
