/** What route plugins receive: the app's dependencies and the services built from them. */
import type { AppDeps } from '../app.js';
import type { ProjectedFeeRate } from '../fees/projectedFeeRate.js';
import type { SmartFeeCache } from '../fees/smartFeeCache.js';
import type { ChainState } from '../node/chainState.js';

export interface RouteContext {
  deps: AppDeps;
  chain: ChainState;
  /** Fee rate to be mined within `blocks` blocks from the current mempool, or null before the first view. */
  projection(blocks: number): ProjectedFeeRate | null;
  /** The node's lowest accepted fee rate now (max of mempool minimum and min relay fee), sat/vB. */
  floorFeeRateSatVb(): number;
  /** Chunk fee rate (sat/vB) of a mempool tx from the optimizer's last cycle. */
  optimizerChunkRate(txid: string): number | undefined;
  /** 1-based projected block of a mempool tx from the optimizer's last cycle; `beyond` past the last projected block. */
  optimizerProjectedBlock(txid: string): { block: number; beyond: boolean } | undefined;
  /** Sections other concerns add to `/health` (optimizer, payments). */
  healthExtras(): Record<string, unknown>;
  /** `"<METHOD> <url>"` of every registered route (filled as routes register). */
  restRoutes: string[];
  /** Names of the JSON-RPC methods served. */
  rpcMethods: string[];
  /** `estimatesmartfee` answers, briefly cached. */
  smartFees: SmartFeeCache;
}
