// Opens llmconform's HTML pages in headless Chromium (Debian's, through
// playwright-core): each page must load with no console error, no page error
// and no request leaving the file; its summary numbers must equal the JSON
// reports'; a screenshot of each page's first screen is saved for a person
// to look at.
//
//   node report_browser.mjs CHROMIUM SHOTS_DIR REPORT_DIR...
//
// Each REPORT_DIR holds report.json and report.html, and may hold
// matrix.html with matrix.json. Exit 0 when every check holds, 1 otherwise
// (each mismatch printed), 2 on a usage error.
import { chromium } from 'playwright-core';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import { launchChromium } from '../../scripts/chromium-launch.mjs';

const [executable, shots, ...dirs] = process.argv.slice(2);
if (!executable || !shots || dirs.length === 0) {
  console.error('usage: node report_browser.mjs CHROMIUM SHOTS_DIR REPORT_DIR...');
  process.exit(2);
}
fs.mkdirSync(shots, { recursive: true });

const problems = [];
// JSON with object keys sorted, so that equal values print equal.
const canonical = (v) => JSON.stringify(v, (k, x) => (x && typeof x === 'object' && !Array.isArray(x)
  ? Object.fromEntries(Object.keys(x).sort().map((key) => [key, x[key]])) : x));
const expectEqual = (what, actual, expected) => {
  const a = canonical(actual), e = canonical(expected);
  if (a !== e) problems.push(`${what}: page shows ${a}, JSON says ${e}`);
};

const context = await launchChromium(chromium, executable, { width: 1280, height: 900 });

// Loads `file`, records its errors, saves a screenshot as `shot`; returns the page.
async function open(file, shot) {
  const page = await context.newPage();
  const url = pathToFileURL(file).href;
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`${file}: console error: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`${file}: page error: ${e.message}`));
  page.on('request', (r) => { if (r.url() !== url) problems.push(`${file}: requested ${r.url()}`); });
  const response = await page.goto(url, { waitUntil: 'load' });
  if (!response || !response.ok()) problems.push(`${file}: did not load`);
  // The first screen (verdict, totals, summary table): a full page of a
  // large run is tens of thousands of pixels high.
  await page.screenshot({ path: path.join(shots, shot), timeout: 120000 });
  return page;
}

// The totals cards: {scenarios: {total, pass, fail, skip, error}, checks: {…}}.
const cards = (page) => page.$$eval('.card', (els) => Object.fromEntries(els.map((el) => {
  const counts = { total: Number(el.querySelector('.num').textContent) };
  for (const o of ['pass', 'fail', 'skip', 'error'])
    counts[o] = Number(el.querySelector(`.${o}-c b`).textContent);
  return [el.querySelector('.what').textContent, counts];
})));

for (const [i, dir] of dirs.entries()) {
  const report = JSON.parse(fs.readFileSync(path.join(dir, 'report.json'), 'utf8'));
  const page = await open(path.join(dir, 'report.html'), `report-${i + 1}.png`);
  const shown = await cards(page);
  expectEqual(`${dir} report.html scenarios`, shown.scenarios, report.totals.scenarios);
  expectEqual(`${dir} report.html checks`, shown.checks, report.totals.checks);
  // The summary table's total row: scenarios then checks, total pass fail skip error.
  const totalRow = await page.$$eval('table.summary tr.total td.n', (tds) => tds.map((td) => Number(td.textContent)));
  const t = report.totals;
  expectEqual(`${dir} report.html total row`, totalRow,
    [t.scenarios.total, t.scenarios.pass, t.scenarios.fail, t.scenarios.skip, t.scenarios.error,
     t.checks.total, t.checks.pass, t.checks.fail, t.checks.skip, t.checks.error]);
  const articles = await page.$$eval('article.scenario', (els) => els.length);
  expectEqual(`${dir} report.html scenario blocks`, articles, report.scenarios.length);
  await page.close();

  const matrixHtml = path.join(dir, 'matrix.html');
  if (fs.existsSync(matrixHtml)) {
    const matrix = JSON.parse(fs.readFileSync(path.join(dir, 'matrix.json'), 'utf8'));
    const mpage = await open(matrixHtml, `matrix-${i + 1}.png`);
    const mcards = await cards(mpage);
    expectEqual(`${dir} matrix.html scenarios`, mcards.scenarios, report.totals.scenarios);
    expectEqual(`${dir} matrix.html checks`, mcards.checks, report.totals.checks);
    const cells = await mpage.$$eval('td.cell', (tds) => tds.map((td) =>
      [td.dataset.provider, td.dataset.feature, td.textContent]));
    const expected = [];
    for (const p of matrix.providers)
      for (const f of matrix.features) expected.push([p, f, matrix.cells[p][f] ? matrix.cells[p][f].label : '—']);
    expectEqual(`${dir} matrix.html cells`, cells, expected);
    await mpage.close();
  }
}
await context.closeAndClean();

if (problems.length) {
  for (const p of problems) console.error(p);
  process.exit(1);
}
console.log(`ok: ${dirs.length} report folder(s); screenshots in ${shots}`);
