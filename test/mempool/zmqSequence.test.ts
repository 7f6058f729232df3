import { afterEach, describe, expect, it } from 'vitest';
import { Publisher } from 'zeromq';
import { Transaction } from '@scure/btc-signer';
import { hex } from '@scure/base';

import type { MempoolEvent } from '../../src/mempool/mempoolEvents.js';
import { RawTxRing, txidOfRaw } from '../../src/mempool/rawTxRing.js';
import { parseSequenceBody, ZmqSequenceSource } from '../../src/mempool/zmqSequence.js';
import { freePort } from '../helpers/loopback.js';

const HASH = 'ab'.repeat(31) + 'cd';

/** A `sequence` body as Core writes it: hash (display order), label, mempool sequence for A/R. */
function body(label: 'A' | 'R' | 'C' | 'D', hash: string, sequence?: number): Buffer {
  const parts = [Buffer.from(hash, 'hex'), Buffer.from(label)];
  if (sequence !== undefined) {
    const n = Buffer.alloc(8);
    n.writeBigUInt64LE(BigInt(sequence));
    parts.push(n);
  }
  return Buffer.concat(parts);
}
const counter = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
};

describe('parseSequenceBody', () => {
  it('default: the four labels of Core’s sequence topic', () => {
    expect(parseSequenceBody(body('A', HASH, 7))).toEqual({ kind: 'added', txid: HASH, mempoolSequence: 7 });
    expect(parseSequenceBody(body('R', HASH, 2 ** 40))).toEqual({ kind: 'removed', txid: HASH, mempoolSequence: 2 ** 40 });
    expect(parseSequenceBody(body('C', HASH))).toEqual({ kind: 'connected', hash: HASH });
    expect(parseSequenceBody(body('D', HASH))).toEqual({ kind: 'disconnected', hash: HASH });
  });

  it('error: a malformed body is null', () => {
    expect(parseSequenceBody(Buffer.alloc(10))).toBeNull();
    expect(parseSequenceBody(body('A', HASH))).toBeNull(); // no sequence
    expect(parseSequenceBody(body('X' as 'A', HASH, 1))).toBeNull();
  });
});

describe('ZmqSequenceSource', () => {
  let publisher: Publisher | undefined;
  let source: ZmqSequenceSource | undefined;
  afterEach(async () => {
    await source?.stop();
    publisher?.close();
  });

  it('behavior: events in order from a publisher; a skipped message counter is a gap', async () => {
    const url = `tcp://127.0.0.1:${await freePort()}`;
    publisher = new Publisher();
    await publisher.bind(url);
    const events: MempoolEvent[] = [];
    const gaps: string[] = [];
    source = new ZmqSequenceSource(url);
    await source.start({ event: (e) => events.push(e), gap: (r) => gaps.push(r) });
    // Subscriptions take a moment to reach the publisher: send until the first message arrives.
    for (let i = 0; events.length === 0 && i < 200; i++) {
      await publisher.send(['sequence', body('A', HASH, 1), counter(0)]);
      await new Promise((r) => setTimeout(r, 10));
    }
    const base = events.length;
    const start = 1000;
    await publisher.send(['sequence', body('R', HASH, 2), counter(start)]);
    await publisher.send(['sequence', body('C', HASH), counter(start + 1)]);
    await publisher.send(['sequence', body('A', HASH, 3), counter(start + 3)]); // start + 2 lost
    for (let i = 0; events.length < base + 3 && i < 200; i++) await new Promise((r) => setTimeout(r, 10));
    expect(events.slice(base).map((e) => e.kind)).toEqual(['removed', 'connected', 'added']);
    // The jump to `start` (from the warm-up counters) and the lost `start + 2`.
    expect(gaps.at(-1)).toBe(`zmq message ${start + 3} after ${start + 1}`);
  });
});

describe('RawTxRing', () => {
  it('behavior: finds a raw transaction by txid (computed without witnesses), newest first, bounded', () => {
    const make = (n: number) => {
      const tx = new Transaction({ allowUnknownOutputs: true, disableScriptCheck: true });
      tx.addInput({
        txid: hex.encode(new Uint8Array(32).fill(n)),
        index: n,
        witnessUtxo: { script: new Uint8Array([0x00, 0x14, ...new Uint8Array(20)]), amount: 1000n },
      });
      tx.addOutput({ script: new Uint8Array([0x6a, n]), amount: 0n });
      // A witness, which the txid must leave out.
      tx.updateInput(0, { finalScriptWitness: [new Uint8Array(72).fill(n), new Uint8Array(33).fill(2)] }, true);
      return tx;
    };
    const ring = new RawTxRing(3);
    const txs = [1, 2, 3, 4].map(make);
    expect(txs[0]!.hasWitnesses).toBe(true);
    for (const tx of txs) ring.push(Buffer.from(tx.toBytes(true, true)));
    for (const tx of txs.slice(1)) expect(ring.get(tx.id)).toBe(hex.encode(tx.toBytes(true, true)));
    expect(ring.get(txs[0]!.id)).toBeUndefined(); // dropped: the ring holds 3
    expect(txidOfRaw(txs[1]!.toBytes(true, true))).toBe(txs[1]!.id);
  });
});
