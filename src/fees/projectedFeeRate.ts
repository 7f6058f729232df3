/**
 * The fee rate needed to be mined within N blocks if blocks were built from the current mempool by
 * effective fee rate: the rate of the transaction sitting at N blocks of vsize from the top of the
 * queue. When the whole mempool fits in N blocks, the answer is the floor (the node's minimum
 * accepted rate), since anything relayable is then expected to confirm.
 */
import { round } from '../util/round.js';
import { indexAtDepth, type FeeRateSample } from './feeRateSample.js';
import { BLOCK_TX_VSIZE } from '../bitcoin/consensus.js';

export interface ProjectedFeeRate {
  /** sat/vB */
  feeRateSatVb: number;
  /** True when the mempool holds more than `blocks` blocks of transactions (the rate is a cutoff, not the floor). */
  competitive: boolean;
  /** vsize queued ahead at that rate. */
  vsizeAhead: number;
  derivation: string;
}

/** O(log n) over the sample. `floorSatVb`: the node's mempool minimum / min relay fee. */
export function projectedFeeRate(sample: FeeRateSample, blocks: number, floorSatVb: number): ProjectedFeeRate {
  const capacity = blocks * BLOCK_TX_VSIZE;
  const i = indexAtDepth(sample, capacity);
  const txRate = sample.rates[i];
  if (txRate !== undefined) {
    const rate = Math.max(floorSatVb, ceilTo(txRate, 0.1));
    return {
      feeRateSatVb: round(rate),
      competitive: true,
      vsizeAhead: sample.cumulativeVsize[i] ?? 0,
      derivation: `mempool sorted by effective fee rate; ${blocks} block(s) of ${BLOCK_TX_VSIZE.toLocaleString('en-US')} vB end at a tx paying ${round(txRate)} sat/vB; rounded up to 0.1, floor ${round(floorSatVb)}`,
    };
  }
  const cumulative = sample.vsize;
  return {
    feeRateSatVb: round(floorSatVb),
    competitive: false,
    vsizeAhead: cumulative,
    derivation: `the whole mempool (${cumulative.toLocaleString('en-US')} vB) fits in ${blocks} block(s); the node's minimum accepted rate suffices`,
  };
}

function ceilTo(x: number, step: number): number {
  return Math.ceil(x / step - 1e-9) * step;
}
