/**
 * The shapes of a published cycle's parts that leave the process twice: in the cache's wire format
 * (leadership/cacheCodec.ts, parsed on every follower) and in the API's answers (cache-stats,
 * capabilities, optimized-txids). Declared once here, so the two cannot drift apart.
 */
import { z } from 'zod';

const num = z.number().finite();
const int = z.number().int();
export const hash = z.string().regex(/^[0-9a-f]{64}$/);

/** A cycle's cluster statistics (the native result's `clusters`). */
export const ClusterStatsShape = z.object({
  count: int.nonnegative(),
  largest: int.nonnegative().describe('Transactions in the largest cluster'),
  optimalCount: int.nonnegative().describe('Clusters whose linearization (by sigop-adjusted weight, as Core) is proven optimal'),
  over64Count: int.nonnegative().describe('Clusters of more than 64 transactions'),
  linearizeCost: num.describe('Work units the linearizer spent'),
  chunkCount: int.nonnegative(),
  realWeightRelinearized: int
    .nonnegative()
    .describe('Clusters with a sigop-adjusted transaction, re-linearized by real weight for the optimized template and the bound'),
  reusedCount: int.nonnegative().describe('Clusters unchanged since the previous incremental cycle whose linearization was reused (0 on a full cycle)'),
});

/** The optimized template against the baseline of the same cycle (`TemplateCache.comparison`). */
export const ComparisonShape = z.object({
  available: z.boolean(),
  reason: z.string().max(500).nullable(),
  sameTip: z.boolean().describe('The baseline was built on the same tip as our mempool snapshot'),
  optimizedOnlyTxidCount: int,
  overlapTxidCount: int,
  baselineOnlyTxidCount: int,
  optimizedFeeSat: num,
  baselineFeeSat: num,
  feeDeltaSat: num.describe('optimized − baseline, sat'),
  baselineTxidsNotInSnapshot: int.describe('Baseline txids absent from our snapshot (mined, replaced or evicted between the two reads)'),
  optimizedHeight: int,
  baselineHeight: int,
  previousBlockHash: hash,
});

/** A template's digest in a receipt: SHA-256 of its txids in block order (hex, joined by '\n') and its totals. */
const ReceiptDigestShape = z.object({ txidsSha256: hash, txCount: int.nonnegative(), feeSat: num, weightWu: num });

/**
 * What a cycle's receipt signs (receipts.ts). Key order follows how receipts.ts builds the payload,
 * so a follower's receipt serializes byte for byte as the leader's.
 */
export const ReceiptPayloadShape = z.object({
  schema: z.literal('bench-receipt/1'),
  alg: z.literal('Ed25519'),
  keyId: z.string().max(64),
  cycle: int.positive(),
  height: int.nonnegative(),
  previousBlockHash: hash,
  cachedAt: z.string().max(40),
  optimized: ReceiptDigestShape,
  baseline: ReceiptDigestShape.extend({ source: z.string().max(40) }),
  upperBound: z.object({ feeSat: num, exact: z.boolean() }),
});
