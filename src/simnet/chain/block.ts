/**
 * Real blocks: BIP34 coinbase (height push), BIP141 witness commitment, merkle root over txids,
 * an 80-byte header whose nonce is ground until double SHA-256 of the header meets the regtest
 * target (bits 0x207fffff, about one hash in two). Also the regtest genesis block, byte for byte.
 */
import { OP } from '@scure/btc-signer';
import { ByteWriter, varintSize } from '../tx/byteWriter.js';
import { BLOCK_VERSION, REGTEST_BITS, SEQUENCE_FINAL } from '../consensus/params.js';
import { displayHex, fromDisplayHex, fromHex, sha256d } from '../tx/hash.js';
import { buildTx, NULL_TXID, type SimTx, type TxOutput } from '../tx/txCodec.js';
import { at } from '../../util/at.js';
import { merkleRoot as bitcoinMerkleRoot, witnessCommitmentScript } from '../../bitcoin/witness.js';

export interface BlockHeader {
  version: number;
  prevHash: string;
  merkleRoot: string;
  time: number;
  bits: number;
  nonce: number;
}

export interface AssembledBlock extends BlockHeader {
  hash: string;
  header: Uint8Array;
  /** Coinbase first. */
  txs: SimTx[];
  size: number;
  strippedSize: number;
  weight: number;
}

export const REGTEST_GENESIS_HASH = '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206';

/** Target of compact `bits` as a big integer. */
export function targetFromBits(bits: number): bigint {
  const exponent = bits >>> 24;
  const mantissa = BigInt(bits & 0x007fffff);
  return exponent <= 3 ? mantissa >> BigInt(8 * (3 - exponent)) : mantissa << BigInt(8 * (exponent - 3));
}

/** Work of one block at `bits`: 2^256 / (target + 1). Regtest: 2. */
export function blockWork(bits: number): bigint {
  return (1n << 256n) / (targetFromBits(bits) + 1n);
}

/** Difficulty relative to the mainnet minimum (Core's `GetDifficulty`). */
export function difficulty(bits: number): number {
  let shift = (bits >>> 24) & 0xff;
  let diff = 0x0000ffff / (bits & 0x00ffffff);
  while (shift < 29) {
    diff *= 256;
    shift++;
  }
  while (shift > 29) {
    diff /= 256;
    shift--;
  }
  return diff;
}

export function serializeHeader(h: BlockHeader): Uint8Array {
  return new ByteWriter(80).u32(h.version).bytes(fromDisplayHex(h.prevHash)).bytes(fromDisplayHex(h.merkleRoot)).u32(h.time).u32(h.bits).u32(h.nonce).finish();
}

/** Merkle root of display-order hashes (Bitcoin's rule, `src/bitcoin/witness.ts`); no hash is the null hash. */
export function merkleRoot(hashes: readonly string[]): string {
  return hashes.length === 0 ? NULL_TXID : bitcoinMerkleRoot(hashes);
}

/** `CScript() << height`: OP_1..OP_16 for small heights, else a minimal CScriptNum push. */
function heightPush(height: number): Uint8Array {
  if (height >= 1 && height <= 16) return new Uint8Array([OP.OP_1 + height - 1]);
  const bytes: number[] = [];
  for (let v = height; v > 0; v = Math.floor(v / 256)) bytes.push(v % 256);
  if ((bytes.at(-1) ?? 0) & 0x80) bytes.push(0);
  return new Uint8Array([bytes.length, ...bytes]);
}

/**
 * Coinbase of a block at `height`: scriptSig `<height> OP_0` (as Core's miner), locked to the
 * previous height with a non-final sequence (v30+), paying `rewardSat` to `payoutScript`, plus the
 * witness commitment output over `wtxids` (all but the coinbase) and the zero reserved value.
 */
export function buildCoinbase(height: number, rewardSat: number, payoutScript: Uint8Array, wtxids: readonly string[]): SimTx {
  const reserved = new Uint8Array(32);
  const commitmentScript = fromHex(witnessCommitmentScript(wtxids));
  const outputs: TxOutput[] = [
    { valueSat: rewardSat, script: payoutScript },
    { valueSat: 0, script: commitmentScript },
  ];
  return buildTx({
    version: 2,
    lockTime: height - 1,
    inputs: [
      {
        txid: NULL_TXID,
        vout: 0xffffffff,
        scriptSig: Buffer.concat([heightPush(height), Buffer.from([OP.OP_0])]),
        sequence: SEQUENCE_FINAL - 1,
        witness: [reserved],
      },
    ],
    outputs,
  });
}

/** The witness commitment script of a coinbase built by `buildCoinbase` (for `default_witness_commitment`). */
export function witnessCommitmentHex(coinbase: SimTx): string {
  return Buffer.from(at(coinbase.outputs, 1).script).toString('hex');
}

/**
 * Assembles and mines a block: merkle root, header, nonce ground until the hash meets `bits`.
 * Complexity: O(total tx size) + on average 2 header hashes on regtest.
 */
export function assembleBlock(prevHash: string, time: number, txs: SimTx[], bits = REGTEST_BITS, version = BLOCK_VERSION, startNonce = 0): AssembledBlock {
  const header: BlockHeader = { version, prevHash, merkleRoot: merkleRoot(txs.map((t) => t.txid)), time, bits, nonce: startNonce };
  const target = targetFromBits(bits);
  let bytes = serializeHeader(header);
  let hash = sha256d(bytes);
  while (BigInt(`0x${displayHex(hash)}`) > target) {
    header.nonce++;
    if (header.nonce > 0xffffffff) throw new Error('nonce space exhausted'); // impossible at regtest difficulty
    bytes = serializeHeader(header);
    hash = sha256d(bytes);
  }
  let size = 80 + varintSize(txs.length);
  let strippedSize = size;
  for (const tx of txs) {
    size += tx.size;
    strippedSize += tx.baseSize;
  }
  return { ...header, hash: displayHex(hash), header: bytes, txs, size, strippedSize, weight: strippedSize * 3 + size };
}

/** Serialized block (header, tx count, transactions). */
export function serializeBlock(block: AssembledBlock): Uint8Array {
  const w = new ByteWriter(block.size).bytes(block.header).varint(block.txs.length);
  for (const tx of block.txs) w.bytes(tx.raw);
  return w.finish();
}

/** The regtest genesis block (chainparams.cpp `CreateGenesisBlock(1296688602, 2, 0x207fffff, 1, 50 * COIN)`). */
export function regtestGenesis(): AssembledBlock {
  const coinbase = buildTx({
    version: 1,
    lockTime: 0,
    inputs: [
      {
        txid: NULL_TXID,
        vout: 0xffffffff,
        scriptSig: fromHex(
          '04ffff001d0104455468652054696d65732030332f4a616e2f32303039204368616e63656c6c6f72206f6e206272696e6b206f66207365636f6e64206261696c6f757420666f722062616e6b73',
        ),
        sequence: SEQUENCE_FINAL,
        witness: [],
      },
    ],
    outputs: [
      {
        valueSat: 50 * 100_000_000,
        script: fromHex(
          '4104678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb649f6bc3f4cef38c4f35504e51ec112de5c384df7ba0b8d578a4c702b6bf11d5fac',
        ),
      },
    ],
  });
  // Nonce 0 already meets the regtest target; the historical genesis used 2.
  const block = assembleBlock(NULL_TXID, 1296688602, [coinbase], REGTEST_BITS, 1, 2);
  if (block.hash !== REGTEST_GENESIS_HASH || block.nonce !== 2) throw new Error(`genesis mismatch: ${block.hash}`);
  return block;
}
