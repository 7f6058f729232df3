/**
 * What the planner reads: one transaction, its in-mempool neighbourhood and the node's policy, as
 * plain numbers. `gather.ts` fills it from the node and the optimizer cache; tests build it by hand.
 * Fees are modified fees in satoshis; `vsize` is Core's sigop-adjusted vsize.
 */
import type { Chunker } from '../bitcoin/feerateDiagram.js';

export interface PlanTx {
  txid: string;
  feeSat: number;
  /** Sigop-adjusted virtual size (Core's `vsize`), vB. */
  vsize: number;
  /** BIP141 weight, WU. */
  weightWu: number;
  /** Sigop cost where known (0 when the weight dominates). */
  sigopCost: number;
  /** In-mempool parents. */
  parents: readonly string[];
  /** Current chunk fee rate in its cluster's linearization, sat/vB (own rate when unknown). */
  chunkRateSatVb: number;
}

export interface PlanOutput {
  n: number;
  valueSat: number;
  /** Core's `scriptPubKey.type` (`witness_v0_keyhash`, `witness_v1_taproot`, `anchor`, `nulldata`, …). */
  scriptType: string;
  address: string | null;
  /** The mempool transaction spending it, if any. */
  spentBy: string | null;
}

/** Node policy numbers, from `getmempoolinfo` (sat/kvB as Core keeps them). */
export interface NodePolicy {
  incrementalRelaySatKvb: number;
  minRelaySatKvb: number;
  mempoolMinSatKvb: number;
  clusterCountLimit: number;
  clusterSizeLimitVb: number;
  /** `v31` when the node reports chunks (cluster mempool, diagram rule); else the BIP125-style rules of v30 and older. */
  generation: 'v31' | 'pre_v31';
}

export interface TargetRate {
  satVb: number;
  /** `caller` (targetSatVb), or `fee_ladder` (the fee ladder's normal rung for targetBlocks). */
  source: 'caller' | 'fee_ladder';
  targetBlocks: number;
  derivation: string;
}

/** One projected block of the optimizer cache: its lowest chunk rate and whether that is a real cutoff. */
export interface ProjectedBlockCutoff {
  minFeeRateSatVb: number;
  full: boolean;
}

export type TxStatus =
  | { kind: 'mempool' }
  | { kind: 'confirmed'; confirmations: number; blockHash: string | null }
  | { kind: 'replaced'; by: string | null }
  | { kind: 'not_found' };

export interface BumpInputs {
  txid: string;
  status: TxStatus;
  /** Present when the transaction is in the mempool. */
  mempool?: {
    tx: PlanTx & { version: number; vsizeBip141: number };
    inputs: readonly string[];
    outputs: readonly PlanOutput[];
    /** Unconfirmed ancestors and descendants (not the tx itself). */
    ancestors: readonly PlanTx[];
    descendants: readonly PlanTx[];
    /** Every transaction of its cluster (the tx included). */
    cluster: readonly PlanTx[];
    effectiveRate: { satVb: number; source: string };
  };
  policy: NodePolicy;
  target: TargetRate;
  projection: { blocks: readonly ProjectedBlockCutoff[]; currentBlock: number | null };
  chunker?: Chunker;
}
