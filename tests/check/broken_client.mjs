// Deliberately broken clients for `run --client-cmd` tests: the example client
// (copied beside this file by the test) with one realistic bug.
//   node broken_client.mjs trim   multiturn keeps the OLDEST history over budget
//   node broken_client.mjs time   action rewrites "10:30" in the text as "10.30"
//   node broken_client.mjs fence        skill: a command in a code fence parses as
//                                       an empty command (the public implementation's bug)
//   node broken_client.mjs partial      gymbro: a stream that ended in error still
//                                       counts as a reply when deltas came
//   node broken_client.mjs sanitize     thinkingml: the service strips the tags
//                                       ThinkingML does not allow out of each delta
import { main, buildLLMMessages, parseReply, estimateMessageTokens, relayMessage, readEvents,
         parseSkillResponse } from './openai_client.mjs';

const bug = process.argv[2];
const impl = { buildLLMMessages, parseReply, relayMessage, readEvents };
if (bug === 'trim') {
  impl.buildLLMMessages = ({ systemPrompt, history, currentUserMessage, maxTokenBudget }) => {
    let total = estimateMessageTokens(systemPrompt) + estimateMessageTokens(currentUserMessage);
    const kept = [];
    for (const m of history) {  // BUG: from the oldest message
      if (total + estimateMessageTokens(m.content) > maxTokenBudget) break;
      total += estimateMessageTokens(m.content);
      kept.push({ role: m.role, content: m.content });
    }
    return [{ role: 'system', content: systemPrompt }, ...kept, { role: 'user', content: currentUserMessage }];
  };
} else if (bug === 'time') {
  impl.parseReply = (...args) => {
    const out = parseReply(...args);
    out.text = out.text.replace(/\b(\d{1,2}):(\d{2})\b/g, '$1.$2');  // BUG: "normalises" times
    return out;
  };
} else if (bug === 'fence') {
  impl.parseSkillResponse = (reply) => {
    const parsed = parseSkillResponse(reply);
    // BUG: takes the rest of the [CMD] line, which for a fenced command is the fence
    if (parsed.type === 'CMD' && /^\s*\[CMD\]\s*```/i.test(reply)) parsed.command = '';
    return parsed;
  };
} else if (bug === 'partial') {
  impl.readEvents = (events) => {
    const read = readEvents(events);
    // BUG: "something arrived, so show it" — an error after deltas is taken as success
    return { ...read, succeeded: read.succeeded || read.reply !== '' };
  };
} else if (bug === 'sanitize') {
  impl.relayMessage = (client, input, pub) => {
    const delta = pub.delta.bind(pub);
    const allowed = /^<\/?(think|serp|thinking|phase|title|final|serp_queries)\b/;
    // BUG: "cleans" the model's text of tags it does not know (<br>) before relaying
    pub.delta = (text) => delta(text.replace(/<\/?[A-Za-z][^<>]*>/g, (t) => (allowed.test(t) ? t : '')));
    return relayMessage(client, input, pub);
  };
}
await main(impl);
