/**
 * `btc-template template FILE`: run one optimizer cycle on a mempool snapshot file and print a
 * JSON report (optimized, Core v31 and v30 templates, the upper bound and each gap, timings,
 * cluster statistics). Reads Bitcoin Core `getrawmempool true` JSON or the shared snapshot
 * format, plain or gzip. `btc-template generate N FILE` writes a seeded synthetic mempool of N
 * transactions as Core JSON, so there is a file to try it on.
 *
 * Exit codes: 0 success, 2 bad arguments or unreadable/invalid input (one line on stderr), 1 an
 * internal failure (one line on stderr).
 */
import { writeSync } from 'node:fs';
import { parseArgs } from 'node:util';

import { OptimizerError, buildTemplates, type OptimizerResult, type TemplateSelection } from '../optimizer/binding/native.js';
import { SnapshotError, readSnapshotFile, type MempoolSnapshot } from '../optimizer/snapshot/snapshot.js';
import { OPTION_RANGES, type OptionRange } from '../optimizer/binding/optionRanges.js';
import { at } from '../util/at.js';

// Loaded only by the commands that use them (issue 25: the whole process counts): zod for a shared
// snapshot's block template, the generator and node:fs/promises for `generate`. zod alone was most of
// the module loading.

export const USAGE = `Usage: btc-template template FILE [options]
       btc-template generate N FILE [--seed S]

template  runs the block-template optimizer once on a mempool snapshot and prints a JSON report.
          FILE is Bitcoin Core \`getrawmempool true\` JSON or the shared snapshot format, plain or .gz.
generate  writes a synthetic mempool of N transactions (1 to 1000000: singletons, chains, CPFP,
          batches, consolidations; log-normal fee rates) to FILE as \`getrawmempool true\` JSON;
          the same seed (default 1) gives the same mempool.

Options:
  --txids               add the ordered txids of each template
  --progress            print progress lines on stderr
  --limits core|service limits of the optimized template (default core):
                          core    = Bitcoin Core's own (no transaction cap, blockmintxfee
                                    0.001 sat/vB), so optimized vs v31 is like for like;
                          service = the service cache's request (4000 txs, 1 sat/vB)
  --max-tx-count N      transaction limit of the optimized template (overrides --limits)
  --min-fee-rate X      minimum chunk fee rate of the optimized template, sat/vB (overrides --limits)
  --blocks N            number of projected blocks (default 8)
  --seed S              generate: seed of the synthetic mempool (default 1)
  -h, --help            show this help
`;

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/**
 * Text to fd 1 in synchronous writes, without Node's stdout stream (its stream and socket modules
 * are milliseconds to load, issue 25). A non-blocking pipe that is full (EAGAIN) takes the rest
 * through process.stdout, which waits for it.
 */
function writeStdout(text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  let written = 0;
  try {
    while (written < bytes.length) written += writeSync(1, bytes, written);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
    process.stdout.write(bytes.subarray(written));
  }
}

const defaultIo: CliIo = {
  stdout: writeStdout,
  stderr: (t) => process.stderr.write(t),
};

class UsageError extends Error {}

/** `core`: Bitcoin Core's limits (no tx cap; blockmintxfee 1 sat/kvB). `service`: the cache's request (SPEC §8). */
const LIMIT_PRESETS: Record<'core' | 'service', { maxTxCount: number | null; minFeeRateSatVb: number }> = {
  core: { maxTxCount: null, minFeeRateSatVb: 0.001 },
  service: { maxTxCount: 4000, minFeeRateSatVb: 1 },
};

/** Options that take a value: `--max-tx-count -3` is read as the value -3 (refused with our own message), not as an unknown option. */
const VALUE_OPTIONS = new Set(['--limits', '--max-tx-count', '--min-fee-rate', '--blocks', '--seed']);

