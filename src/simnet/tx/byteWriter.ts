/**
 * Append-only little-endian byte buffer for the few serializations the simulator hashes itself
 * (sighash preimages, block headers, merkle nodes). Transactions are encoded by @scure/btc-signer.
 */
export class ByteWriter {
  private buf: Buffer;
  private len = 0;

  constructor(initialCapacity = 256) {
    this.buf = Buffer.allocUnsafe(initialCapacity);
  }

  private ensure(extra: number): void {
    if (this.len + extra <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.len + extra));
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
  }

  bytes(data: Uint8Array): this {
    this.ensure(data.length);
    this.buf.set(data, this.len);
    this.len += data.length;
    return this;
  }

  u8(v: number): this {
    this.ensure(1);
    this.buf[this.len++] = v;
    return this;
  }

  u32(v: number): this {
    this.ensure(4);
    this.buf.writeUInt32LE(v >>> 0, this.len);
    this.len += 4;
    return this;
  }

  i32(v: number): this {
    this.ensure(4);
    this.buf.writeInt32LE(v | 0, this.len);
    this.len += 4;
    return this;
  }

  /** 64-bit little-endian amount. Precondition: 0 ≤ v < 2^53. */
  u64(v: number): this {
    this.ensure(8);
    this.buf.writeUInt32LE(v % 0x100000000, this.len);
    this.buf.writeUInt32LE(Math.floor(v / 0x100000000), this.len + 4);
    this.len += 8;
    return this;
  }

  /** Bitcoin CompactSize. */
  varint(v: number): this {
    if (v < 0xfd) return this.u8(v);
    if (v <= 0xffff) {
      this.ensure(3);
      this.buf[this.len] = 0xfd;
      this.buf.writeUInt16LE(v, this.len + 1);
      this.len += 3;
      return this;
    }
    if (v <= 0xffffffff) return this.u8(0xfe).u32(v);
    return this.u8(0xff).u64(v);
  }

  /** CompactSize length prefix followed by the bytes. */
  varBytes(data: Uint8Array): this {
    return this.varint(data.length).bytes(data);
  }

  finish(): Uint8Array {
    return this.buf.subarray(0, this.len);
  }
}

/** Serialized size of a CompactSize. */
export function varintSize(v: number): number {
  return v < 0xfd ? 1 : v <= 0xffff ? 3 : v <= 0xffffffff ? 5 : 9;
}
