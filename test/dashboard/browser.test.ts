/**
 * The dashboard in a real headless browser (Debian's chromium driven by playwright-core): the page
 * loads from the running service, follows its live feed, and its charts and numbers show what
 * `/v1/template/cache-stats` says; a new cycle appears without a reload; at phone width (390 px)
 * nothing scrolls sideways. Writes desktop and phone screenshots to `.cache/`.
 *
 * The README's picture (`docs/dashboard.png`, `docs/dashboard-phone.png`) is taken from a running,
 * warmed-up service: `SCREENSHOT_FROM=http://127.0.0.1:8402 UPDATE_SCREENSHOT=1 npx vitest run
 * test/dashboard/browser.test.ts` refuses to write it before the service's first full cycle, or
 * while its optimized template earns less than the baseline.
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
  gain: number[][];
  phases: Array<Array<number | null>>;
}

const PHONE = { width: 390, height: 844 };

/** The page's width against the viewport's (no sideways scrolling when equal). */
const widths = (p: Page): Promise<{ scroll: number; inner: number }> =>
  p.evaluate('({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth })');

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
  }, 240_000); // 10,000 signed arrivals, each signature verified by the node

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
    const gain = t.optimized.feeSat - t.baseline.feeSat;
    expect(await text('gainSat')).toBe(`${gain >= 0 ? '+' : ''}${fmt(gain)} sat`);
    expect(await text('gapPct')).toBe(`${Math.round(((t.upperBound.feeSat - t.optimized.feeSat) / t.upperBound.feeSat) * 1e8) / 1e6} %`);
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
    // The comparison as its own series: gain over the baseline and gap to the bound, in sat and in %.
    expect(charts.gain[0]?.at(-1)).toBe(cycle);
    expect(charts.gain[1]?.at(-1)).toBe(gain);
    expect(charts.gain[2]?.at(-1)).toBeCloseTo(t.upperBound.feeSat - t.optimized.feeSat, 1);
    expect(charts.gain[3]?.at(-1)).toBeCloseTo((gain / t.baseline.feeSat) * 100, 4);
    // Phase timings: the full cycles of cache-stats' history at their cycle numbers, same values.
    const history = stats.history as Array<{ cycle: number; phasesMs: { optimize: number } }>;
    for (const h of history) {
      const at = charts.phases[0]?.indexOf(h.cycle) ?? -1;
      expect(at, `cycle ${h.cycle}`).toBeGreaterThanOrEqual(0);
      expect(charts.phases[4]?.[at]).toBe(h.phasesMs.optimize);
      expect(charts.phases[1]?.[at]).toBeGreaterThan(0); // native time of that cycle
    }
    // Legends show the latest values without hovering; axes say their units.
    const legends = await page.locator('#gain .u-legend').textContent();
    expect(legends).toMatch(/gain.*-?[\d,]+ sat/);
    expect(legends).not.toContain('--');
    // uPlot draws axis titles on the canvas: read them from the charts.
    const labels: string = await page.evaluate(`Object.values(window.dashboard.charts).flatMap((c) => c.axes.map((a) => a.label ?? '')).join(' | ')`);
    for (const unit of ['(sat/vB)', '(vB)', '(ms)', '(sat)', '%']) expect(labels, unit).toContain(unit);
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
  });

  it('behavior: at phone width (390 px) the dashboard and the overview fit the screen: no sideways scrolling', async () => {
    const phone = await browser.newPage({ viewport: PHONE });
    try {
      await phone.goto(`${base}/dashboard`);
      await phone.locator(`[data-field="optimizedFeeSat"][data-cycle="${world.app.optimizer.service.cycleCount}"]`).waitFor({ timeout: 20_000 });
      const dash = await widths(phone);
      expect(dash.inner).toBe(PHONE.width);
      expect(dash.scroll, 'dashboard at 390 px').toBeLessThanOrEqual(dash.inner);
      // Each chart is as wide as its card, inside the screen.
      const chartWidths: number[] = await phone.evaluate(`[...document.querySelectorAll('.chart canvas')].map((c) => c.getBoundingClientRect().right)`);
      for (const right of chartWidths) expect(right).toBeLessThanOrEqual(PHONE.width);
      await phone.screenshot({ path: '.cache/dashboard-phone.png', fullPage: true });
      await phone.goto(`${base}/`);
      const overview = await widths(phone);
      expect(overview.scroll, 'overview at 390 px').toBeLessThanOrEqual(overview.inner);
    } finally {
      await phone.close();
    }
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

/** The README's pictures, from a running service (SCREENSHOT_FROM) that has completed a full cycle. */
describe.runIf(present && process.env.UPDATE_SCREENSHOT === '1' && process.env.SCREENSHOT_FROM)('README screenshots', () => {
  it('default: written only from a warmed-up service (a full cycle done, optimized ≥ baseline)', async () => {
    const base = (process.env.SCREENSHOT_FROM ?? '').replace(/\/+$/, '');
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
    try {
      for (const [file, viewport] of [
        ['docs/dashboard.png', { width: 1280, height: 1100 }],
        ['docs/dashboard-phone.png', PHONE],
      ] as const) {
        const page = await browser.newPage({ viewport });
        await page.goto(`${base}/dashboard`);
        await page.waitForFunction(() => (globalThis as unknown as { dashboard: { snapshot: unknown } }).dashboard.snapshot !== null, undefined, {
          timeout: 20_000,
        });
        const state = await page.evaluate(() => {
          const s = (
            globalThis as unknown as {
              dashboard: { snapshot: { cycles: Array<{ kind: string }>; optimizer: { latest: { optimizedFeeSat: number; baselineFeeSat: number } | null } } };
            }
          ).dashboard.snapshot;
          return { fullCycles: s.cycles.filter((c) => c.kind === 'full').length, latest: s.optimizer.latest };
        });
        // A picture taken during warm-up would show what the service does not do once running.
        expect(state.fullCycles, 'no full cycle yet: wait for the first one (OPTIMIZER_INTERVAL_SEC)').toBeGreaterThanOrEqual(1);
        expect(state.latest).not.toBeNull();
        expect(state.latest?.optimizedFeeSat ?? 0).toBeGreaterThanOrEqual(state.latest?.baselineFeeSat ?? 0);
        const { scroll, inner } = await widths(page);
        expect(scroll).toBeLessThanOrEqual(inner);
        await page.screenshot({ path: file, fullPage: true });
        await page.close();
      }
    } finally {
      await browser.close();
    }
  }, 60_000);
});
