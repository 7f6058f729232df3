/**
 * The dashboard while its node is unreachable (issue 21: "free routes such as the dashboard may show
 * the last known values, labelled"): the feed keeps the last known numbers and pushes, within
 * seconds and without any mempool change, a snapshot that says the node is down and since when the
 * values are known; the page shows "last known at … — node unreachable" over them; both clear when
 * the node answers again. In chromium when it is installed (`REQUIRE_BROWSER=1` makes it required).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { buildApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { BitcoinNode } from '../../src/node/bitcoinNode.js';
import { EsploraAddressSource } from '../../src/node/esploraAddressSource.js';
import { startSimnet, type SimnetHandle } from '../../src/simnet/index.js';
import { openFeed, type FeedReader } from '../helpers/feed.js';
import { CORE_V31_POLICY_MODULE } from '../helpers/policyModule.js';
import { switchableProxy, type SwitchableProxy } from '../helpers/switchableProxy.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const browserPresent = existsSync(CHROMIUM);
if (!browserPresent && process.env.REQUIRE_BROWSER === '1') throw new Error(`REQUIRE_BROWSER=1 but no chromium at ${CHROMIUM}`);

let sim: SimnetHandle;
let proxy: SwitchableProxy;
let app: App;
let base: string;
let dir: string;

beforeAll(async () => {
  sim = await startSimnet({ seed: 4, blockIntervalSec: 0, txPerSec: 0, initialTxs: 40, policyModule: CORE_V31_POLICY_MODULE });
  proxy = await switchableProxy(sim.rpcUrl);
  dir = mkdtempSync(join(tmpdir(), 'dashboard-down-'));
  const config = loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent', RATE_LIMIT_MAX: '0', PAYMENTS_ENABLED: 'false', NODE_CHECK_INTERVAL_MS: '250' });
  const node = new BitcoinNode({ url: proxy.url, timeoutMs: config.BITCOIN_RPC_TIMEOUT_MS, scanTimeoutMs: config.BITCOIN_RPC_TIMEOUT_MS });
  app = await buildApp({ config, node, addressSource: new EsploraAddressSource(sim.esploraUrl, 1000), nodeKind: 'real', autoStart: false });
  await app.ready();
  await app.mempool.mirror.poll();
  base = await app.listen({ port: 0, host: '127.0.0.1' });
});

afterAll(async () => {
  await app?.close();
  await proxy?.close();
  await sim?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Snapshots from `feed` until one matches, or throws after `ms`. */
async function nextWhere(feed: FeedReader, ms: number, ok: (s: Awaited<ReturnType<FeedReader['next']>>) => boolean) {
  const until = Date.now() + ms;
  for (;;) {
    const left = until - Date.now();
    if (left <= 0) throw new Error(`no matching snapshot within ${ms} ms`);
    const snapshot = await Promise.race([feed.next(), new Promise<null>((r) => setTimeout(() => r(null), left))]);
    if (snapshot && ok(snapshot)) return snapshot;
  }
}

describe('dashboard feed while the node is unreachable', () => {
  it('behavior: last known values stay, labelled down with the time they were last known; cleared when the node is back', async () => {
    const feed = await openFeed(base);
    try {
      const up = await feed.next();
      expect(up.node.down).toBe(false);
      expect(up.node.downReason).toBeNull();
      expect(up.mempool.count).toBe(40);
      const knownAt = app.mempool.mirror.matchedNodeAt;
      expect(up.node.lastKnownAt).toBe(knownAt);

      proxy.down();
      // Pushed by itself: no mempool change or optimizer cycle happens while the node is away.
      const down = await nextWhere(feed, 5000, (s) => s.node.down);
      expect(down.node.downReason).toEqual(expect.any(String));
      expect(down.node.lastKnownAt).toBe(knownAt);
      expect(down.mempool).toEqual(up.mempool);
      expect(down.node.height).toBe(up.node.height);
      // The dashboard itself stays up (free, nothing sold from these values).
      expect((await app.inject({ method: 'GET', url: '/dashboard' })).statusCode).toBe(200);

      proxy.up();
      const back = await nextWhere(feed, 5000, (s) => !s.node.down);
      expect(back.node.downReason).toBeNull();
    } finally {
      feed.close();
      proxy.up();
    }
  }, 20_000);
});

describe.runIf(browserPresent)('dashboard page in chromium while the node is unreachable', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
  }, 60_000);
  afterAll(async () => browser?.close());

  it('behavior: "last known at … — node unreachable" shown over the last known numbers, hidden again once the node answers', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    try {
      await page.goto(`${base}/dashboard`);
      const count = page.locator('[data-field="mempoolCount"]');
      await page.locator('[data-field="feedStatus"]', { hasText: 'live' }).waitFor({ timeout: 10_000 });
      await count.filter({ hasText: '40' }).waitFor({ timeout: 10_000 });
      const label = page.locator('[data-field="nodeDown"]');
      expect(await label.isVisible()).toBe(false);
      const knownAt = app.mempool.mirror.matchedNodeAt ?? 0;

      proxy.down();
      await label.waitFor({ state: 'visible', timeout: 5000 });
      const text = (await label.textContent()) ?? '';
      const shownTime = await page.evaluate((at) => new Date(at).toLocaleTimeString(), knownAt);
      expect(text).toContain(`Last known at ${shownTime} — node unreachable`);
      expect(await count.textContent()).toBe('40');
      mkdirSync('.cache', { recursive: true });
      await page.screenshot({ path: '.cache/dashboard-node-down.png' });

      proxy.up();
      await label.waitFor({ state: 'hidden', timeout: 5000 });
    } finally {
      proxy.up();
      await page.close();
    }
  }, 40_000);
});
