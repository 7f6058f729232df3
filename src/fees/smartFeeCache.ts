/**
 * `estimatesmartfee` answers (conservative), cached for a short while per target: the estimate
 * changes per block, and paid routes should not cost a node round trip each (Core serves RPC from a
 * small work queue). Concurrent requests share one call. A failing call gives null (the caller
 * falls back to the projection), never an error, and is not cached: the next request asks again.
 */
import type { BitcoinNode } from '../node/bitcoinNode.js';
import type { SmartFee } from '../node/schemas.js';
import { btcPerKvbToSatVb } from './feeEstimate.js';

export class SmartFeeCache {
  private readonly entries = new Map<number, { at: number; value: Promise<SmartFee | null> }>();

  constructor(
    private readonly node: BitcoinNode,
    private readonly ttlMs = 30_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** The node's answer for confirmation within `blocks`, or null when the call failed. */
  answer(blocks: number): Promise<SmartFee | null> {
    const hit = this.entries.get(blocks);
    if (hit && this.now() - hit.at < this.ttlMs) return hit.value;
    const entry = {
      at: this.now(),
      value: this.node.estimateSmartFee(blocks, 'conservative').catch(() => {
        if (this.entries.get(blocks) === entry) this.entries.delete(blocks);
        return null;
      }),
    };
    this.entries.set(blocks, entry);
    return entry.value;
  }

  /** sat/vB for confirmation within `blocks`, or null when the node has no estimate or fails. */
  async get(blocks: number): Promise<number | null> {
    const answer = await this.answer(blocks);
    return answer?.feerate === undefined ? null : btcPerKvbToSatVb(answer.feerate);
  }
}
