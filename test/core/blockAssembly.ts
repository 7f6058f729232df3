/**
 * Assembles a block from a `getblocktemplate` answer as a pool does: a coinbase paying
 * `coinbasevalue` (BIP 34 height, the witness reserved value, the `default_witness_commitment`
 * output), the merkle root, the 80-byte header, and a nonce ground until the hash meets `target`
 * (easy on regtest). Hand-rolled serialization: what a pool does, not our service's code.
 */
import { createHash } from 'node:crypto';

const sha256d = (b: Buffer) => createHash('sha256').update(createHash('sha256').update(b).digest()).digest();
const le32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
};
const le64 = (n: number) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(n));
  return b;
};
function varint(n: number): Buffer {
  if (n < 0xfd) return Buffer.from([n]);
  if (n <= 0xffff) return Buffer.concat([Buffer.from([0xfd]), Buffer.from([n & 0xff, n >> 8])]);
  return Buffer.concat([Buffer.from([0xfe]), le32(n)]);
}
const pushed = (data: Buffer) => Buffer.concat([varint(data.length), data]);
const internal = (displayHex: string) => Buffer.from(displayHex, 'hex').reverse();

/** CScriptNum of a positive height, as BIP 34 pushes it. */
function scriptNum(n: number): Buffer {
  const bytes: number[] = [];
  while (n > 0) {
    bytes.push(n & 0xff);
    n >>= 8;
  }
  if ((bytes.at(-1) ?? 0) & 0x80) bytes.push(0);
  return Buffer.from(bytes);
}

export interface TemplateForBlock {
  version: number;
  previousblockhash: string;
  curtime: number;
  bits: string;
  target: string;
  height: number;
  coinbasevalue: number;
  default_witness_commitment: string;
  transactions: Array<{ data: string; txid: string }>;
}

export interface AssembledBlock {
  hex: string;
  hash: string;
  coinbaseTxid: string;
}

function merkleRoot(leaves: Buffer[]): Buffer {
  let level = leaves;
  while (level.length > 1) {
    const next: Buffer[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(sha256d(Buffer.concat([level[i] as Buffer, (level[i + 1] ?? level[i]) as Buffer])));
    level = next;
  }
  return level[0] as Buffer;
}

/** The block paying `coinbasevalue` to `payoutScriptHex`. */
export function assembleBlock(t: TemplateForBlock, payoutScriptHex: string): AssembledBlock {
  const heightPush = scriptNum(t.height);
  const scriptSig = Buffer.concat([Buffer.from([heightPush.length]), heightPush, Buffer.from('0a706f6f6c2d74657374', 'hex')]);
  const input = Buffer.concat([Buffer.alloc(32), le32(0xffffffff), pushed(scriptSig), le32(0xffffffff)]);
  const outputs = Buffer.concat([
    varint(2),
    le64(t.coinbasevalue),
    pushed(Buffer.from(payoutScriptHex, 'hex')),
    le64(0),
    pushed(Buffer.from(t.default_witness_commitment, 'hex')),
  ]);
  const version = le32(2);
  const locktime = le32(0);
  const stripped = Buffer.concat([version, varint(1), input, outputs, locktime]);
  // Witness: one stack item, the 32-byte witness reserved value (zeros).
  const witness = Buffer.concat([varint(1), pushed(Buffer.alloc(32))]);
  const full = Buffer.concat([version, Buffer.from([0x00, 0x01]), varint(1), input, outputs, witness, locktime]);
  const coinbaseTxid = Buffer.from(sha256d(stripped)).reverse().toString('hex');
  const root = merkleRoot([internal(coinbaseTxid), ...t.transactions.map((tx) => internal(tx.txid))]);
  const target = BigInt(`0x${t.target}`);
  const header = Buffer.concat([le32(t.version), internal(t.previousblockhash), root, le32(t.curtime), le32(parseInt(t.bits, 16)), le32(0)]);
  for (let nonce = 0; ; nonce++) {
    header.writeUInt32LE(nonce, 76);
    const hash = Buffer.from(sha256d(header)).reverse();
    if (BigInt(`0x${hash.toString('hex')}`) <= target) {
      const body = Buffer.concat([header, varint(t.transactions.length + 1), full, ...t.transactions.map((tx) => Buffer.from(tx.data, 'hex'))]);
      return { hex: body.toString('hex'), hash: hash.toString('hex'), coinbaseTxid };
    }
  }
}
