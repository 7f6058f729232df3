/**
 * The `btc-template` command line, run in-process through runCli (and once through the bin
 * script when the compiled CLI exists).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';

import { runCli } from '../../src/cli/template.js';

const tmp = mkdtempSync(join(tmpdir(), 'cli-test-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A small Core-format mempool: parent + rich child, and a few singletons. */
function coreFile(name: string, gzip: boolean): string {
  const id = (k: number) => k.toString(16).padStart(2, '0').repeat(32);
  const mempool: Record<string, unknown> = {
    [id(1)]: { vsize: 200, weight: 800, fees: { base: 0.000002, modified: 0.000002 }, depends: [] },
    [id(2)]: { vsize: 150, weight: 600, fees: { base: 0.0003, modified: 0.0003 }, depends: [id(1)] },
    [id(3)]: { vsize: 100, weight: 400, fees: { base: 0.00001, modified: 0.00001 }, depends: [] },
    [id(4)]: { vsize: 100, weight: 400, fees: { base: 0.00000050, modified: 0.00000050 }, depends: [] },
  };
  const path = join(tmp, name);
  const text = JSON.stringify(mempool);
  writeFileSync(path, gzip ? gzipSync(text) : text);
  return path;
}

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '', err = '';
  const code = await runCli(args, { stdout: (t) => (out += t), stderr: (t) => (err += t) });
  return { code, out, err };
}

