/**
 * `estimatesmartfee` answers (conservative), cached for a short while per target: the estimate
 * changes per block, and paid routes should not cost a node round trip each (Core serves RPC from a
 * small work queue). Concurrent requests share one call. A failing call (node down or slow) rejects
 * with its catalogue error (503), so the route answers 503 rather than a half answer; it is not
 * cached, and the next request asks again.
 */
import { btcPerKvbToSatVb } from '../bitcoin/units.js';
import type { BitcoinNode } from '../node/bitcoinNode.js';
import type { SmartFee } from '../node/schemas.js';

export class SmartFeeCache {
  private readonly entries = new Map<number, { at: number; value: Promise<SmartFee> }>();

  constructor(
    private readonly node: BitcoinNode,
    private readonly ttlMs = 30_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** The node's answer for confirmation within `blocks` (its `feerate` absent when it has no estimate). */
  answer(blocks: number): Promise<SmartFee> {
    const hit = this.entries.get(blocks);
    if (hit && this.now() - hit.at < this.ttlMs) return hit.value;
    const value = this.node.estimateSmartFee(blocks, 'conservative');
    const entry = { at: this.now(), value };
    this.entries.set(blocks, entry);
    value.catch(() => {
      if (this.entries.get(blocks) === entry) this.entries.delete(blocks);
    });
    return value;
  }

  /** sat/vB for confirmation within `blocks`, or null when the node has no estimate. */
  async get(blocks: number): Promise<number | null> {
    const answer = await this.answer(blocks);
    return answer.feerate === undefined ? null : btcPerKvbToSatVb(answer.feerate);
  }
}
