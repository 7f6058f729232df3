/**
 * The result depends only on the input and the options, never on the thread count: with threads 1
 * and 2 every part of a cycle's result (templates, txid orders, fees, bound, projected blocks,
 * per-transaction columns, linearization, counters) is the same, and bad input reports the same
 * first error. The two-thread cycle splits its phases between two threads (validation beside the
 * cluster search, linearization, baselines, bound beside the projected blocks), so this is what a
 * caller relies on when choosing the thread count.
 */
import { describe, expect, it } from 'vitest';

import { OptimizerError, buildTemplates, type OptimizerInput, type OptimizerResult } from '../../src/optimizer/binding/native.js';
import { generateMempool } from '../../src/optimizer/snapshot/syntheticMempool.js';

/** Everything but the wall times. */
function withoutTimings(r: OptimizerResult): Omit<OptimizerResult, 'timingsMs'> {
  const { timingsMs: _timings, ...rest } = r;
  return rest;
}

function firstError(input: OptimizerInput, threads: number): string {
  try {
    buildTemplates(input, { threads });
  } catch (err) {
    expect(err).toBeInstanceOf(OptimizerError);
    const e = err as OptimizerError;
    return `${e.code}: ${e.message}`;
  }
  throw new Error('expected a throw');
}

describe('threads', () => {
  it('behavior: threads 1 and 2 give the same result, sigop-heavy clusters included', () => {
    // Bare multisig and sigop-heavy transactions: the real-weight relinearization runs too.
    for (const seed of [3, 11]) {
      const { input } = generateMempool({ txCount: 6_000, seed, profile: 'realistic', bareMultisigShare: 0.05, sigopHeavyShare: 0.03 });
      const opts = { projectedBlocks: 4, weightLimitWu: 400_000, maxSigopCost: 8_000 };
      const one = buildTemplates(input, { ...opts, threads: 1 });
      const two = buildTemplates(input, { ...opts, threads: 2 });
      expect(one.optimized.txCount).toBeGreaterThan(0);
      expect(one.projectedBlocks.length).toBe(4);
      expect(withoutTimings(two)).toEqual(withoutTimings(one));
    }
  });

  it('error: bad input reports the same first error with threads 1 and 2', () => {
    const { input } = generateMempool({ txCount: 2_000, seed: 5, profile: 'realistic' });
    const n = input.feeSat.length;
    // A bad fee (checked with the columns) and a parent out of range (checked with the links):
    // the fee's error comes first, whichever thread finds its own error first.
    const feeSat = Float64Array.from(input.feeSat);
    feeSat[n - 1] = 0.5;
    const parentIndices = Uint32Array.from(input.parentIndices);
    parentIndices[0] = n + 7;
    const both = { ...input, feeSat, parentIndices };
    const one = firstError(both, 1);
    expect(one).toMatch(/ERR_OPTIMIZER_INVALID_FEE/);
    expect(firstError(both, 2)).toBe(one);
    // The links' error alone.
    const links = { ...input, parentIndices };
    expect(firstError(links, 1)).toMatch(/ERR_OPTIMIZER_INDEX_OUT_OF_RANGE/);
    expect(firstError(links, 2)).toBe(firstError(links, 1));
  });
});
