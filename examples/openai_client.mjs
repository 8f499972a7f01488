// A client gated by `llmconform run --client-cmd 'node openai_client.mjs'`,
// written with the official openai SDK. It speaks five protocols:
//
//   multiturn  assemble [system, ...history, current] within the token budget
//              (trimming the oldest history), send it, write {"reply","usage"}.
//   action     ask the voice assistant, read its reply (plain text, or JSON
//              with an open_app command), write {"text","command","mcpPayload"}
//              and, when it drops a command, "findings" saying why.
//   skill      run a skill step by step ([CMD], [ASK], [MESSAGE], [DONE]) with
//              the scenario's scripted terminal and user; write the session's
//              {"transcript","states","steps","parsed","end"} (skill_client.mjs).
//   gymbro,    a GymBro service run for one message: stream the reply from the
//   thinkingml LLM, publish the event stream for it (status, content_delta,
//              heartbeat, completed | error), and read that stream as a client
//              does; write {"stream": {"events"}, "client": {"reply","succeeded"}}
//              (gymbro_client.mjs).
//
// llmconform sets OPENAI_BASE_URL (its mock server, replaying the scenario's
// recorded trace), OPENAI_API_KEY, LLMCONFORM_SCENARIO ("<protocol>/<name>"),
// LLMCONFORM_INPUT (the scenario's input, JSON) and LLMCONFORM_OUTPUT (where
// to write what the client produced). docs/gate.md lists both shapes.
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import OpenAI from 'openai';
import { gymbroMessage, readEvents, relayMessage } from './gymbro_client.mjs';
import { cleanOutputForAI, fetchKeepingErrorBody, parseSkillResponse, runSkill } from './skill_client.mjs';

// ---- multiturn ----------------------------------------------------------------
export function estimateMessageTokens(text) {
  const bytes = Buffer.byteLength(text, 'utf8');
  return bytes === 0 ? 0 : Math.max(1, Math.ceil(bytes / 4));
}

export function buildLLMMessages({ systemPrompt, history, currentUserMessage, maxTokenBudget }) {
  let total = estimateMessageTokens(systemPrompt) + estimateMessageTokens(currentUserMessage);
  const kept = [];
  for (let i = history.length - 1; i >= 0; i--) {  // newest first, while it fits
    const cost = estimateMessageTokens(history[i].content);
    if (total + cost > maxTokenBudget) break;
    total += cost;
    kept.unshift({ role: history[i].role, content: history[i].content });
  }
  return [{ role: 'system', content: systemPrompt }, ...kept,
          { role: 'user', content: currentUserMessage }];
}

// ---- action -----------------------------------------------------------------------
export function actionSystemPrompt(sessionId, supportedCommands) {
  let prompt =
    'Ты — голосовой ассистент. Отвечай в одном из двух форматов.\n' +
    '1. Обычный ответ без действия: {"text": "<ответ>"} или просто текст.\n' +
    '2. Ответ с действием: {"session_id": "<ID сессии>", "command": "<команда>", ' +
    '"args": {"app_name": "<название приложения>"}, "text": "<текст для озвучивания, ' +
    'может быть пустым>"}\n';
  const commands = supportedCommands.join(', ');
  prompt += `Поддерживаемые команды: ${commands || 'нет'}. args.app_name обязателен и не должен быть пустым.\n`;
  prompt += 'text всегда строка (может быть пустой). JSON без Markdown и без текста вокруг.';
  if (sessionId) prompt += `\nID сессии: ${sessionId}`;
  return prompt;
}

const asciiTrim = (s) => s.replace(/^[ \t\n\r\f\v]+|[ \t\n\r\f\v]+$/g, '');

