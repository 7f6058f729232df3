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
import { btcToSats } from '../../node/bitcoinNode.js';
import type { BlockVerbose1, BlockVerbose2, DecodedTx } from '../../node/schemas.js';
import { transactionBasics } from '../decodedTransaction.js';
import { hexHash, hexQuantity } from './rpcMethod.js';

const ZERO_HASH = `0x${'00'.repeat(32)}` as const;
const ZERO_ADDRESS = `0x${'00'.repeat(20)}` as const;
const EMPTY_BLOOM = `0x${'00'.repeat(256)}` as const;
/** keccak256(rlp([])): the "no uncles" hash every EVM block carries. */
const EMPTY_UNCLES = '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347' as const;
const MAX_BLOCK_WEIGHT = 4_000_000;

export interface EvmTxContext {
  blockHash: string | null;
  blockHeight: number | null;
  index: number | null;
  chainId: number;
}

export function evmTransaction(tx: DecodedTx, at: EvmTxContext) {
  const valueSat = tx.vout.reduce((sum, o) => sum + btcToSats(o.value), 0);
  const feeSat = tx.fee !== undefined ? btcToSats(tx.fee) : null;
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

export function evmBlock(block: BlockVerbose1 | BlockVerbose2, chainId: number) {
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
    gasLimit: hexQuantity(MAX_BLOCK_WEIGHT),
    gasUsed: hexQuantity(block.weight),
    timestamp: hexQuantity(block.time),
    mixHash: ZERO_HASH,
    uncles: [] as string[],
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
      medianTime: block.mediantime,
      chainwork: block.chainwork,
      confirmations: block.confirmations,
    },
  };
}
