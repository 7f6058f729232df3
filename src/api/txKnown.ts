/**
 * "Does the node know this transaction?", asked before payment (DESIGN §5): a txid the node does not
 * know is `404 TX_NOT_FOUND` (JSON-RPC -32001 with `data.code`) and never charged — a payer pays for
 * an answer about a transaction, not for "unknown". A confirmed or replaced transaction is known.
 *
 * Cheapest first: the mempool mirror, the replacement history, then the node (its mempool, then its
 * transaction index or wallet). A node that does not answer propagates (503 before payment).
 */
import { Errors } from '../errors.js';
import { isAbsent } from '../node/absent.js';
import type { ApiContext } from './define.js';

type Ctx = Pick<ApiContext, 'mempool' | 'node'>;

/** For `.then(() => true, absentIsFalse)`: "the node does not know it" is false, an outage rethrows. */
export const absentIsFalse = (error: unknown): false => {
  if (isAbsent(error)) return false;
  throw error;
};

/** True when the mirror, the replacement history or the node knows `txid`. Complexity: O(1) + up to 2 node calls. */
export async function txKnown(ctx: Ctx, txid: string): Promise<boolean> {
  if (ctx.mempool.mirror.txs.has(txid) || ctx.mempool.tracker.history(txid).eventCount > 0) return true;
  if (await ctx.node.getMempoolEntry(txid).then(() => true, absentIsFalse)) return true;
  return ctx.node.getRawTransactionHex(txid).then(() => true, absentIsFalse);
}

/** @throws TX_NOT_FOUND (404) when the node does not know `txid`. */
export async function assertTxKnown(ctx: Ctx, txid: string): Promise<void> {
  if (!(await txKnown(ctx, txid))) throw new Errors.TX_NOT_FOUND(txid);
}

/**
 * A batch is a real answer when at least one txid is known (the unknown ones answer
 * `inMempoolSnapshot: false`); a batch of only unknown txids is `404 TX_NOT_FOUND` naming them.
 */
export async function assertAnyTxKnown(ctx: Ctx, txids: readonly string[]): Promise<void> {
  for (const txid of txids) if (await txKnown(ctx, txid)) return;
  throw new Errors.TX_NOT_FOUND(txids.join(', '));
}
