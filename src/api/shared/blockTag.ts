import { z } from 'zod';
import type { BitcoinNode } from '../../node/bitcoinNode.js';

/** Ethereum block tags and hex heights. */
export const BlockTag = z.union([
  z.enum(['latest', 'earliest', 'pending', 'safe', 'finalized']),
  z.string().regex(/^0x(0|[1-9a-fA-F][0-9a-fA-F]{0,15})$/, 'a block tag or a hex quantity'),
]);
export type BlockTag = z.output<typeof BlockTag>;

/** Confirmations after which a Bitcoin block is customarily final. */
const FINALITY_CONFIRMATIONS = 6;

/**
 * Height a tag names: `latest`/`pending` = tip (Bitcoin has no pending block object), `safe` = tip − 1,
 * `finalized` = tip − 5 (6 confirmations), `earliest` = 0, or the hex height itself.
 */
export async function resolveBlockTag(node: BitcoinNode, tag: BlockTag): Promise<number> {
  if (tag === 'earliest') return 0;
  if (tag.startsWith('0x')) return Number.parseInt(tag.slice(2), 16);
  const tip = await node.getBlockCount();
  if (tag === 'safe') return Math.max(0, tip - 1);
  if (tag === 'finalized') return Math.max(0, tip - (FINALITY_CONFIRMATIONS - 1));
  return tip;
}
