/**
 * Randomized comparison of the native optimizer against the TypeScript oracle. Every round draws a
 * mempool shape, limits and options from the seed and checks: the structural properties of every
 * template (checkResult), v31 and v30 against the references of Core's loops, the bound between
 * the exact optimum and the exact LP value and equal to the optimum when its residual solve
 * finishes (small rounds), the native self-checks, and a
 * generated mempool with bare-multisig stamps.
 *
 * NATIVE_FUZZ_SEED (default 1) and NATIVE_FUZZ_ROUNDS (default 30) set the run; the debug CI run
 * (scripts/test-native-debug.sh) uses a fresh seed and more rounds under ASan/UBSan, and prints
 * the seed so a failure can be replayed.
 */
import { describe, expect, it } from 'vitest';

import { buildTemplates, inspectClusters, selfCheck } from '../../src/optimizer/binding/native.js';
import { generateMempool } from '../../bench/generator.js';
import { checkProjected, checkResult, exactOptimumWithin, lpBound, miningOrder, randomMempool, referenceV30, referenceV31, rng, type Limits } from './oracle.js';

const SEED = Number(process.env.NATIVE_FUZZ_SEED ?? 1);
const ROUNDS = Number(process.env.NATIVE_FUZZ_ROUNDS ?? 30);

describe('native fuzz against the TypeScript oracle', () => {
  it(`behavior: ${ROUNDS} random rounds from seed ${SEED} agree with the oracle`, () => {
    const r = rng(SEED);
    const pick = (lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
    for (let round = 0; round < ROUNDS; round++) {
      const seed = pick(1, 2 ** 30);
      const small = round % 2 === 0;
      const shape = small
        ? { clusters: pick(1, 10), maxClusterSize: pick(1, 6), density: r() * 0.6, sigopShare: r() < 0.5 ? r() * 0.5 : 0 }
        : { clusters: pick(5, 60), maxClusterSize: pick(1, 20), density: r() * 0.5, sigopShare: r() < 0.5 ? r() * 0.3 : 0 };
      const input = randomMempool(seed, shape);
      const lim: Limits = { weightLimitWu: pick(3_000, 40_000), coinbaseReserveWu: pick(0, 2_000), maxSigopCost: pick(500, 20_000), coinbaseSigopCost: pick(0, 400) };
      const opts = { ...lim, maxTxCount: pick(3, 200), minFeeRateSatVb: r() < 0.3 ? pick(1, 20) : 0, projectedBlocks: pick(1, 5), seed: pick(0, 1000), threads: pick(1, 2) };
      const context = `round ${round} (seed ${SEED}, mempool seed ${seed}, ${JSON.stringify(shape)}, ${JSON.stringify(opts)})`;
      const res = buildTemplates(input, opts);
      expect(checkResult(input, res, opts), context).toEqual([]);
      expect(checkProjected(input, res, lim.weightLimitWu - lim.coinbaseReserveWu), context).toEqual([]);
      const clusters = inspectClusters(input, opts);
      const v31 = referenceV31(miningOrder(input, clusters), lim);
      expect(Array.from(res.baselineV31.indices), context).toEqual(v31.txs);
      expect(res.baselineV30.feeSat, context).toBe(referenceV30(input, lim).fee);
      expect(selfCheck(input, opts, 3), context).toBe('');
      if (small) {
        // The brute force knows every limit, the min fee rate included (eligibility by the chunks of
        // an optimal linearization by real weight); the LP oracle knows the weight limit only.
        const cap = lim.weightLimitWu - lim.coinbaseReserveWu;
        const optimum = exactOptimumWithin(input, { weight: cap, sigops: lim.maxSigopCost - lim.coinbaseSigopCost, count: opts.maxTxCount, minRateSatVb: opts.minFeeRateSatVb });
        if (res.upperBound.relaxedClusters === 0 && opts.minFeeRateSatVb === 0) expect(res.upperBound.lpFeeSat, context).toBe(lpBound(input, cap));
        expect(res.upperBound.feeSat, context).toBeGreaterThanOrEqual(optimum);
        // The residual solve, when it finishes, gives the optimum itself, and the template earns it.
        if (res.upperBound.solved) {
          expect(res.upperBound.feeSat, context).toBe(optimum);
          expect(res.optimized.feeSat, context).toBe(optimum);
        }
      }
    }
  });

  it(`behavior: generated mempools with bare-multisig stamps from seed ${SEED} are valid`, () => {
    for (let k = 0; k < Math.max(2, Math.floor(ROUNDS / 10)); k++) {
      const m = generateMempool({ txCount: 3_000, seed: SEED * 1_000 + k, bareMultisigShare: 0.05, sigopHeavyShare: 0.01, profile: k % 2 ? 'cluster-heavy' : 'realistic' });
      const opts = { weightLimitWu: 400_000, coinbaseReserveWu: 4_000, maxSigopCost: 8_000, coinbaseSigopCost: 400, maxTxCount: 2_000, minFeeRateSatVb: 1, projectedBlocks: 4 };
      const res = buildTemplates(m.input, opts);
      expect(checkResult(m.input, res, opts), `stamps seed ${SEED * 1_000 + k}`).toEqual([]);
      expect(checkProjected(m.input, res, 396_000), `stamps seed ${SEED * 1_000 + k}`).toEqual([]);
      expect(selfCheck(m.input, opts, 7)).toBe('');
    }
  });
});
