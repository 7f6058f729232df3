/**
 * The dashboard in a real headless browser (Debian's chromium driven by playwright-core): the page
 * loads from the running service, follows its live feed, and its charts and numbers show what
 * `/v1/template/cache-stats` says; a new cycle appears without a reload. Writes a screenshot to
 * `.cache/dashboard.png` (and to `docs/dashboard.png`, the README's picture, with UPDATE_SCREENSHOT=1).
 *
 * Needs chromium (`CHROMIUM_PATH`, else /usr/bin/chromium); `.ci/run` installs it and sets
 * REQUIRE_BROWSER=1, so in CI a missing browser fails instead of skipping.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { refresh, startTestWorld, type TestWorld } from '../helpers/testWorld.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const present = existsSync(CHROMIUM);
if (!present && process.env.REQUIRE_BROWSER === '1') throw new Error(`REQUIRE_BROWSER=1 but no chromium at ${CHROMIUM} (apt-get install chromium)`);
if (!present) console.warn(`dashboard browser test skipped: no chromium at ${CHROMIUM} (set CHROMIUM_PATH or apt-get install chromium)`);

interface ChartData {
  histogram: number[][];
  projected: number[][];
  cycles: number[][];
  phases: Array<Array<number | null>>;
}

describe.runIf(present)('dashboard in chromium', () => {
  let world: TestWorld;
  let browser: Browser;
  let page: Page;
  let base: string;

  beforeAll(async () => {
    world = await startTestWorld({ initialTxs: 10000, seed: 5 });
    await refresh(world);
    for (let k = 0; k < 3; k++) {
      await world.simnet.control.replaceTransaction();
      await refresh(world);
    }
    await world.simnet.control.mineBlocks(1);
    await refresh(world);
    base = await world.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
    page = await browser.newPage({ viewport: { width: 1280, height: 1100 } });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await world?.close();
  });

  /** What each uPlot chart draws (its data arrays), read in the page. */
  const chartData = async (): Promise<ChartData> => {
    const data: unknown = await page.evaluate(() => {
      const charts = (globalThis as unknown as { dashboard: { charts: Record<string, { data: number[][] }> } }).dashboard.charts;
      return Object.fromEntries(Object.entries(charts).map(([k, c]) => [k, c.data.map((s) => Array.from(s))]));
    });
    return data as ChartData;
  };
  const text = async (field: string) => (await page.locator(`[data-field="${field}"]`).textContent()) ?? '';
  const fmt = (n: number) => n.toLocaleString('en-US');

  it('default: the page shows live numbers and charts equal to /v1/template/cache-stats', async () => {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    await page.goto(`${base}/dashboard`);
    const cycle = world.app.optimizer.service.cycleCount;
    await page.locator(`[data-field="optimizedFeeSat"][data-cycle="${cycle}"]`).waitFor({ timeout: 20_000 });
    expect(await text('feedStatus')).toBe('live');

    const stats = (await world.app.inject({ method: 'GET', url: '/v1/template/cache-stats' })).json();
    expect(stats.cache.cycle).toBe(cycle);
    const t = stats.cache.templates;
    expect(await text('optimizedFeeSat')).toBe(fmt(t.optimized.feeSat));
    expect(await text('baselineFeeSat')).toBe(fmt(t.baseline.feeSat));
    expect(await text('upperBoundFeeSat')).toBe(fmt(t.upperBound.feeSat));
    expect(await text('mempoolCount')).toBe(fmt(world.app.mempool.mirror.txs.size));

    const charts = await chartData();
    // Projected blocks: one bar per block at its median rate, as cache-stats lists them.
    const blocks = stats.cache.projectedBlocks as Array<{ block: number; medianFeeRateSatVb: number }>;
    expect(charts.projected[0]).toEqual(blocks.map((b) => b.block));
    expect(charts.projected[1]).toEqual(blocks.map((b) => b.medianFeeRateSatVb));
    // Optimized / baseline / bound of the last cycle are the last points of their lines.
    expect(charts.cycles[0]?.at(-1)).toBe(cycle);
    expect(charts.cycles[1]?.at(-1)).toBe(t.optimized.feeSat);
    expect(charts.cycles[2]?.at(-1)).toBe(t.baseline.feeSat);
    expect(charts.cycles[3]?.at(-1)).toBe(t.upperBound.feeSat);
    // Phase timings: one point per cycle of cache-stats' history, same values.
    const history = [...stats.history].sort((a: { cycle: number }, b: { cycle: number }) => a.cycle - b.cycle) as Array<{
      cycle: number;
      phasesMs: { optimize: number };
    }>;
    expect(charts.phases[0]).toEqual(history.map((h) => h.cycle));
    expect(charts.phases[3]).toEqual(history.map((h) => h.phasesMs.optimize));
    // The histogram holds the whole mempool's vsize.
    const histogramVsize = (charts.histogram[1] ?? []).reduce((s, v) => s + v, 0);
    expect(histogramVsize).toBeGreaterThan(0);
    const stat = (await world.app.inject({ method: 'GET', url: '/v1/mempool/stats' })).json();
    expect(histogramVsize).toBe(stat.vsize);
    expect(await page.locator('[data-table="replacements"] tr').count()).toBe(3);
    expect(await page.locator('[data-table="blocks"] tr').count()).toBe(1);
    expect(errors, errors.join('; ')).toEqual([]);

    mkdirSync('.cache', { recursive: true });
    await page.screenshot({ path: '.cache/dashboard.png', fullPage: true });
    if (process.env.UPDATE_SCREENSHOT === '1') await page.screenshot({ path: 'docs/dashboard.png', fullPage: true });
  });

  it('behavior: a new optimizer cycle reaches the open page without a reload', async () => {
    const before = world.app.optimizer.service.cycleCount;
    await world.simnet.control.replaceTransaction();
    await refresh(world);
    await page.locator(`[data-field="optimizedFeeSat"][data-cycle="${before + 1}"]`).waitFor({ timeout: 20_000 });
    const charts = await chartData();
    expect(charts.cycles[0]?.at(-1)).toBe(before + 1);
    expect(await page.locator('[data-table="replacements"] tr').count()).toBe(4);
  });
});
