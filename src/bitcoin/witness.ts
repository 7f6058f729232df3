/**
 * BIP 141 block commitments: the merkle root of txids or wtxids (Core's `BlockMerkleRoot` /
 * `BlockWitnessMerkleRoot`, the last node paired with itself on odd levels) and the coinbase
 * output that commits to the witness root (`GenerateCoinbaseCommitment`: OP_RETURN, push 36,
 * `aa21a9ed`, sha256d(witness root ‖ witness reserved value)). Ids are in display hex (byte-reversed,
 * as RPCs print them); hashing works on the internal byte order.
 */
import { createHash } from 'node:crypto';
import { at } from '../util/at.js';

/** The script prefix of the witness commitment output: OP_RETURN, push 36, the commitment header. */
export const WITNESS_COMMITMENT_PREFIX = '6a24aa21a9ed';
/** The coinbase wtxid in the witness tree, and the witness reserved value Core puts in the coinbase. */
export const ZERO_HASH = '0'.repeat(64);

export function sha256d(data: Uint8Array): Buffer {
  return createHash('sha256').update(createHash('sha256').update(data).digest()).digest();
}

/** Display hex (txid, wtxid, block hash) of sha256d(bytes). */
export function hashHex(data: Uint8Array): string {
  return Buffer.from(sha256d(data)).reverse().toString('hex');
}

/** The wtxid (display hex) of a serialized transaction: sha256d of all of it, witnesses included. */
export function wtxidOfRaw(rawHex: string): string {
  return hashHex(Buffer.from(rawHex, 'hex'));
}

function internal(displayHex: string): Buffer {
  const b = Buffer.from(displayHex, 'hex');
  if (b.length !== 32) throw new RangeError(`not a 32-byte hash: ${displayHex}`);
  return b.reverse();
}

/** Merkle root (display hex) of ids in display hex. O(n). An empty list has no root. */
export function merkleRoot(ids: readonly string[]): string {
  if (ids.length === 0) throw new RangeError('a merkle tree needs at least one leaf');
  let level = ids.map(internal);
  while (level.length > 1) {
    const next: Buffer[] = [];
    for (let i = 0; i < level.length; i += 2) {
      const left = at(level, i);
      const right = level[i + 1] ?? left;
      next.push(sha256d(Buffer.concat([left, right])));
    }
    level = next;
  }
  return Buffer.from(at(level, 0)).reverse().toString('hex');
}

/**
 * `default_witness_commitment` of a block whose non-coinbase transactions have these wtxids, in
 * block order: the coinbase's wtxid counts as zero, the witness reserved value is 32 zero bytes.
 */
export function witnessCommitmentScript(wtxids: readonly string[]): string {
  return witnessCommitmentOfRoot(merkleRoot([ZERO_HASH, ...wtxids]));
}

/** The same output script from the witness merkle root (display hex) of ZERO_HASH and the wtxids. */
export function witnessCommitmentOfRoot(rootHex: string): string {
  const commitment = sha256d(Buffer.concat([internal(rootHex), Buffer.alloc(32)]));
  return WITNESS_COMMITMENT_PREFIX + commitment.toString('hex');
}
