// perfcollect's LTTng traces (.trace.zip, CTF 1.8) in the tab: ../shared/traces/lttng/clr-only.trace.zip
// holds three processes, two of them with GCs. Expected values come from the shared README's
// independent reading of every packet (cross-checked with babeltrace): dotnet 5767 with 8 GCs and
// dotnet 5747 with 3. The page shows the one with the most GC pause, lists both in the picker,
// switches, and every tab opens on it without an error.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { SHARED, serveDist, launch, openApp } from './harness.mjs';

const TRACE = path.join(SHARED, 'traces/lttng/clr-only.trace.zip');
const noShared = !existsSync(TRACE) && 'no ../shared here (the LTTng reference traces)';
// From ../shared/traces/lttng/README.md.
const GCS = new Map([[5767, 8], [5747, 3]]);

let server, browser;
before(async () => { server = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const num = (s) => Number(String(s).replace(/[^0-9.\-]/g, ''));

async function shownPid(page) {
  return Number((await page.locator('#fact-process').textContent()).match(/pid (\d+)/)[1]);
}

test('a perfcollect .trace.zip: both processes with their GC counts, and every tab on each', { skip: noShared }, async () => {
  const { page, context, problems } = await openApp(browser, server.base, '?tab=overview');
  await page.setInputFiles('#file-input', TRACE);
  await page.locator('#report').waitFor({ timeout: 60_000 });

  // The picker lists the two processes with GCs, with the README's counts.
  await page.click('#processes summary');
  const trs = page.locator('#process-table tbody tr');
  const listed = new Map();
  for (let i = 0, n = await trs.count(); i < n; i++) {
    const tr = trs.nth(i);
    listed.set(Number(await tr.getAttribute('data-pid')), num(await tr.locator('.proc-gcs').textContent()));
  }
  assert.deepEqual([...listed].sort(), [...GCS].sort());

  const first = await shownPid(page);
  const second = [...GCS.keys()].find((p) => p !== first);
  for (const pid of [first, second]) {
    if (pid !== first) {
      await page.click(`#process-table button[data-pid="${pid}"]`);
      await page.locator(`#process-table tr.current[data-pid="${pid}"]`).waitFor({ timeout: 60_000 });
      await page.locator('#report').waitFor({ timeout: 60_000 });
    }
    assert.equal(await shownPid(page), pid);
    assert.equal(num(await page.locator('#fact-gcs').textContent()), GCS.get(pid), `pid ${pid}: GCs`);
    assert.match(await page.locator('#fact-process').textContent(), /^dotnet · pid/);
    // Every tab the trace offers opens, and says something.
    const tabs = await page.locator('[id^="tab-"]').evaluateAll((els) => els.map((e) => e.id));
    assert.ok(tabs.length >= 10, `tabs: ${tabs}`);
    for (const id of tabs) {
      await page.click(`#${id}`);
      const body = page.locator('.tab-body');
      await body.waitFor();
      assert.ok((await body.textContent()).trim().length > 0, `pid ${pid}: ${id} is empty`);
    }
    await page.click('#tab-gcs');
    assert.equal(num((await page.locator('#row-count').textContent()).match(/of ([\d,]+)/)[1]), GCS.get(pid), `pid ${pid}: GC table`);
    await page.click('#tab-overview');
  }
  assert.deepEqual(problems, []);
  await context.close();
});
