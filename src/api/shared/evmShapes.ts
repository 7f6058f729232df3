/**
 * Bitcoin blocks and transactions in the shape EVM client libraries parse (viem's `formatBlock` /
 * `formatTransaction`), with the Bitcoin fields beside under `bitcoin`.
 *
 * Mapping: `number` = height, `hash`/`parentHash` = block hashes, `timestamp` = header time,
 * `gasLimit` = 4,000,000 (max block weight), `gasUsed` = block weight, `size` = serialized size,
 * `difficulty` = rounded difficulty, `totalDifficulty` = chainwork, `transactionsRoot` = merkle root.
 * A transaction's `value` is its total output in satoshis, `gas` its vsize and `gasPrice` its fee
 * rate in sat/kvB (the unit of `eth_gasPrice`). Fields without a Bitcoin meaning are zero.
 */
import { z } from 'zod';
import { MAX_BLOCK_WEIGHT_WU } from '../../bitcoin/consensus.js';
import { btcToSats, isoFromUnix } from '../../bitcoin/units.js';
import type { BlockVerbose1, BlockVerbose2, DecodedTx } from '../../node/schemas.js';
import { TransactionBasics, transactionBasics } from './decodedTransaction.js';
import { Hash, HexQuantity, IsoTime, Sat } from '../schemas.js';
import { hexHash, hexQuantity } from './hex.js';

const ZERO_HASH = `0x${'00'.repeat(32)}` as const;
const ZERO_ADDRESS = `0x${'00'.repeat(20)}` as const;
const EMPTY_BLOOM = `0x${'00'.repeat(256)}` as const;
/** keccak256(rlp([])): the "no uncles" hash every EVM block carries. */
const EMPTY_UNCLES = '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347' as const;

const Hex32 = z.string().regex(/^0x[0-9a-f]{64}$/);
const HexData = z.string().regex(/^0x([0-9a-f]{2})*$/);
const Address20 = z.string().regex(/^0x[0-9a-f]{40}$/);

export const EvmTransaction = z.object({
  hash: Hex32,
  blockHash: Hex32.nullable(),
  blockNumber: HexQuantity.nullable(),
  transactionIndex: HexQuantity.nullable(),
  from: Address20,
  to: z.null(),
  value: HexQuantity,
  gas: HexQuantity,
  /** Fee rate in sat/kvB (the unit of `eth_gasPrice`); null only when the fee cannot be known. */
  gasPrice: HexQuantity.nullable(),
  input: HexData,
  nonce: HexQuantity,
  type: HexQuantity,
  chainId: HexQuantity,
  v: HexQuantity,
  r: HexQuantity,
  s: HexQuantity,
  bitcoin: TransactionBasics.extend({
    inputCount: z.number().int(),
    outputs: z.array(z.object({ n: z.number().int(), valueSat: Sat, address: z.string().nullable(), scriptType: z.string() })),
  }),
});

export const EvmBlock = z.object({
  number: HexQuantity,
  hash: Hex32,
  parentHash: Hex32,
  nonce: z.string().regex(/^0x[0-9a-f]{16}$/),
  sha3Uncles: Hex32,
  logsBloom: HexData,
  transactionsRoot: Hex32,
  stateRoot: Hex32,
  receiptsRoot: Hex32,
  miner: Address20,
  difficulty: HexQuantity,
  totalDifficulty: HexQuantity,
  extraData: HexData,
  size: HexQuantity,
  gasLimit: HexQuantity,
  gasUsed: HexQuantity,
  timestamp: HexQuantity,
  mixHash: Hex32,
  uncles: z.array(Hex32),
  /** Txids (`0x…`) or, with `fullTransactions`, transactions in EVM shape. */
  transactions: z.array(z.union([Hex32, EvmTransaction])),
  bitcoin: z.object({
    height: z.number().int(),
    hash: Hash,
    version: z.number().int(),
    bits: z.string(),
    merkleRoot: Hash,
    weight: z.number().int(),
    strippedSize: z.number().int().nullable(),
    txCount: z.number().int(),
    medianTime: IsoTime,
    chainwork: z.string(),
    confirmations: z.number().int(),
  }),
});

export interface EvmTxContext {
  blockHash: string | null;
  blockHeight: number | null;
  index: number | null;
  chainId: number;
  /**
   * The fee in sat when the decoded transaction does not carry it: Core reports `fee` only for
   * confirmed transactions, so a mempool transaction's comes from its mempool entry.
   */
  feeSat?: number | null;
}

export function evmTransaction(tx: DecodedTx, at: EvmTxContext): z.input<typeof EvmTransaction> {
  const valueSat = tx.vout.reduce((sum, o) => sum + btcToSats(o.value), 0);
  const feeSat = tx.fee !== undefined ? btcToSats(tx.fee) : (at.feeSat ?? null);
  return {
    hash: hexHash(tx.txid),
    blockHash: at.blockHash ? hexHash(at.blockHash) : null,
    blockNumber: at.blockHeight === null ? null : hexQuantity(at.blockHeight),
    transactionIndex: at.index === null ? null : hexQuantity(at.index),
    from: ZERO_ADDRESS,
    to: null,
    value: hexQuantity(valueSat),
    gas: hexQuantity(tx.vsize),
    gasPrice: feeSat === null ? null : hexQuantity(Math.round((feeSat * 1000) / tx.vsize)),
    input: '0x',
    nonce: '0x0',
    type: '0x0',
    chainId: hexQuantity(at.chainId),
    v: '0x0',
    r: '0x0',
    s: '0x0',
    bitcoin: {
      ...transactionBasics(tx, feeSat),
      inputCount: tx.vin.length,
      outputs: tx.vout.map((o) => ({ n: o.n, valueSat: btcToSats(o.value), address: o.scriptPubKey.address ?? null, scriptType: o.scriptPubKey.type })),
    },
  };
}

export function evmBlock(block: BlockVerbose1 | BlockVerbose2, chainId: number): z.input<typeof EvmBlock> {
  const transactions = block.tx.map((tx, index) =>
    typeof tx === 'string' ? hexHash(tx) : evmTransaction(tx, { blockHash: block.hash, blockHeight: block.height, index, chainId }),
  );
  return {
    number: hexQuantity(block.height),
    hash: hexHash(block.hash),
    parentHash: block.previousblockhash ? hexHash(block.previousblockhash) : ZERO_HASH,
    nonce: `0x${Math.round(block.nonce).toString(16).padStart(16, '0')}`,
    sha3Uncles: EMPTY_UNCLES,
    logsBloom: EMPTY_BLOOM,
    transactionsRoot: hexHash(block.merkleroot),
    stateRoot: ZERO_HASH,
    receiptsRoot: ZERO_HASH,
    miner: ZERO_ADDRESS,
    difficulty: hexQuantity(BigInt(Math.max(1, Math.round(block.difficulty)))),
    totalDifficulty: hexQuantity(BigInt(`0x${block.chainwork}`)),
    extraData: '0x',
    size: hexQuantity(block.size),
    gasLimit: hexQuantity(MAX_BLOCK_WEIGHT_WU),
    gasUsed: hexQuantity(block.weight),
    timestamp: hexQuantity(block.time),
    mixHash: ZERO_HASH,
    uncles: [],
    transactions,
    bitcoin: {
      height: block.height,
      hash: block.hash,
      version: block.version,
      bits: block.bits,
      merkleRoot: block.merkleroot,
      weight: block.weight,
      strippedSize: block.strippedsize ?? null,
      txCount: block.nTx,
      medianTime: isoFromUnix(block.mediantime),
      chainwork: block.chainwork,
      confirmations: block.confirmations,
    },
  };
}
