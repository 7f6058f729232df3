import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { TxidOrder } from '../../src/mempool/txidOrder.js';
import { computeTxidRank } from '../../src/optimizer/snapshot/snapshot.js';

const txid = () => randomBytes(32).toString('hex');

/** The txids in Core's order according to the optimizer's own rank function. */
function coreOrder(txids: string[]): string[] {
  const rank = computeTxidRank(txids);
  const out = new Array<string>(txids.length);
  txids.forEach((t, i) => (out[rank[i]!] = t));
  return out;
}

describe('TxidOrder', () => {
  it('default: keeps Core txid order through single inserts, bulk inserts and deletes', () => {
    const order = new TxidOrder<string>();
    const live = new Set<string>();
    const add = (ids: string[]) => {
      order.addAll(ids.map((id) => ({ txid: id, value: id })));
      ids.forEach((id) => live.add(id));
    };
    add(Array.from({ length: 5000 }, txid)); // bulk path
    for (let round = 0; round < 20; round++) {
      add(Array.from({ length: 17 }, txid)); // one-by-one path
      for (const id of [...live].slice(0, 11)) {
        order.delete(id);
        live.delete(id);
      }
    }
    order.delete(txid()); // absent: no effect
    expect(order.size).toBe(live.size);
    expect([...order.values()]).toEqual(coreOrder([...live]));
  });

  it('default: keeps Core txid order through merged batches of inserts and batched deletes', () => {
    const order = new TxidOrder<string>();
    const live = new Set<string>();
    for (let round = 0; round < 10; round++) {
      const ids = Array.from({ length: 20 + round * 150 }, txid); // in-place and merge paths
      order.addAll(ids.map((id) => ({ txid: id, value: id })));
      ids.forEach((id) => live.add(id));
      const gone = [...live].filter((_, i) => i % 3 === round % 3).slice(0, 5 + round * 40); // in-place and filter paths
      order.deleteAll([...gone, txid()]);
      gone.forEach((id) => live.delete(id));
      expect(order.size).toBe(live.size);
    }
    expect([...order.values()]).toEqual(coreOrder([...live]));
  });

  it('behavior: order differs from display order (bytes are reversed)', () => {
    const a = '01' + '00'.repeat(31); // display starts 01, internal last byte 01
    const b = '00'.repeat(31) + '02'; // internal first byte 02
    const order = new TxidOrder<string>();
    order.addAll([
      { txid: a, value: a },
      { txid: b, value: b },
    ]);
    expect([...order.values()]).toEqual(coreOrder([a, b]));
    expect([...order.values()]).toEqual([a, b]);
  });
});
