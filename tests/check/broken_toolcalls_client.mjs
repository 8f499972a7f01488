// Deliberately broken toolcalls clients for `run --client-cmd` tests: the
// test client (toolcalls_client.mjs) with one realistic bug.
//   node broken_toolcalls_client.mjs pkgwrite   writes files itself, @pkg included
//                                               (no read-only mount)
//   node broken_toolcalls_client.mjs noaudit    audits successful tool calls only
//   node broken_toolcalls_client.mjs phase      a reply without tool calls completes
//                                               the run, finished workflow or not
//   node broken_toolcalls_client.mjs reasoning  drops reasoning_content from the
//                                               assistant message it sends back
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import { echo, main, runTool } from './toolcalls_client.mjs';

const bug = process.argv[2];
const impl = {};
if (bug === 'pkgwrite') {
  impl.runTool = async (run, call) => {
    if (!['fs_write', 'fs.write'].includes(call.function.name)) return runTool(run, call);
    // BUG: a "fast path" for writes that maps the mount itself, read-only or not
    const { path, content } = JSON.parse(call.function.arguments);
    const [mount, ...rest] = path.split('/');
    const file = join(run.dirs[mount], ...rest);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content);
    const result = { ok: true, path, bytesWritten: Buffer.byteLength(content),
                     sha256After: createHash('sha256').update(content).digest('hex') };
    return { result, content: JSON.stringify(result) };
  };
} else if (bug === 'noaudit') {
  impl.runTool = async (run, call) => {
    const out = await runTool(run, call);
    if (!out.result.ok) {  // BUG: the audit line is written on the success path only
      const log = join(run.dirs['@state'], 'logs', 'execution.jsonl');
      const lines = readFileSync(log, 'utf8').split('\n').filter(Boolean);
      writeFileSync(log, lines.slice(0, -1).map((l) => l + '\n').join(''));
    }
    return out;
  };
} else if (bug === 'phase') {
  impl.isComplete = () => true;  // BUG: "no more tool calls" taken as "the workflow is done"
} else if (bug === 'reasoning') {
  impl.echo = (m) => {
    const { reasoning_content, ...rest } = echo(m);  // BUG: "not part of the answer"
    return rest;
  };
} else {
  console.error(`unknown bug: ${bug}`);
  process.exit(2);
}
await main(impl);
