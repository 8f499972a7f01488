// Deliberately broken clients for `run --client-cmd` tests: the example client
// (copied beside this file by the test) with one realistic bug.
//   node broken_client.mjs trim   multiturn keeps the OLDEST history over budget
//   node broken_client.mjs time   action rewrites "10:30" in the text as "10.30"
import { main, buildLLMMessages, parseReply, estimateMessageTokens } from './openai_client.mjs';

const bug = process.argv[2];
const impl = { buildLLMMessages, parseReply };
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
}
await main(impl);
