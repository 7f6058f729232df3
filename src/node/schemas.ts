/**
 * zod schemas of the Bitcoin Core RPC answers we read. Core v28–v31 are accepted: fields that only
 * some versions send (v31's chunk fields, older nodes' `bip125-replaceable`) are optional.
 * Unknown fields pass through untouched. Amounts are BTC as Core sends them; wrappers convert.
 */
import { z } from 'zod';

/** A number, also accepted as a numeric string (the `bitcoin-core` client keeps huge integers as strings). */
export const num = z.union([
  z.number(),
  z
    .string()
    .regex(/^-?\d+(\.\d+)?([eE][-+]?\d+)?$/)
    .transform(Number),
]);
export const int = num.pipe(z.number().int());
export const hash = z.string().regex(/^[0-9a-f]{64}$/);
export const hex = z.string().regex(/^([0-9a-fA-F]{2})*$/);

export const BlockchainInfo = z.looseObject({
  chain: z.string(),
  blocks: int,
  headers: int,
  bestblockhash: hash,
  difficulty: num,
  time: int.optional(),
  mediantime: int,
  verificationprogress: num,
  initialblockdownload: z.boolean(),
  chainwork: z.string(),
  size_on_disk: num.optional(),
  pruned: z.boolean(),
  warnings: z.union([z.string(), z.array(z.string())]).optional(),
});
export type BlockchainInfo = z.output<typeof BlockchainInfo>;

export const BlockHeader = z.looseObject({
  hash,
  confirmations: int,
  height: int,
  version: int,
  merkleroot: hash,
  time: int,
  mediantime: int,
  nonce: num,
  bits: z.string(),
  difficulty: num,
  chainwork: z.string(),
  nTx: int,
  previousblockhash: hash.optional(),
  nextblockhash: hash.optional(),
});
export type BlockHeader = z.output<typeof BlockHeader>;

export const ScriptPubKey = z.looseObject({
  asm: z.string(),
  hex: hex,
  type: z.string(),
  address: z.string().optional(),
  desc: z.string().optional(),
});

export const Prevout = z.looseObject({
  generated: z.boolean(),
  height: int,
  value: num,
  scriptPubKey: ScriptPubKey,
});

export const TxInput = z.looseObject({
  txid: hash.optional(),
  vout: int.optional(),
  coinbase: hex.optional(),
  scriptSig: z.looseObject({ asm: z.string(), hex: hex }).optional(),
  txinwitness: z.array(hex).optional(),
  prevout: Prevout.optional(),
  sequence: num,
});

export const TxOutput = z.looseObject({
  value: num,
  n: int,
  scriptPubKey: ScriptPubKey,
});

/** `decoderawtransaction`, and the body of verbose `getrawtransaction` / `getblock 2`. */
export const DecodedTx = z.looseObject({
  txid: hash,
  hash: hash,
  version: int,
  size: int,
  vsize: int,
  weight: int,
  locktime: int,
  vin: z.array(TxInput),
  vout: z.array(TxOutput),
  fee: num.optional(),
  hex: hex.optional(),
});
export type DecodedTx = z.output<typeof DecodedTx>;

export const RawTransaction = DecodedTx.extend({
  blockhash: hash.optional(),
  confirmations: int.optional(),
  time: int.optional(),
  blocktime: int.optional(),
});
export type RawTransaction = z.output<typeof RawTransaction>;

/** A block's header fields as `getblock` reports them, plus its sizes. */
const BlockBase = BlockHeader.extend({ size: int, strippedsize: int.optional(), weight: int });
export const BlockVerbose1 = BlockBase.extend({ tx: z.array(hash) });
export type BlockVerbose1 = z.output<typeof BlockVerbose1>;
export const BlockVerbose2 = BlockBase.extend({ tx: z.array(DecodedTx) });
export type BlockVerbose2 = z.output<typeof BlockVerbose2>;

/** One `getrawmempool true` / `getmempoolentry` entry (fees in BTC). */
export const MempoolEntry = z.looseObject({
  vsize: int,
  weight: int.optional(),
  time: int,
  height: int,
  descendantcount: int,
  descendantsize: int,
  ancestorcount: int,
  ancestorsize: int,
  wtxid: hash.optional(),
  fees: z.looseObject({
    base: num,
    modified: num,
    ancestor: num,
    descendant: num,
    /** v31: fee of the chunk this tx is in. */
    chunk: num.optional(),
  }),
  depends: z.array(hash),
  spentby: z.array(hash),
  'bip125-replaceable': z.boolean().optional(),
  unbroadcast: z.boolean().optional(),
  /** v31: weight of the tx's chunk, and the sigop-adjusted vsize. */
  chunkweight: int.optional(),
  vsize_adjusted: int.optional(),
});
export type MempoolEntry = z.output<typeof MempoolEntry>;

export const VerboseMempool = z.record(hash, MempoolEntry);
export type VerboseMempool = z.output<typeof VerboseMempool>;

export const MempoolInfo = z.looseObject({
  loaded: z.boolean().optional(),
  size: int,
  bytes: int,
  usage: int,
  total_fee: num.optional(),
  maxmempool: int,
  mempoolminfee: num,
  minrelaytxfee: num,
  incrementalrelayfee: num.optional(),
  unbroadcastcount: int.optional(),
  fullrbf: z.boolean().optional(),
  limitclustercount: int.optional(),
  limitclustersize: int.optional(),
  optimal: z.boolean().optional(),
});
export type MempoolInfo = z.output<typeof MempoolInfo>;

export const SmartFee = z.looseObject({
  feerate: num.optional(),
  errors: z.array(z.string()).optional(),
  blocks: int,
});
export type SmartFee = z.output<typeof SmartFee>;

export const BlockTemplateTx = z.looseObject({
  data: hex,
  txid: hash,
  hash: hash,
  depends: z.array(int),
  fee: int,
  sigops: int,
  weight: int,
});
export const BlockTemplate = z.looseObject({
  version: int,
  previousblockhash: hash,
  transactions: z.array(BlockTemplateTx),
  coinbasevalue: int,
  target: z.string(),
  mintime: int,
  curtime: int,
  bits: z.string(),
  height: int,
  weightlimit: int.optional(),
  sigoplimit: int.optional(),
  sizelimit: int.optional(),
});
export type BlockTemplate = z.output<typeof BlockTemplate>;

export const MempoolAcceptResult = z.array(
  z.looseObject({
    txid: hash,
    wtxid: hash.optional(),
    allowed: z.boolean().optional(),
    vsize: int.optional(),
    fees: z.looseObject({ base: num }).optional(),
    'reject-reason': z.string().optional(),
    'reject-details': z.string().optional(),
  }),
);
export type MempoolAcceptResult = z.output<typeof MempoolAcceptResult>;

export const ScanTxOutSet = z.looseObject({
  success: z.boolean(),
  txouts: int.optional(),
  height: int,
  bestblock: hash,
  unspents: z.array(
    z.looseObject({
      txid: hash,
      vout: int,
      scriptPubKey: hex,
      desc: z.string().optional(),
      amount: num,
      coinbase: z.boolean().optional(),
      height: int,
    }),
  ),
  total_amount: num,
});
export type ScanTxOutSet = z.output<typeof ScanTxOutSet>;

export const MempoolCluster = z.looseObject({
  clusterweight: int,
  txcount: int,
  chunks: z.array(z.looseObject({ chunkfee: num, chunkweight: int, txs: z.array(hash) })),
});