function joinNegativeValues(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const next = argv[i + 1];
    if (VALUE_OPTIONS.has(arg) && next !== undefined && /^-[\d.]/.test(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}

/** An integer flag within the optimizer's range for that option. */
function positiveInt(name: string, raw: string | undefined, { min, max }: OptionRange): number | undefined {
  if (raw === undefined) return undefined;
  const v = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(v) || v < min || v > max)
    throw new UsageError(`${name} must be an integer in [${min}, ${max}], got "${raw}"`);
  return v;
}

interface Template {
  txCount: number;
  feeSat: number;
  weightWu: number;
  sigopCost: number;
  gapToBoundSat: number;
  gapToBoundPct: number;
  txids?: string[];
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

function describe(sel: TemplateSelection, bound: number, snapshot: MempoolSnapshot, withTxids: boolean): Template {
  const gap = bound - sel.feeSat;
  return {
    txCount: sel.txCount,
    feeSat: sel.feeSat,
    weightWu: sel.weightWu,
    sigopCost: sel.sigopCost,
    gapToBoundSat: gap,
    gapToBoundPct: bound > 0 ? round((gap / bound) * 100, 6) : 0,
    ...(withTxids ? { txids: Array.from(sel.indices, (i) => at(snapshot.txids, i)) } : {}),
  };
}

/** The node's own template, when the snapshot carries one (shared format `blockTemplate`). */
async function nodeTemplate(snapshot: MempoolSnapshot, r: OptimizerResult): Promise<Record<string, unknown> | undefined> {
  if (snapshot.meta?.blockTemplate === undefined) return undefined;
  const { z } = await import('zod');
  /** The shared format's `blockTemplate`: the txids of the node's own template for the snapshot. */
  const NodeBlockTemplate = z.object({ txids: z.array(z.string()), producer: z.unknown().optional() });
  const parsed = NodeBlockTemplate.safeParse(snapshot.meta.blockTemplate);
  if (!parsed.success) return undefined;
  const bt = parsed.data;
  const index = new Map(snapshot.txids.map((t, i) => [t, i]));
  let feeSat = 0,
    missing = 0,
    overlap = 0;
  const optimized = new Set(r.optimized.indices);
  for (const t of bt.txids) {
    const i = index.get(t.toLowerCase());
    if (i === undefined) {
      missing++;
      continue;
    }
    feeSat += at(snapshot.input.feeSat, i);
    if (optimized.has(i)) overlap++;
  }
  const gap = r.upperBound.feeSat - feeSat;
  return {
    producer: bt.producer ?? null,
    txCount: bt.txids.length,
    txidsNotInSnapshot: missing,
    feeSat,
    gapToBoundSat: gap,
    gapToBoundPct: r.upperBound.feeSat > 0 ? round((gap / r.upperBound.feeSat) * 100, 6) : 0,
    overlapWithOptimized: overlap,
    optimizedMinusNodeSat: r.optimized.feeSat - feeSat,
  };
}

/** `generate N FILE`: a seeded synthetic mempool as Core `getrawmempool true` JSON. */
async function generate(args: string[], rawSeed: string | undefined, io: CliIo): Promise<number> {
  const [rawCount, file, extra] = args;
  if (rawCount === undefined || file === undefined) throw new UsageError('usage: btc-template generate N FILE [--seed S]');
  if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`);
  const txCount = positiveInt('N', rawCount, { min: 1, max: 1_000_000, integer: true }) ?? 1;
  const seed = positiveInt('--seed', rawSeed, { min: 0, max: 2 ** 32 - 1, integer: true }) ?? 1;
  const { generateMempool, toCoreJson } = await import('../optimizer/snapshot/syntheticMempool.js');
  const { writeFile } = await import('node:fs/promises');
  try {
    await writeFile(file, toCoreJson(generateMempool({ txCount, seed })));
  } catch (err) {
    io.stderr(`btc-template: cannot write ${file}: ${(err as Error).message}\n`);
    return 2;
  }
  io.stderr(`btc-template: wrote ${txCount} transactions (seed ${seed}) to ${file}\n`);
  return 0;
}

/**
 * Run the command line. Never throws and never exits: returns the exit code.
 * @example await runCli(['template', 'mempool.json.gz', '--txids'])
 */
export async function runCli(argv: string[], io: CliIo = defaultIo): Promise<number> {
  const started = performance.now();
  let file: string;
  let opts: { txids: boolean; progress: boolean; limits: 'core' | 'service'; maxTxCount?: number; minFeeRate?: number; blocks?: number };
  try {
    const { values, positionals } = parseArgs({
      args: joinNegativeValues(argv),
      allowPositionals: true,
      options: {
        txids: { type: 'boolean', default: false },
        progress: { type: 'boolean', default: false },
        limits: { type: 'string', default: 'core' },
        'max-tx-count': { type: 'string' },
        'min-fee-rate': { type: 'string' },
        blocks: { type: 'string' },
        seed: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
    if (values.help) {
      io.stdout(USAGE);
      return 0;
    }
    if (positionals[0] === 'generate') return await generate(positionals.slice(1), values.seed, io);
    if (positionals[0] !== 'template')
      throw new UsageError(
        positionals.length ? `unknown command "${positionals[0]}" (expected "template" or "generate")` : 'missing command: btc-template template FILE',
      );
    const [, fileArg, extra] = positionals;
    if (fileArg === undefined) throw new UsageError('missing FILE');
    if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`);
    file = fileArg;
    const rawRate = values['min-fee-rate'];
    let minFeeRate: number | undefined;
    if (rawRate !== undefined) {
      minFeeRate = Number(rawRate);
      const { min, max } = OPTION_RANGES.minFeeRateSatVb;
      if (rawRate.trim() === '' || !Number.isFinite(minFeeRate) || minFeeRate < min || minFeeRate > max)
        throw new UsageError(`--min-fee-rate must be a number in [${min}, ${max}] sat/vB, got "${rawRate}"`);
    }
    const limits = values.limits;
    if (limits !== 'core' && limits !== 'service') throw new UsageError(`--limits must be "core" or "service", got "${limits}"`);
    opts = {
      limits,
      txids: values.txids ?? false,
      progress: values.progress ?? false,
      maxTxCount: positiveInt('--max-tx-count', values['max-tx-count'], OPTION_RANGES.maxTxCount),
      minFeeRate,
      blocks: positiveInt('--blocks', values.blocks, OPTION_RANGES.projectedBlocks),
    };
  } catch (err) {
    io.stderr(`btc-template: ${(err as Error).message}\n`);
    return 2;
  }

  const progress = (line: string) => {
    if (opts.progress) io.stderr(`btc-template: ${line}\n`);
  };
  try {
    const t0 = performance.now();
    let readMs = 0;
    const snapshot = await readSnapshotFile(file, {
      onProgress: (phase, detail) => {
        if (phase === 'json') readMs = performance.now() - t0;
        progress(`${phase === 'read' ? 'reading' : phase === 'gunzip' ? 'decompressing' : phase === 'json' ? 'parsing JSON' : 'converting'} ${detail}`);
      },
    });
    const parseMs = performance.now() - t0 - readMs;
    // The count from a column: the txids are only split out of the native reader's string when read (--txids).
    const txCount = snapshot.input.feeSat.length;
    progress(`${txCount} transactions (${snapshot.format} format); running the optimizer`);
    const preset = LIMIT_PRESETS[opts.limits];
    const request = {
      limits: opts.limits,
      maxTxCount: opts.maxTxCount ?? preset.maxTxCount ?? txCount,
      minFeeRateSatVb: opts.minFeeRate ?? preset.minFeeRateSatVb,
      projectedBlocks: opts.blocks ?? 8,
    };
    const r = buildTemplates(snapshot.input, {
      maxTxCount: request.maxTxCount,
      minFeeRateSatVb: request.minFeeRateSatVb,
      projectedBlocks: request.projectedBlocks,
    });
    for (const [phase, ms] of Object.entries(r.timingsMs)) progress(`native ${phase}: ${ms.toFixed(2)} ms`);
    const bound = r.upperBound.feeSat;
    const diff = r.optimized.feeSat - r.baselineV31.feeSat;
    const node = await nodeTemplate(snapshot, r);
    const report = {
      file,
      format: snapshot.format,
      txCount,
      snapshot: {
        ...snapshot.stats,
        ...(snapshot.meta ? { meta: Object.fromEntries(Object.entries(snapshot.meta).filter(([k]) => k !== 'blockTemplate' && k !== 'minedBlock')) } : {}),
      },
      request,
      templates: {
        optimized: describe(r.optimized, bound, snapshot, opts.txids),
        baselineV31: describe(r.baselineV31, bound, snapshot, opts.txids),
        baselineV30: describe(r.baselineV30, bound, snapshot, opts.txids),
        ...(node ? { node } : {}),
      },
      upperBound: r.upperBound,
      optimizedVsV31: {
        feeSat: diff,
        pct: r.baselineV31.feeSat > 0 ? round((diff / r.baselineV31.feeSat) * 100, 6) : 0,
        v31WithinRequestLimits: r.v31WithinRequestLimits,
        usedBaselineV31: r.tailSearch.usedBaselineV31,
      },
      tailSearch: r.tailSearch,
      projectedBlocks: r.projectedBlocks.map((b) => ({
        ...b,
        minFeeRateSatVb: round(b.minFeeRateSatVb, 3),
        medianFeeRateSatVb: round(b.medianFeeRateSatVb, 3),
        maxFeeRateSatVb: round(b.maxFeeRateSatVb, 3),
      })),
      clusters: r.clusters,
      timingsMs: {
        read: round(readMs, 2),
        parse: round(parseMs, 2),
        ...Object.fromEntries(Object.entries(r.timingsMs).map(([k, v]) => [`native_${k}`, round(v, 2)])),
        total: round(performance.now() - started, 2),
      },
    };
    io.stdout(`${JSON.stringify(report, null, 2)}\n`);
    return 0;
  } catch (err) {
    const bad = err instanceof SnapshotError || err instanceof OptimizerError;
    io.stderr(`btc-template: ${bad ? '' : 'internal error: '}${(err as Error).message.split('\n')[0]}\n`);
    return bad && (err as OptimizerError).code !== 'ERR_OPTIMIZER_INTERNAL' && (err as OptimizerError).code !== 'ERR_OPTIMIZER_LOAD_FAILED' ? 2 : 1;
  }
}
