/**
 * The cluster shapes of the synthetic mempool generator (syntheticMempool.ts), written straight into
 * typed arrays: per-tx fee, weight and sigops sized up front to the requested count, parents as a
 * flat list (CSR) that grows geometrically. A million transactions take ~25 MB here, where arrays of
 * numbers and one parent array per tx took hundreds. The draws from `rand` are in the same order as
 * the generator has always made them, so a seed gives the same mempool as before.
 */

/** Cumulative probabilities per cluster (not per tx) of: singleton, chain, CPFP, batch, consolidation; DAG otherwise. */
export const PROFILES = {
  // Per-cluster odds = tx share / mean cluster size (1, ~6, ~3, ~25, ~12, ~36).
  realistic: [0.9235, 0.952, 0.99, 0.994, 0.9984],
  'cluster-heavy': [0.55, 0.72, 0.84, 0.92, 0.96],
} as const;

export type Profile = keyof typeof PROFILES;

/** Transactions in generation order (before the shuffle), parents by generation index. */
export class ClusterBuilder {
  readonly fee: Float64Array;
  readonly weight: Uint32Array;
  readonly sigops: Uint32Array;
  /** Parents of tx i: parentList[parentEnd[i-1] .. parentEnd[i]) (parentEnd[-1] = 0). */
  readonly parentEnd: Uint32Array;
  private parentList = new Uint32Array(1024);
  private parentCount = 0;
  /** Transactions added so far. */
  count = 0;

  constructor(
    readonly capacity: number,
    private readonly rand: () => number,
    private readonly sigopShare: number,
    private readonly multisigShare = 0,
  ) {
    this.fee = new Float64Array(capacity);
    this.weight = new Uint32Array(capacity);
    this.sigops = new Uint32Array(capacity);
    this.parentEnd = new Uint32Array(capacity);
  }

  /** The flat parent list, trimmed to its length (a view, no copy). */
  get parents(): Uint32Array {
    return this.parentList.subarray(0, this.parentCount);
  }

  /** Offset in `parents` where tx i's parents start. */
  parentStart(i: number): number {
    return i === 0 ? 0 : (this.parentEnd[i - 1] ?? 0);
  }

  private normal(): number {
    const u = Math.max(this.rand(), 1e-12);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.rand());
  }

  /** Log-normal fee rate in sat/vB, median ~6, clamped to [1, 500]. */
  rate(scale = 1): number {
    return Math.min(500, Math.max(1, Math.exp(Math.log(6) + 1.1 * this.normal()) * scale));
  }

  weightWu(kind: 'small' | 'any' | 'big' = 'any'): number {
    const r = this.rand();
    if (kind === 'small' || (kind === 'any' && r < 0.62)) return 437 + Math.floor(this.rand() * 300);
    if (kind === 'any' && r < 0.87) return 700 + Math.floor(this.rand() * 2300);
    if (kind === 'any' && r < 0.99) return 3000 + Math.floor(this.rand() * 17000);
    return 20000 + Math.floor(this.rand() * 80000);
  }

  /** Appends a tx; returns its generation index. */
  add(rateSatVb: number, weightWu: number, parents: readonly number[]): number {
    const i = this.count;
    if (i >= this.capacity) throw new RangeError(`cluster builder full (${this.capacity} transactions)`);
    let w = weightWu;
    let sigops = this.rand() < this.sigopShare ? 400 + Math.floor(this.rand() * 1600) : 0;
    if (this.multisigShare > 0 && this.rand() < this.multisigShare) {
      // Bare multisig outputs: 114 bytes each (8 value + 1 length + 105 script), non-witness.
      const outputs = 2 + Math.floor(this.rand() * 11);
      w = 4 * (10 + 41 + 31 + 114 * outputs) + 110;
      sigops = 80 * outputs + 1;
    }
    this.fee[i] = Math.max(0, Math.round((rateSatVb * w) / 4));
    this.weight[i] = w;
    this.sigops[i] = sigops;
    for (const p of parents) this.pushParent(p);
    this.parentEnd[i] = this.parentCount;
    this.count = i + 1;
    return i;
  }

  private pushParent(p: number): void {
    if (this.parentCount === this.parentList.length) {
      const grown = new Uint32Array(this.parentList.length * 2);
      grown.set(this.parentList);
      this.parentList = grown;
    }
    this.parentList[this.parentCount++] = p;
  }

  /** Room left for a cluster of at most `maxClusterSize`. */
  cap(maxClusterSize: number): number {
    return Math.min(this.capacity - this.count, maxClusterSize);
  }
}

