/**
 * `estimatesmartfee` for the simulated node. Not Core's bucket estimator (which needs weeks of
 * block history), but one that answers plausibly from what the node has:
 *
 * 1. History: for each of the last blocks, its clearing feerate — the feerate at the 10th
 *    percentile of the block's vsize (cheapest 10 % of the space that was sold), or 1 sat/vB (the
 *    lowest bucket of Core's estimator) when the block was less than 90 % full (space was not scarce). The estimate for a
 *    target of N blocks is a quantile of the clearing rates of the last max(N, 6) blocks: the
 *    median (economical) or the 80th percentile over twice as many blocks (conservative).
 * 2. Mempool: the transactions ordered by chunk feerate (the template's linearization) are laid
 *    into blocks of 998,000 vB; the feerate where block N ends is what it takes to be in the next
 *    N blocks if nothing else arrives (0 when the mempool fills fewer than N blocks).
 * The answer is the larger of the two, never below the relay minimum. A target of 1 is answered
 * as 2 and targets are capped at 1008, as in Core. With no block holding transactions and an empty
 * mempool there is no data, and the answer carries Core's "Insufficient data" error instead.
 */
import { BLOCK_RESERVED_WEIGHT_WU, MAX_BLOCK_WEIGHT_WU, MIN_RELAY_FEE_SAT_KVB } from '../consensus/params.js';
import type { ChainBlock } from '../chain/chain.js';
import { at } from '../../util/at.js';
import type { MempoolView } from './mempoolView.js';

/** Core's estimator has no bucket below 1 sat/vB (`MIN_BUCKET_FEERATE`): a block with room to spare clears at it. */
const MIN_BUCKET_FEERATE_SAT_KVB = 1000;

const HISTORY_BLOCKS = 96;
const BLOCK_VSIZE = (MAX_BLOCK_WEIGHT_WU - BLOCK_RESERVED_WEIGHT_WU) / 4;

export type EstimateMode = 'economical' | 'conservative';

export interface FeeEstimate {
  /** sat/kvB, absent when there is no data. */
  feeRateSatKvb?: number;
  blocks: number;
  errors?: string[];
}

export class FeeEstimator {
  /** Clearing feerate (sat/kvB) of recent blocks that held transactions, oldest first. */
  private readonly clearing: number[] = [];

  /** Records a connected block. Complexity: O(txs log txs). */
  recordBlock(block: ChainBlock): void {
    const rates: Array<[number, number]> = [];
    let vsize = 0;
    for (const [i, tx] of block.txs.entries()) {
      if (i === 0) continue; // the coinbase
      rates.push([(at(block.feesSat, i) * 1000) / tx.vsize, tx.vsize]);
      vsize += tx.vsize;
    }
    if (rates.length === 0) return;
    let rate = MIN_BUCKET_FEERATE_SAT_KVB;
    if (vsize >= 0.9 * BLOCK_VSIZE) {
      rates.sort((a, b) => a[0] - b[0]);
      let acc = 0;
      for (const [r, v] of rates) {
        acc += v;
        if (acc >= vsize * 0.1) {
          rate = r;
          break;
        }
      }
    }
    this.clearing.push(rate);
    if (this.clearing.length > HISTORY_BLOCKS) this.clearing.shift();
  }

  /** Estimate for confirmation within `target` blocks. Complexity: O(n log n) in the mempool, cached per view. */
  estimate(target: number, mode: EstimateMode, view: MempoolView): FeeEstimate {
    const blocks = Math.min(Math.max(target, 2), 1008);
    const history = this.fromHistory(blocks, mode);
    const projected = projectedRate(view, blocks);
    if (history === undefined && view.size === 0) return { blocks, errors: ['Insufficient data or no feerate found'] };
    const rate = Math.max(history ?? 0, projected, MIN_RELAY_FEE_SAT_KVB);
    return { feeRateSatKvb: Math.round(rate), blocks };
  }

  private fromHistory(target: number, mode: EstimateMode): number | undefined {
    if (this.clearing.length === 0) return undefined;
    const span = Math.min(this.clearing.length, Math.max(target, 6) * (mode === 'conservative' ? 2 : 1));
    const recent = this.clearing.slice(-span).sort((a, b) => a - b);
    const q = mode === 'conservative' ? 0.8 : 0.5;
    return recent[Math.min(recent.length - 1, Math.floor(q * recent.length))];
  }
}

/** Feerate (sat/kvB) at the end of the `target`-th projected block, 0 if the mempool is shorter. */
function projectedRate(view: MempoolView, target: number): number {
  const steps = view.cached('fee-steps', () => {
    const { txChunkFeeSat, txChunkWeightWu } = view.policy;
    const order = view.entries.map((_, i) => i);
    const rate = (i: number): number => (at(txChunkFeeSat, i) * 4000) / Math.max(1, at(txChunkWeightWu, i));
    order.sort((a, b) => rate(b) - rate(a));
    const cumulative = new Float64Array(order.length);
    const rates = new Float64Array(order.length);
    let acc = 0;
    order.forEach((i, k) => {
      acc += at(view.entries, i).vsizeAdjusted;
      cumulative[k] = acc;
      rates[k] = rate(i);
    });
    return { cumulative, rates };
  });
  const limit = target * BLOCK_VSIZE;
  const n = steps.cumulative.length;
  if (n === 0 || at(steps.cumulative, n - 1) < limit) return 0;
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (at(steps.cumulative, mid) >= limit) hi = mid;
    else lo = mid + 1;
  }
  return at(steps.rates, lo);
}
