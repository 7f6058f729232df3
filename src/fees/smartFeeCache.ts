/**
 * `estimatesmartfee` answers in sat/vB, cached for a short while per target: the estimate changes
 * per block, and paid routes should not cost a node round trip each. A failing node gives null
 * (the caller falls back to the projection), never an error.
 */
import type { BitcoinNode } from '../node/bitcoinNode.js';
import { btcPerKvbToSatVb } from './feeEstimate.js';

export class SmartFeeCache {
  private readonly entries = new Map<number, { at: number; value: Promise<number | null> }>();

  constructor(
    private readonly node: BitcoinNode,
    private readonly ttlMs = 30_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** sat/vB for confirmation within `blocks`, or null when the node has no estimate or fails. */
  get(blocks: number): Promise<number | null> {
    const hit = this.entries.get(blocks);
    if (hit && this.now() - hit.at < this.ttlMs) return hit.value;
    const value = this.node
      .estimateSmartFee(blocks, 'conservative')
      .then((r) => (r.feerate === undefined ? null : btcPerKvbToSatVb(r.feerate)))
      .catch(() => null);
    this.entries.set(blocks, { at: this.now(), value });
    return value;
  }
}
