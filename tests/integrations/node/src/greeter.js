// The code under test: a terse greeter on any OpenAI-compatible endpoint.
import OpenAI from 'openai';

const system = { role: 'system', content: 'You are terse.' };

export function client({ baseURL, apiKey = process.env.OPENAI_API_KEY, headers = {} }) {
  return new OpenAI({ baseURL, apiKey, defaultHeaders: headers, maxRetries: 2 });
}

// Greets, then streams a count to three: the two turns of one conversation.
export async function greetAndCount(openai) {
  const messages = [system, { role: 'user', content: 'Say hello.' }];
  const hello = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages });
  const greeting = hello.choices[0].message.content;
  const stream = await openai.chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [...messages, { role: 'assistant', content: greeting }, { role: 'user', content: 'Count to three.' }],
    stream: true,
  });
  let count = '';
  for await (const chunk of stream) count += chunk.choices[0]?.delta?.content ?? '';
  return { greeting, count };
}