// The reply as the action protocol reads it: plain text, or a JSON object whose
// command is kept only when supported and complete.
export function parseReply(reply, sessionId, supportedCommands) {
  const trimmed = asciiTrim(reply);
  let body = trimmed;
  const fence = /^```[^\n]*\n([\s\S]*)```$/.exec(trimmed);
  if (fence) body = fence[1];
  const plain = { text: trimmed, command: null, mcpPayload: null };
  const first = body.indexOf('{'), last = body.lastIndexOf('}');
  if (first < 0 || last < first) return plain;
  let o;
  try { o = JSON.parse(body.slice(first, last + 1)); } catch { return plain; }
  if (o === null || typeof o !== 'object' || Array.isArray(o)) return plain;
  const out = { text: typeof o.text === 'string' ? o.text : '', command: null, mcpPayload: null };
  if (o.command === undefined || o.command === null) return out;
  const session = sessionId || (typeof o.session_id === 'string' ? o.session_id : '');
  const args = o.args;
  const argsOk = args !== null && typeof args === 'object' && !Array.isArray(args);
  // A command that is not supported or not complete is dropped, saying why.
  const why = [
    [typeof o.command !== 'string', 'ACT-5', 'command is not a string'],
    [typeof o.command === 'string' && !supportedCommands.includes(o.command), 'ACT-6', 'unsupported command'],
    [!session, 'ACT-4', 'no session id'],
    [!argsOk, 'ACT-7', 'args is not an object'],
    [argsOk && (typeof args.app_name !== 'string' || args.app_name === ''), 'ACT-8', 'args.app_name missing or empty'],
  ].filter(([broken]) => broken).map(([, rule, message]) => ({ rule, message }));
  if (why.length) return { ...out, findings: why };
  out.command = { session_id: session, command: o.command, args };
  out.mcpPayload = '__MCP__' + JSON.stringify({ event: 'mcp.command_request',
                                                payload: { session_id: session, command: o.command, args } });
  return out;
}

// ---- the client ----------------------------------------------------------------------
export { cleanOutputForAI, parseSkillResponse, readEvents, relayMessage };

export async function main(impl = {}) {
  impl = { buildLLMMessages, parseReply, relayMessage, readEvents, parseSkillResponse, cleanOutputForAI, ...impl };
  const scenario = process.env.LLMCONFORM_SCENARIO;
  const input = JSON.parse(readFileSync(process.env.LLMCONFORM_INPUT, 'utf8'));
  const client = new OpenAI({ baseURL: process.env.OPENAI_BASE_URL, apiKey: process.env.OPENAI_API_KEY,
                              maxRetries: 0, fetch: fetchKeepingErrorBody });
  const model = input.model ?? 'gpt-4o-mini';
  let output;
  if (scenario.startsWith('multiturn/')) {
    const messages = impl.buildLLMMessages(input);
    if (input.stream) {
      let reply = '';
      let usage = null;
      const stream = await client.chat.completions.create({
        model, messages, stream: true,
        ...(input.includeUsage ? { stream_options: { include_usage: true } } : {}),
      });
      for await (const chunk of stream) {
        reply += chunk.choices[0]?.delta?.content ?? '';
        usage = chunk.usage ?? usage;  // the chunk with choices: [] before [DONE]
      }
      output = { reply, usage };
    } else {
      const completion = await client.chat.completions.create({ model, messages });
      output = { reply: completion.choices[0].message.content, usage: completion.usage ?? null };
    }
  } else if (scenario.startsWith('action/')) {
    const sessionId = input.sessionId ?? null;
    const supported = input.supportedCommands ?? ['open_app'];
    const completion = await client.chat.completions.create({
      model,
      messages: [{ role: 'system', content: actionSystemPrompt(sessionId, supported) },
                 { role: 'user', content: input.utterance }],
    });
    output = impl.parseReply(completion.choices[0].message.content ?? '', sessionId, supported);
  } else if (scenario.startsWith('skill/')) {
    output = await runSkill(client, input, impl);
  } else if (scenario.startsWith('gymbro/') || scenario.startsWith('thinkingml/')) {
    output = await gymbroMessage(client, input, impl);
  } else {
    throw new Error(`no client for ${scenario}`);
  }
  writeFileSync(process.env.LLMCONFORM_OUTPUT, JSON.stringify(output));
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await main();
