// Renders the summary of llmconform's compatibility page (compatibility.html,
// its <header>) in headless Chromium (Debian's, through playwright-core) and
// saves it as a PNG; used by scripts/gen-compatibility.
//
//   node page-screenshot.mjs CHROMIUM PAGE.html OUT.png
//
// Exit 0 written, 1 the page did not load or logged an error, 2 usage.
import { chromium } from 'playwright-core';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import { launchChromium } from './chromium-launch.mjs';

const [executable, file, png] = process.argv.slice(2);
if (!executable || !file || !png) {
  console.error('usage: node page-screenshot.mjs CHROMIUM PAGE.html OUT.png');
  process.exit(2);
}
const context = await launchChromium(chromium, executable, { width: 2100, height: 900 });
const problems = [];
try {
  const page = await context.newPage();
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  const response = await page.goto(pathToFileURL(path.resolve(file)).href, { waitUntil: 'load' });
  if (!response || !response.ok()) problems.push('the page did not load');
  else {
    // A matrix wider than the window scrolls in its box and would be cut at
    // its right edge: let the summary take its whole width, and the window too.
    await page.addStyleTag({
      content: 'header.run { width: max-content; max-width: none; } ' +
        'header.run * { overflow: visible !important; }',
    });
    const width = await page.evaluate(() => document.querySelector('header.run').scrollWidth);
    if (width + 64 > 2100) await page.setViewportSize({ width: width + 64, height: 900 });
    await page.locator('header.run').screenshot({ path: png, timeout: 120000 });
  }
} finally {
  await context.closeAndClean();
}
if (problems.length) {
  for (const p of problems) console.error(`${file}: ${p}`);
  process.exit(1);
}
console.log(`wrote ${png}`);
