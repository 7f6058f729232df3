/**
 * Logs sized for attack (issue 22 item 4): during a node outage every request answers 503, and a
 * flood of them must not write a line (with a stack) per request. Lines are counted, not timed:
 * a burst of N node-down 503s writes as many lines as the first few of them did.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { BitcoinNode } from '../../src/node/bitcoinNode.js';
import { ScanAddressSource } from '../../src/node/scanAddressSource.js';
import { LogSampler } from '../../src/util/logSampler.js';
import { freePort } from '../helpers/loopback.js';

interface LogLine {
  level: number;
  msg: string;
  code?: string;
  err?: { stack?: string };
  notLogged?: number;
  failedPollsNotLogged?: number;
}

const BURST = 200;
const WARN = 40;

let app: App;
let dataDir: string;
const lines: LogLine[] = [];

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'log-volume-'));
  // Nothing listens on this port: the node is down for the whole test.
  const node = new BitcoinNode({ url: `http://u:p@127.0.0.1:${await freePort()}`, timeoutMs: 500, scanTimeoutMs: 500 });
  const config = loadConfig({ DATA_DIR: dataDir, PAYMENTS_ENABLED: 'false', OPTIMIZER_ENABLED: 'false', RATE_LIMIT_MAX: '0' });
  app = await buildApp({
    config,
    node,
    addressSource: new ScanAddressSource(node),
    nodeKind: 'real',
    autoStart: false,
    // The default level of a deployment.
    logger: { level: 'info', stream: { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) } },
  });
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** One request to each route that answers 503 while the node is down. */
async function oneOfEach(): Promise<void> {
  for (const url of ['/v1/block-height', '/v1/mempool/stats', '/v1/fee-estimate']) {
    const res = await app.inject({ method: 'GET', url });
    expect(res.statusCode, url).toBe(503);
  }
  const rpc = await app.inject({ method: 'POST', url: '/v1/rpc', payload: { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] } });
  expect(rpc.statusCode).toBeLessThan(600);
}

describe('logs during a node outage', () => {
  it('error: a burst of node-down 503s writes O(1) log lines, none with a stack', async () => {
    await oneOfEach();
    const afterFirst = lines.length;
    expect(afterFirst).toBeLessThanOrEqual(6);
    for (let i = 0; i < BURST; i++) await oneOfEach();
    expect(lines.length, lines.map((l) => `${l.msg} ${l.code ?? ''}`).join('\n')).toBe(afterFirst);
    expect(lines.filter((l) => l.err?.stack !== undefined)).toEqual([]);
    // The outage is still visible: the first 503 of each kind is logged, with its code.
    expect(lines.some((l) => l.level === WARN && l.code === 'NODE_UNAVAILABLE')).toBe(true);
  });

  it('error: mempool polls failing every interval are logged once, not once per poll', async () => {
    const before = lines.length;
    for (let i = 0; i < 50; i++) await expect(app.mempool.mirror.poll()).rejects.toThrow();
    const polls = lines.slice(before).filter((l) => l.msg === 'mempool poll failed');
    expect(polls).toHaveLength(1);
  });
});

describe('LogSampler', () => {
  it('behavior: the first occurrence is logged, repeats within the interval are counted, the next line says how many', () => {
    let t = 0;
    const sampler = new LogSampler({ intervalMs: 1000, now: () => t });
    expect(sampler.take('a')).toEqual({ suppressed: 0 });
    for (let i = 0; i < 99; i++) expect(sampler.take('a')).toBeUndefined();
    // Another kind of failure is its own line.
    expect(sampler.take('b')).toEqual({ suppressed: 0 });
    t = 1000;
    expect(sampler.take('a')).toEqual({ suppressed: 99 });
    expect(sampler.take('a')).toBeUndefined();
    // The failure ends: its next occurrence (a new outage) is logged at once.
    expect(sampler.clear('a')).toBe(1);
    expect(sampler.clear('a')).toBeUndefined();
    expect(sampler.take('a')).toEqual({ suppressed: 0 });
  });

  it('behavior: keys are bounded (the least recently seen forgotten)', () => {
    const sampler = new LogSampler({ maxKeys: 2, now: () => 0 });
    sampler.take('a');
    sampler.take('b');
    sampler.take('c');
    expect(sampler.take('a')).toEqual({ suppressed: 0 });
    expect(sampler.take('c')).toBeUndefined();
  });
});
