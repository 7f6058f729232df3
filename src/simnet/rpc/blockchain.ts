/**
 * Blockchain RPCs of the simulated node: `getblockchaininfo`, `getblockcount`, `getbestblockhash`,
 * `getblockhash`, `getblockheader`, `getblock` (verbosity 0–3), `getdifficulty`. Field names,
 * order and units follow Core v31 (`blockheaderToJSON`, `blockToJSON` in src/rpc/blockchain.cpp).
 */
import { difficulty, serializeBlock, targetFromBits } from '../chain/block.js';
import type { Chain, ChainBlock } from '../chain/chain.js';
import { toHex } from '../tx/hash.js';
import { RPC_ERROR, RpcError } from './errors.js';
import { parseHash, parseInt32, parseVerbosity } from './params.js';
import { txJson } from './txJson.js';
import type { MethodTable } from './rpcMethod.js';

const hex32 = (n: bigint): string => n.toString(16).padStart(64, '0');
const hex8 = (n: number): string => (n >>> 0).toString(16).padStart(8, '0');

function findBlock(chain: Chain, hashParam: unknown): ChainBlock {
  const block = chain.blockByHash(parseHash(hashParam, 'blockhash'));
  if (!block) throw new RpcError(RPC_ERROR.INVALID_ADDRESS_OR_KEY, 'Block not found');
  return block;
}

/** Core's `blockheaderToJSON`. */
export function headerJson(chain: Chain, block: ChainBlock): Record<string, unknown> {
  const next = chain.blockAt(block.height + 1);
  return {
    hash: block.hash,
    confirmations: chain.height - block.height + 1,
    height: block.height,
    version: block.version,
    versionHex: hex8(block.version),
    merkleroot: block.merkleRoot,
    time: block.time,
    mediantime: block.medianTime,
    nonce: block.nonce,
    bits: hex8(block.bits),
    target: hex32(targetFromBits(block.bits)),
    difficulty: difficulty(block.bits),
    chainwork: hex32(block.chainWork),
    nTx: block.txs.length,
    ...(block.height > 0 ? { previousblockhash: block.prevHash } : {}),
    ...(next ? { nextblockhash: next.hash } : {}),
  };
}

export const blockchainMethods: MethodTable = {
  getblockchaininfo: {
    params: [],
    description: 'Returns an object containing various state info regarding blockchain processing.',
    run: (_args, sim) => {
      const tip = sim.chain.tip;
      return {
        chain: 'regtest',
        blocks: tip.height,
        headers: tip.height,
        bestblockhash: tip.hash,
        bits: hex8(tip.bits),
        target: hex32(targetFromBits(tip.bits)),
        difficulty: difficulty(tip.bits),
        time: tip.time,
        mediantime: tip.medianTime,
        verificationprogress: 1,
        initialblockdownload: false,
        chainwork: hex32(tip.chainWork),
        size_on_disk: sim.chain.blocks.reduce((s, b) => s + b.size + 8, 0),
        pruned: false,
        warnings: [],
      };
    },
  },
  getblockcount: {
    params: [],
    description: 'Returns the height of the most-work fully-validated chain.',
    run: (_args, sim) => sim.chain.height,
  },
  getbestblockhash: {
    params: [],
    description: 'Returns the hash of the best (tip) block in the most-work fully-validated chain.',
    run: (_args, sim) => sim.chain.tip.hash,
  },
  getdifficulty: {
    params: [],
    description: 'Returns the proof-of-work difficulty as a multiple of the minimum difficulty.',
    run: (_args, sim) => difficulty(sim.chain.tip.bits),
  },
  getblockhash: {
    params: [{ name: 'height', type: 'number', required: true }],
    description: 'Returns hash of block in best-block-chain at height provided.',
    run: ([height], sim) => {
      const h = parseInt32(height);
      const block = sim.chain.blockAt(h);
      if (h < 0 || !block) throw new RpcError(RPC_ERROR.INVALID_PARAMETER, 'Block height out of range');
      return block.hash;
    },
  },
  getblockheader: {
    params: [
      { name: 'blockhash', type: 'string', required: true },
      { name: 'verbose', type: 'bool' },
    ],
    description: "If verbose is false, returns a string that is serialized, hex-encoded data for blockheader 'hash'.",
    run: ([hash, verbose], sim) => {
      const block = findBlock(sim.chain, hash);
      return verbose === false ? toHex(block.header) : headerJson(sim.chain, block);
    },
  },
  getblock: {
    params: [
      { name: 'blockhash', type: 'string', required: true },
      { name: 'verbosity', type: 'verbosity' },
    ],
    description:
      'If verbosity is 0, returns a string that is serialized, hex-encoded data for block. 1: an object; 2: with transaction data and fees; 3: with prevouts.',
    run: ([hash, verbosityParam], sim) => {
      const block = findBlock(sim.chain, hash);
      const verbosity = parseVerbosity(verbosityParam, 1);
      if (verbosity <= 0) return toHex(serializeBlock(block));
      const tx =
        verbosity === 1
          ? block.txs.map((t) => t.txid)
          : block.txs.map((t, i) => txJson(t, { spent: i === 0 ? undefined : block.spent[i], prevouts: verbosity >= 3, includeHex: true }));
      return { ...headerJson(sim.chain, block), strippedsize: block.strippedSize, size: block.size, weight: block.weight, tx };
    },
  },
};
