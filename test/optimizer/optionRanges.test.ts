/**
 * The optimizer's option ranges are one table (src/optimizer/binding/optionRanges.ts): the TypeScript side
 * checks it directly, the addon through the generated native/option_ranges.h.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HEADER_PATH, renderOptionRangesHeader } from '../../scripts/genOptionRanges.js';
import { OptimizerError, checkOptions, loadBinding, type OptimizerInput } from '../../src/optimizer/binding/native.js';
import { OPTION_RANGES } from '../../src/optimizer/binding/optionRanges.js';

const empty: OptimizerInput = {
  feeSat: new Float64Array(0),
  weightWu: new Uint32Array(0),
  parentOffsets: new Uint32Array([0]),
  parentIndices: new Uint32Array(0),
  txidRank: new Uint32Array(0),
};

/** The native error for `options`, calling the addon directly (past the TypeScript checks). */
function nativeError(options: Record<string, number>): { code?: string; message?: string } | undefined {
  try {
    loadBinding().buildTemplates(empty, options);
  } catch (err) {
    return err as { code?: string; message?: string };
  }
  return undefined;
}

/** Just outside the range: past the max (or a fraction, for integers within it). */
const outside = (min: number, max: number): number[] => [max + Math.max(1, max * 1e-6), min - 1];

describe('optimizer option ranges', () => {
  it('default: native/option_ranges.h is what `npm run gen:native` writes from the table', () => {
    expect(readFileSync(HEADER_PATH, 'utf8')).toBe(renderOptionRangesHeader());
  });

  it('behavior: the addon and checkOptions refuse the same out-of-range values and accept the bounds', () => {
    for (const [name, { min, max, integer }] of Object.entries(OPTION_RANGES)) {
      for (const value of outside(min, max)) {
        expect(() => checkOptions({ [name]: value }), `${name} = ${value}`).toThrow(OptimizerError);
        const native = nativeError({ [name]: value });
        expect(native?.code, `${name} = ${value} natively`).toBe('ERR_OPTIMIZER_INVALID_ARGUMENT');
        expect(native?.message).toContain(`options.${name} must be`);
      }
      if (integer && max > min) {
        expect(nativeError({ [name]: min + 0.5 })?.code, `${name} = ${min + 0.5}`).toBe('ERR_OPTIMIZER_INVALID_ARGUMENT');
      }
      // The bounds themselves pass on both sides (the coinbase reservations must stay below their
      // limits, so a limit and its reservation are tried with the other one out of the way).
      const related: Record<string, number> =
        {
          coinbaseReserveWu: { weightLimitWu: 4e9 },
          coinbaseSigopCost: { maxSigopCost: 4e9 },
          weightLimitWu: { coinbaseReserveWu: 0 },
          maxSigopCost: { coinbaseSigopCost: 0 },
        }[name] ?? {};
      for (const value of name.startsWith('coinbase') ? [min, max - 1] : [min, max]) {
        if (name.endsWith('Budget') || name === 'projectedBlocks') continue; // in range, but slow to run at the max
        expect(() => checkOptions({ ...related, [name]: value })).not.toThrow();
        expect(nativeError({ ...related, [name]: value }), `${name} = ${value} natively`).toBeUndefined();
      }
    }
  });
});