describe('cli', () => {
  it('default: prints the JSON report with all three templates, the bound and the gaps', async () => {
    const { code, out, err } = await run(['template', coreFile('m.json', false)]);
    expect(err).toBe('');
    expect(code).toBe(0);
    const report = JSON.parse(out);
    expect(report.format).toBe('core');
    expect(report.txCount).toBe(4);
    for (const t of ['optimized', 'baselineV31', 'baselineV30']) {
      expect(Object.keys(report.templates[t])).toEqual(['txCount', 'feeSat', 'weightWu', 'sigopCost', 'gapToBoundSat', 'gapToBoundPct']);
      expect(report.templates[t].gapToBoundSat).toBe(report.upperBound.feeSat - report.templates[t].feeSat);
    }
    // Core's own limits by default: like for like, the 0.5 sat/vB tx is in both.
    expect(report.request).toMatchObject({ limits: 'core', maxTxCount: 4, minFeeRateSatVb: 0.001 });
    expect(report.templates.optimized.txCount).toBe(4);
    expect(report.templates.baselineV31.txCount).toBe(4);
    expect(report.optimizedVsV31.v31WithinRequestLimits).toBe(true);
    expect(report.optimizedVsV31.feeSat).toBeGreaterThanOrEqual(0);
    expect(report.projectedBlocks).toHaveLength(8);
    expect(Object.keys(report.timingsMs)).toEqual(expect.arrayContaining(['read', 'parse', 'native_linearize', 'native_total', 'total']));
    expect(report.clusters).toMatchObject({ count: 3, largest: 2 });
  });

  it('args: --limits service applies the cache request (1 sat/vB floor, 4000 txs)', async () => {
    const { code, out } = await run(['template', coreFile('m.json', false), '--limits', 'service']);
    expect(code).toBe(0);
    const report = JSON.parse(out);
    expect(report.request).toMatchObject({ limits: 'service', maxTxCount: 4000, minFeeRateSatVb: 1 });
    // 1 sat/vB floor: the 0.5 sat/vB tx is left out of the optimized template, Core v31 takes it.
    expect(report.templates.optimized.txCount).toBe(3);
    expect(report.templates.baselineV31.txCount).toBe(4);
    expect(report.optimizedVsV31.v31WithinRequestLimits).toBe(false);
  });

  it('args: --txids, --min-fee-rate, --max-tx-count, --blocks, --progress, gzip input', async () => {
    const file = coreFile('m.json.gz', true);
    const { code, out, err } = await run(['template', file, '--txids', '--min-fee-rate', '0', '--max-tx-count', '2', '--blocks', '3', '--progress']);
    expect(code).toBe(0);
    const report = JSON.parse(out);
    expect(report.request).toEqual({ limits: 'core', maxTxCount: 2, minFeeRateSatVb: 0, projectedBlocks: 3 });
    expect(report.templates.optimized.txids).toEqual(['01'.repeat(32), '02'.repeat(32)]);
    expect(report.templates.baselineV31.txids).toHaveLength(4);
    expect(report.projectedBlocks).toHaveLength(3);
    expect(err).toMatch(/btc-template: reading .*\nbtc-template: decompressing \d+ bytes\nbtc-template: parsing JSON/);
    expect(err).toMatch(/native total: [\d.]+ ms/);
  });

  it('error: bad arguments, files and JSON print one line and exit 2', async () => {
    const cases: [string[], RegExp][] = [
      [[], /^btc-template: missing command/],
      [['build', 'x'], /unknown command "build"/],
      [['template'], /missing FILE/],
      [['template', 'a', 'b'], /unexpected argument "b"/],
      [['template', 'x', '--max-tx-count=-3'], /--max-tx-count must be an integer/],
      // A negative value after a space is our own validation error, not Node's "argument is ambiguous".
      [['template', 'x', '--max-tx-count', '-3'], /^btc-template: --max-tx-count must be an integer in \[0, \d+\], got "-3"/],
      [['template', 'x', '--min-fee-rate', '-1.5'], /--min-fee-rate must be a number/],
      [['generate', '0', join(tmp, 'g.json')], /N must be an integer in \[1, 1000000\]/],
      [['generate', '10'], /usage: btc-template generate N FILE/],
      [['generate', '10', join(tmp, 'no-such-dir', 'g.json')], /cannot write .*g.json/],
      [['template', 'x', '--blocks', '1.5'], /--blocks must be an integer/],
      [['template', 'x', '--min-fee-rate', 'abc'], /--min-fee-rate must be a number/],
      [['template', 'x', '--bogus'], /Unknown option '--bogus'/],
      [['template', join(tmp, 'missing.json')], /cannot read .*missing.json/],
    ];
    writeFileSync(join(tmp, 'bad.json'), '{"a":');
    cases.push([['template', join(tmp, 'bad.json')], /is not valid JSON/]);
    writeFileSync(join(tmp, 'cycle.json'), JSON.stringify({ ['aa'.repeat(32)]: { vsize: 1, fees: { base: 0 }, depends: ['bb'.repeat(32)] }, ['bb'.repeat(32)]: { vsize: 1, fees: { base: 0 }, depends: ['aa'.repeat(32)] } }));
    cases.push([['template', join(tmp, 'cycle.json')], /contain a cycle/]);
    for (const [args, message] of cases) {
      const { code, out, err } = await run(args);
      expect(code, args.join(' ')).toBe(2);
      expect(out).toBe('');
      expect(err).toMatch(message);
      expect(err.trim().split('\n')).toHaveLength(1);
    }
  });

  it('behavior: generate writes a seeded mempool the template command reads (the README example)', async () => {
    const file = join(tmp, 'generated.json');
    const made = await run(['generate', '2000', file, '--seed', '5']);
    expect(made).toMatchObject({ code: 0, out: '' });
    expect(made.err).toMatch(/wrote 2000 transactions \(seed 5\)/);
    const { code, out } = await run(['template', file]);
    expect(code).toBe(0);
    const report = JSON.parse(out);
    expect(report).toMatchObject({ format: 'core', txCount: 2000 });
    expect(report.templates.optimized.feeSat).toBeGreaterThanOrEqual(report.templates.baselineV31.feeSat);
    // Same seed, same file.
    const again = join(tmp, 'again.json');
    await run(['generate', '2000', again, '--seed', '5']);
    expect(readFileSync(again, 'utf8')).toBe(readFileSync(file, 'utf8'));
  });

  it('behavior: --help prints usage', async () => {
    const { code, out } = await run(['--help']);
    expect(code).toBe(0);
    expect(out).toMatch(/^Usage: btc-template template FILE/);
  });

  it.skipIf(!existsSync(resolve(import.meta.dirname, '../../dist/cli/template.js')))('behavior: the bin script runs the compiled CLI', () => {
    const bin = resolve(import.meta.dirname, '../../bin/btc-template.mjs');
    const out = execFileSync(process.execPath, [bin, 'template', coreFile('bin.json', false)], { encoding: 'utf8' });
    expect(JSON.parse(out).txCount).toBe(4);
    let status = 0, stderr = '';
    try { execFileSync(process.execPath, [bin, 'template'], { encoding: 'utf8', stdio: 'pipe' }); } catch (e) { status = (e as { status: number }).status; stderr = (e as { stderr: string }).stderr; }
    expect(status).toBe(2);
    expect(stderr).toBe('btc-template: missing FILE\n');
    // Run as a command (its first lines are shell too: Node started with malloc on huge pages).
    const asCommand = execFileSync(bin, ['template', coreFile('bin.json', false)], { encoding: 'utf8' });
    expect(JSON.parse(asCommand).txCount).toBe(4);
  });
});
