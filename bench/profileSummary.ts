/**
 * The summary bench/paidProfile.ts prints of a replica's .cpuprofile: the heaviest functions and
 * files (self time), and the samples grouped by the part of the paid path they were taken in
 * (the nearest frame of a known file or package up the stack: a socket write under ioredis is
 * Redis, under fastify the HTTP server), each as a share and as µs of wall time per paid request
 * when the paid load's window is known.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

/** Parts of a paid request, by the files their frames come from (first match up the stack wins). */
const PARTS: ReadonlyArray<[part: string, urlContains: string[]]> = [
  ['ledger (SQLite)', ['better-sqlite3', 'payments/ledger.ts', 'payments/writeQueue.ts', 'payments/keptAnswers.ts']],
  [
    'Redis (rate limit, shared payment state)',
    ['ioredis', 'rate-limiter-flexible', 'store/sharedPayments.ts', 'store/redisReplayStore.ts', 'state/sharedState.ts'],
  ],
  [
    'facilitator HTTP (verify, settle)',
    ['payments/facilitatorHttp.ts', 'payments/facilitator.ts', 'opossum', 'undici', 'node:_http_client', 'node:_http_agent'],
  ],
  ['ECDSA recovery', ['secp256k1']],
  ['EIP-712 digest', ['payments/eip712.ts', 'js-sha3', 'payments/keccak.ts']],
  ['payment header decode', ['payments/decode.ts']],
  [
    'gate (checks, hashes, headers)',
    [
      'payments/gate.ts',
      'payments/paidRequest.ts',
      'payments/verify.ts',
      'payments/challenge.ts',
      'payments/replies.ts',
      'payments/settlement.ts',
      'src/api/limits/',
    ],
  ],
  [
    'HTTP server (node:http, fastify, hooks, route)',
    ['fastify', 'node:_http_server', 'node:_http_incoming', 'node:_http_outgoing', 'helmet', 'src/api/', 'src/app.ts'],
  ],
];

function partOf(id: number, nodes: Map<number, ProfileNode>, parent: Map<number, number>): string {
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const frame = nodes.get(at)?.callFrame;
    if (!frame) break;
    if (['(idle)', '(garbage collector)', '(program)'].includes(frame.functionName)) return frame.functionName;
    const part = PARTS.find(([, urls]) => urls.some((u) => frame.url.includes(u)));
    if (part) return part[0];
  }
  return 'other (event loop, promises, streams)';
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A span of the replica's life, in µs of CLOCK_MONOTONIC (V8's profile clock and `process.hrtime` alike). */
export interface Window {
  fromUs: number;
  toUs: number;
  requests: number;
}

export const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/** Samples per node id: all of them, or only those taken inside `window` (the paid load, not start-up or the free load). */
function hitsOf(profile: Profile, window: Window | null): Map<number, number> {
  const hits = new Map<number, number>();
  if (!window) {
    for (const n of profile.nodes) hits.set(n.id, n.hitCount ?? 0);
    return hits;
  }
  let t = profile.startTime;
  profile.samples.forEach((id, i) => {
    t += profile.timeDeltas[i] ?? 0;
    if (t >= window.fromUs && t <= window.toUs) hits.set(id, (hits.get(id) ?? 0) + 1);
  });
  return hits;
}

interface Tally {
  total: number;
  byFn: Map<string, number>;
  byFile: Map<string, number>;
  byPart: Map<string, number>;
}

function tally(profile: Profile, window: Window | null): Tally {
  const sampleHits = hitsOf(profile, window);
  const t: Tally = { total: 0, byFn: new Map(), byFile: new Map(), byPart: new Map() };
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map(profile.nodes.flatMap((n) => (n.children ?? []).map((c): [number, number] => [c, n.id])));
  const add = (m: Map<string, number>, k: string, hits: number) => m.set(k, (m.get(k) ?? 0) + hits);
  for (const n of profile.nodes) {
    const hits = sampleHits.get(n.id) ?? 0;
    if (hits === 0) continue;
    t.total += hits;
    const url = n.callFrame.url.replace(`file://${root}`, '').replace(/^.*node_modules\//, 'node_modules/');
    const pkg = url.startsWith('node_modules/')
      ? url
          .split('/')
          .slice(0, url.startsWith('node_modules/@') ? 3 : 2)
          .join('/')
      : url || '(native/idle)';
    add(t.byFn, `${n.callFrame.functionName || '(anonymous)'} ${url}:${n.callFrame.lineNumber + 1}`, hits);
    add(t.byFile, pkg, hits);
    add(t.byPart, partOf(n.id, nodes, parent), hits);
  }
  return t;
}

/** Rows of the `n` largest entries: share, and µs of wall time per request when the window is known. */
function top(m: Map<string, number>, n: number, total: number, window: Window | null) {
  // Wall time of the main thread per request (idle included), from the window's length.
  const usPerSample = window ? (window.toUs - window.fromUs) / Math.max(1, total) : 0;
  return [...m.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, hits]) => ({
      '%': ((100 * hits) / total).toFixed(1),
      ...(window ? { 'µs/req': ((hits * usPerSample) / window.requests).toFixed(1) } : {}),
      name,
    }));
}

/** The whole profile, or the paid load's window (and, given, the free load's parts beside it: what the HTTP stack costs alone). */
export function summarize(file: string, paid: Window | null = null, free: Window | null = null): void {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const t = tally(profile, paid);
  const span = paid ? `the paid load only (${paid.requests} requests)` : 'the whole run';
  console.log(`\nprofile ${file}: ${t.total} samples over ${span}`);
  console.log('by part of the paid path (a sample counts for the nearest known frame up its stack):');
  console.table(top(t.byPart, PARTS.length + 4, t.total, paid));
  if (free) {
    const f = tally(profile, free);
    console.log(`the free load (GET /health, ${free.requests} requests) by the same parts:`);
    console.table(top(f.byPart, PARTS.length + 4, f.total, free));
  }
  console.log('heaviest functions (self time):');
  console.table(top(t.byFn, 30, t.total, paid));
  console.log('by file or package (self time):');
  console.table(top(t.byFile, 25, t.total, paid));
}
