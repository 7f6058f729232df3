/**
 * Bad input never crashes the process: it throws an OptimizerError with a code and a message that
 * names the array and index, with the caller's stack. Checked once in TypeScript (shapes) and again
 * natively (every element, and shapes again when the TypeScript checks are bypassed).
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

import { OptimizerError, buildTemplates, nativeVersion, type OptimizerInput } from '../../src/optimizer/binding/native.js';

function base(): OptimizerInput {
  // 0 <- 1 <- 2, 3 alone
  return {
    feeSat: new Float64Array([100, 2_000, 300, 400]),
    weightWu: new Uint32Array([400, 400, 400, 400]),
    parentOffsets: new Uint32Array([0, 0, 1, 2, 2]),
    parentIndices: new Uint32Array([0, 1]),
    txidRank: new Uint32Array([3, 1, 0, 2]),
  };
}

function thrown(f: () => unknown): OptimizerError {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(OptimizerError);
    return err as OptimizerError;
  }
  throw new Error('expected a throw');
}

describe('errors', () => {
  it('default: a valid input works and the module reports its version', () => {
    expect(buildTemplates(base()).optimized.txCount).toBe(4);
    // The debug run (scripts/test-native-debug.sh) must really load the debug build.
    if (process.env.OPTIMIZER_NATIVE_BUILD === 'Debug') expect(nativeVersion()).toMatch(/^\d+\.\d+\.\d+\+debug$/);
    else expect(nativeVersion()).toMatch(/^\d+\.\d+\.\d+(\+debug)?$/);
  });

  it('error: ERR_OPTIMIZER_CYCLE for a cycle and a self-parent', () => {
    const cyc = { ...base(), parentOffsets: new Uint32Array([0, 1, 2, 3, 3]), parentIndices: new Uint32Array([2, 0, 1]) };
    const e = thrown(() => buildTemplates(cyc));
    expect(e.code).toBe('ERR_OPTIMIZER_CYCLE');
    expect(e.message).toMatch(/cycle \(transaction [0-2] is on or below it\)/);
    const self = { ...base(), parentIndices: new Uint32Array([0, 2]) };
    expect(thrown(() => buildTemplates(self)).message).toBe('transaction 2 lists itself as a parent');
  });

  it('error: ERR_OPTIMIZER_CYCLE for a two-transaction cycle (each the parent of the other), naming the lower index', () => {
    // 0 <- 1 and 1 <- 0; 2 and 3 alone
    const pair = { ...base(), parentOffsets: new Uint32Array([0, 1, 2, 2, 2]), parentIndices: new Uint32Array([1, 0]) };
    const e = thrown(() => buildTemplates(pair));
    expect(e.code).toBe('ERR_OPTIMIZER_CYCLE');
    expect(e.message).toMatch(/cycle \(transaction 0 is on or below it\)/);
  });

  it('error: ERR_OPTIMIZER_INDEX_OUT_OF_RANGE names the entry', () => {
    const e = thrown(() => buildTemplates({ ...base(), parentIndices: new Uint32Array([0, 9]) }));
    expect(e.code).toBe('ERR_OPTIMIZER_INDEX_OUT_OF_RANGE');
    expect(e.message).toBe('parentIndices[1] = 9 (a parent of transaction 2) is out of range [0, 4)');
  });

  it('error: ERR_OPTIMIZER_LENGTH_MISMATCH for every array, and for parentOffsets[n]', () => {
    const b = base();
    expect(thrown(() => buildTemplates({ ...b, weightWu: new Uint32Array(3) })).message).toBe('Expected input.weightWu of length 4 but received length 3');
    expect(thrown(() => buildTemplates({ ...b, parentOffsets: new Uint32Array(4) })).code).toBe('ERR_OPTIMIZER_LENGTH_MISMATCH');
    expect(thrown(() => buildTemplates({ ...b, txidRank: new Uint32Array(5) })).code).toBe('ERR_OPTIMIZER_LENGTH_MISMATCH');
    expect(thrown(() => buildTemplates({ ...b, sigopCost: new Uint32Array(1) })).code).toBe('ERR_OPTIMIZER_LENGTH_MISMATCH');
    const e = thrown(() => buildTemplates({ ...b, parentOffsets: new Uint32Array([0, 0, 1, 2, 3]) }));
    expect(e.message).toBe('parentOffsets[n] = 3 but parentIndices has length 2');
    expect(thrown(() => buildTemplates({ ...b, parentOffsets: new Uint32Array([0, 0, 1, 0, 2]) })).message).toMatch(/not monotone at index 3/);
  });

  it('error: ERR_OPTIMIZER_INVALID_FEE for NaN, negative, fractional and huge fees', () => {
    for (const bad of [NaN, -1, 1.5, 2 ** 53, Infinity]) {
      const e = thrown(() => buildTemplates({ ...base(), feeSat: new Float64Array([100, bad, 1, 1]) }));
      expect(e.code).toBe('ERR_OPTIMIZER_INVALID_FEE');
      expect(e.message).toMatch(/^feeSat\[1\] = /);
    }
  });

  it('error: ERR_OPTIMIZER_INVALID_FEE when the total fee would overflow', () => {
    const e = thrown(() => buildTemplates({ ...base(), feeSat: new Float64Array([2 ** 52, 2 ** 52, 1, 1]) }));
    expect(e.message).toBe('the total of feeSat exceeds 2^53 - 1 satoshis (at feeSat[1])');
  });

  it('error: ERR_OPTIMIZER_INVALID_WEIGHT for a zero weight', () => {
    const e = thrown(() => buildTemplates({ ...base(), weightWu: new Uint32Array([400, 400, 0, 400]) }));
    expect(e.code).toBe('ERR_OPTIMIZER_INVALID_WEIGHT');
    expect(e.message).toBe('weightWu[2] is 0');
  });

  it('error: ERR_OPTIMIZER_INVALID_RANK for a rank that is not a permutation', () => {
    expect(thrown(() => buildTemplates({ ...base(), txidRank: new Uint32Array([0, 1, 1, 2]) })).message).toMatch(/txidRank\[2\] = 1 is a duplicate/);
    expect(thrown(() => buildTemplates({ ...base(), txidRank: new Uint32Array([0, 1, 7, 2]) })).code).toBe('ERR_OPTIMIZER_INVALID_RANK');
  });

  it('error: ERR_OPTIMIZER_INVALID_WARM_ORDER for duplicates and out-of-range entries', () => {
    expect(thrown(() => buildTemplates({ ...base(), warmOrder: new Uint32Array([1, 1]) })).code).toBe('ERR_OPTIMIZER_INVALID_WARM_ORDER');
    expect(thrown(() => buildTemplates({ ...base(), warmOrder: new Uint32Array([4]) })).message).toBe('warmOrder[0] = 4 is out of range');
    // A non-topological hint is not an error: it is ignored.
    expect(buildTemplates({ ...base(), warmOrder: new Uint32Array([2, 1, 0, 3]) }).optimized.txCount).toBe(4);
  });

  it('error: ERR_OPTIMIZER_INVALID_ARGUMENT for wrong types and options, with precise messages', () => {
    const b = base();
    expect(thrown(() => buildTemplates({ ...b, feeSat: [1, 2, 3, 4] as unknown as Float64Array })).message).toBe('Expected Float64Array for input.feeSat but received object');
    expect(thrown(() => buildTemplates({ ...b, weightWu: new Float64Array(4) as unknown as Uint32Array })).message).toBe('Expected Uint32Array for input.weightWu but received Float64Array(4)');
    expect(thrown(() => buildTemplates(null as unknown as OptimizerInput)).message).toBe('Expected an object for input but received null');
    expect(thrown(() => buildTemplates(b, { maxTxCount: -1 })).message).toBe('Expected an integer in [0, 4000000000] for options.maxTxCount but received number -1');
    expect(thrown(() => buildTemplates(b, { projectedBlocks: 1.5 })).code).toBe('ERR_OPTIMIZER_INVALID_ARGUMENT');
    expect(thrown(() => buildTemplates(b, { minFeeRateSatVb: NaN })).code).toBe('ERR_OPTIMIZER_INVALID_ARGUMENT');
    expect(thrown(() => buildTemplates(b, { coinbaseReserveWu: 5_000_000 })).message).toMatch(/less than weightLimitWu/);
    expect(thrown(() => buildTemplates(b, { bogus: 1 } as never)).message).toBe('Expected a known option for options.bogus but received string bogus');
  });

  it('error: the native layer re-checks shapes when the TypeScript checks are bypassed', () => {
    const require = createRequire(import.meta.url);
    const addon = require('../../build/Release/optimizer.node') as { buildTemplates(i: unknown, o: unknown): unknown };
    const b = base();
    const tries: [unknown, unknown, string][] = [
      [{ ...b, weightWu: new Uint32Array(2) }, {}, 'ERR_OPTIMIZER_LENGTH_MISMATCH'],
      [{ ...b, parentOffsets: new Uint32Array(1) }, {}, 'ERR_OPTIMIZER_LENGTH_MISMATCH'],
      [{ ...b, feeSat: new Uint32Array(4) }, {}, 'ERR_OPTIMIZER_INVALID_ARGUMENT'],
      [{ ...b, txidRank: undefined }, {}, 'ERR_OPTIMIZER_INVALID_ARGUMENT'],
      [42, {}, 'ERR_OPTIMIZER_INVALID_ARGUMENT'],
      [b, { weightLimitWu: 'x' }, 'ERR_OPTIMIZER_INVALID_ARGUMENT'],
      [b, { threads: 3 }, 'ERR_OPTIMIZER_INVALID_ARGUMENT'],
      [b, 7, 'ERR_OPTIMIZER_INVALID_ARGUMENT'],
    ];
    for (const [input, options, code] of tries) {
      let err: unknown;
      try { addon.buildTemplates(input, options); } catch (e) { err = e; }
      expect((err as { code?: string }).code).toBe(code);
    }
  });

  it('error: a transferred (detached) buffer is refused, not read', () => {
    const b = base();
    const buffer = b.weightWu.buffer as ArrayBuffer;
    structuredClone(buffer, { transfer: [buffer] });
    expect(thrown(() => buildTemplates(b)).code).toBe('ERR_OPTIMIZER_LENGTH_MISMATCH');
  });

  it('behavior: errors carry the caller\'s stack and the native error as cause', () => {
    const e = thrown(() => buildTemplates({ ...base(), parentIndices: new Uint32Array([0, 9]) }));
    expect(e.stack).toContain('errors.test.ts');
    expect(e.cause).toBeInstanceOf(Error);
  });

  it('behavior: empty mempool', () => {
    const r = buildTemplates({ feeSat: new Float64Array(0), weightWu: new Uint32Array(0), parentOffsets: new Uint32Array(1), parentIndices: new Uint32Array(0), txidRank: new Uint32Array(0) });
    expect(r.optimized.txCount).toBe(0);
    expect(r.upperBound).toEqual({ feeSat: 0, lpFeeSat: 0, exact: true, relaxedClusters: 0, solved: true, freeClusters: 0, searchNodes: 0 });
    expect(r.projectedBlocks.every((b) => b.txCount === 0)).toBe(true);
  });
});
