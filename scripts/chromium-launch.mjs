// Headless Chromium as llmconform's page checks and screenshots start it:
// Debian's binary through playwright-core (passed in as `chromium`, so this
// file needs no node_modules of its own), a fresh profile folder that
// `close()` removes, no network beside the page.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export async function launchChromium(chromium, executable, viewport) {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'llmconform-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: executable,
    headless: true,
    viewport,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    timeout: 60000,
  });
  context.closeAndClean = async () => {
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  };
  return context;
}