/** Chain: each tx spends the previous one's change. */
export function addChain(b: ClusterBuilder, rand: () => number, cap: number): void {
  const len = Math.min(cap, 2 + Math.floor(-Math.log(Math.max(rand(), 1e-9)) * 4), 25);
  let prev = b.add(b.rate(), b.weightWu(), []);
  for (let k = 1; k < len; k++) prev = b.add(b.rate(), b.weightWu('small'), [prev]);
}

/** CPFP: 1-3 stuck parents paid for by one child. */
export function addCpfp(b: ClusterBuilder, rand: () => number, cap: number): void {
  const np = Math.min(cap - 1, 1 + Math.floor(rand() * 3));
  const ps: number[] = [];
  for (let k = 0; k < np; k++) ps.push(b.add(1 + rand(), b.weightWu(), []));
  b.add(b.rate(4), b.weightWu('small'), ps);
}

/** Batch payout: one parent, many children; some children are spent again. */
export function addBatch(b: ClusterBuilder, rand: () => number, cap: number): void {
  const nc = Math.min(cap - 1, 3 + Math.floor(rand() * 40));
  const root = b.add(b.rate(), 2000 + Math.floor(rand() * 8000), []);
  let used = 1;
  for (let k = 0; k < nc && used < cap; k++, used++) {
    const c = b.add(b.rate(), b.weightWu('small'), [root]);
    if (rand() < 0.15 && used + 1 < cap) {
      b.add(b.rate(), b.weightWu('small'), [c]);
      used++;
    }
  }
}

/** Consolidation: several unconfirmed parents swept by one large child. */
export function addConsolidation(b: ClusterBuilder, rand: () => number, cap: number): void {
  const np = Math.min(cap - 1, 2 + Math.floor(rand() * 20));
  const ps: number[] = [];
  for (let k = 0; k < np; k++) ps.push(b.add(b.rate(), b.weightWu('small'), []));
  b.add(b.rate(0.5), 272 * np + 200, ps);
}

/** Random DAG up to the cluster limit: each tx spends 1-3 earlier txs of the cluster. */
export function addDag(b: ClusterBuilder, rand: () => number, cap: number): void {
  const size = Math.min(cap, 8 + Math.floor(rand() * 57));
  const first = b.count;
  b.add(b.rate(), b.weightWu(), []);
  for (let k = 1; k < size; k++) {
    // A Set keeps insertion order: the parents' order is part of the seeded output.
    const ps = new Set<number>();
    const np = 1 + Math.floor(rand() * Math.min(3, k));
    while (ps.size < np) ps.add(first + Math.floor(rand() * k));
    b.add(b.rate(), b.weightWu(), [...ps]);
  }
}

/** Fills the builder with clusters drawn by `profile` until it holds `capacity` transactions. */
export function buildClusters(b: ClusterBuilder, rand: () => number, profile: Profile, maxClusterSize: number): void {
  const [pSingle, pChain, pCpfp, pBatch, pConsolidation] = PROFILES[profile];
  while (b.count < b.capacity) {
    const kind = rand();
    const cap = b.cap(maxClusterSize);
    if (kind < pSingle || cap < 2) b.add(b.rate(), b.weightWu(), []);
    else if (kind < pChain) addChain(b, rand, cap);
    else if (kind < pCpfp) addCpfp(b, rand, cap);
    else if (kind < pBatch) addBatch(b, rand, cap);
    else if (kind < pConsolidation) addConsolidation(b, rand, cap);
    else addDag(b, rand, cap);
  }
}
