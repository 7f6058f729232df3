/**
 * The changes of incremental.bench.ts's steps without the service (same seeds: TX_COUNT
 * transactions, 1,000 changes per step, the middle step a mined block), for the profiles that
 * replay them on the worker's own table (incrementalProfile.ts, incrementalStepProfile.ts).
 */
import type { MirrorTx } from '../src/mempool/mirror.js';
import { mirrorTx } from '../test/helpers/mirrorTx.js';
import { generateMempool, rng, type SyntheticMempool } from './generator.js';

export const CHANGES = 1_000;

export function txsOf(m: SyntheticMempool, prefix: string): MirrorTx[] {
  const { feeSat, weightWu, parentOffsets, parentIndices } = m.input;
  return m.txids.map((txid, i) => {
    const parents: string[] = [];
    for (let k = parentOffsets[i] ?? 0; k < (parentOffsets[i + 1] ?? 0); k++) {
      parents.push(prefix + (m.txids[parentIndices[k] ?? 0] ?? '').slice(prefix.length));
    }
    return mirrorTx(prefix + txid.slice(prefix.length), feeSat[i] ?? 0, weightWu[i] ?? 0, parents);
  });
}

/** One step's changes, already applied to the replay's view. */
export interface StepChange {
  added: MirrorTx[];
  removed: Set<string>;
  mined: boolean;
}

/**
 * The first mempool, then `steps` changes; `mined()` gives the txids a block takes (the served
 * template's) when the mined step comes. Each change is applied to the view before it is yielded.
 */
export function replaySteps(txCount: number, steps: number): { first: MirrorTx[]; next: (mined: () => Iterable<string>) => StepChange | null } {
  const txs = new Map<string, MirrorTx>();
  const children = new Map<string, Set<string>>();
  const link = (tx: MirrorTx) => {
    for (const p of tx.parents) {
      let set = children.get(p);
      if (!set) children.set(p, (set = new Set()));
      set.add(tx.txid);
    }
  };
  const withDescendants = (txid: string, out: Set<string>): Set<string> => {
    if (out.has(txid) || !txs.has(txid)) return out;
    out.add(txid);
    for (const c of children.get(txid) ?? []) withDescendants(c, out);
    return out;
  };
  const first = txsOf(generateMempool({ txCount, seed: 11, profile: 'realistic' }), '');
  for (const tx of first) {
    txs.set(tx.txid, tx);
    link(tx);
  }
  const arrivals = txsOf(generateMempool({ txCount: steps * CHANGES, seed: 12, profile: 'realistic' }), 'f');
  const rand = rng(5);
  let next = 0;
  let step = 0;
  return {
    first,
    next(minedTxids) {
      if (step >= steps) return null;
      const mined = step === Math.floor(steps / 2);
      step += 1;
      const added: MirrorTx[] = [];
      const removed = new Set<string>();
      if (mined) {
        for (const txid of minedTxids()) removed.add(txid);
      } else {
        const all = [...txs.keys()];
        while (added.length < 500) {
          const tx = arrivals[next++];
          if (!tx) break;
          if (rand() < 0.2) tx.parents = [...tx.parents, all[Math.floor(rand() * all.length)] ?? ''];
          added.push(tx);
        }
        while (removed.size + added.length < CHANGES) {
          const victim = all[Math.floor(rand() * all.length)] ?? '';
          withDescendants(victim, removed);
          if (rand() < 0.4) {
            const tx = arrivals[next++];
            if (!tx) break;
            tx.parents = [...(txs.get(victim)?.parents ?? [])];
            added.push(tx);
          }
        }
      }
      for (const txid of removed) {
        const tx = txs.get(txid);
        if (!tx) continue;
        txs.delete(txid);
        children.delete(txid);
        for (const p of tx.parents) children.get(p)?.delete(txid);
      }
      const batch = new Set(added.map((t) => t.txid));
      for (const tx of added) {
        tx.parents = tx.parents.filter((p) => txs.has(p) || batch.has(p));
        txs.set(tx.txid, tx);
        link(tx);
      }
      return { added, removed, mined };
    },
  };
}
