/**
 * What several replicas behind one load balancer must know about each payment (REDIS_URL), so
 * that a payer whose answer was lost with a killed replica gets it from any other replica, charged
 * once. One Redis key per authorization (the nonce claim, `x402:nonce:<key>`) holds a small JSON
 * record that moves, owner-checked and atomically (Lua), through:
 *
 *   claimed (owner O, request hash H)   the request runs on O; nothing is charged yet
 *   charging (O, H)                     the answer exists and is kept (`x402:answer:<key>`); O is
 *                                       recording the ledger row and settling it
 *   paid (O, H, PAYMENT-RESPONSE)       settled (or accepted as pending): retries get the answer
 *   failed                              the facilitator refused it: the authorization is spent
 *
 * Each replica refreshes a heartbeat key; a record whose owner's heartbeat is gone, or that is
 * older than the pending lease (a live owner that could not move it on), is abandoned: `claimed` is taken over (the new owner runs and charges), `charging` is answered
 * without a charge (the dead owner may have committed its ledger row: its reconciler settles it on
 * restart; charging again could charge twice). The claim keeps its TTL (past `validBefore`, so a
 * replay stays refused); an answer lives until `validBefore` at most, and only answers of at most
 * `maxAnswerBytes` of paid requests are kept: nothing unpaid is stored.
 *
 * These are the shared form of the machine's states (state/machine.ts): claimed = claimed,
 * charging = served and being recorded, paid = settled, failed = refused; released = deleted.
 * state/sharedState.ts moves them for the gate.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

export type SharedState = 'claimed' | 'charging' | 'paid' | 'failed';

export interface SharedRecord {
  s: SharedState;
  /** Owner: the replica that claimed it (a random id per process). */
  o: string;
  /** SHA-256 of the request the payment was taken for. */
  h: string;
  /** When the owner entered this state (ms): a claim older than the lease is taken for abandoned. */
  t: number;
  /** PAYMENT-RESPONSE sent with the answer, once paid. */
  r?: string;
}

export interface SharedAnswer {
  requestHash: string;
  statusCode: number;
  contentType: string;
  body: string | Buffer;
}

/** `ownerLive`: the holder's heartbeat is there and its claim or charge is younger than the lease. */
export type SharedClaim = { kind: 'claimed' } | { kind: 'held'; record: SharedRecord | null; ownerLive: boolean };

/** Heartbeat period; a replica silent for HEARTBEAT_TTL_MS is taken for dead. */
export const HEARTBEAT_MS = 1000;
export const HEARTBEAT_TTL_MS = 3000;

/** KEYS: record, answer. ARGV: owner, allowed states (comma list), new record ('' deletes), answer ttl, answer ('' keeps, '-' drops). */
const TRANSITION = `
local cur = redis.call('GET', KEYS[1])
if not cur then return 0 end
local ok, rec = pcall(cjson.decode, cur)
if not ok or type(rec) ~= 'table' or rec.o ~= ARGV[1] then return 0 end
if not string.find(',' .. ARGV[2] .. ',', ',' .. tostring(rec.s) .. ',', 1, true) then return 0 end
if ARGV[3] == '' then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], ARGV[3], 'KEEPTTL') end
if ARGV[5] == '-' then redis.call('DEL', KEYS[2]) elseif ARGV[5] ~= '' then redis.call('SET', KEYS[2], ARGV[5], 'PX', ARGV[4]) end
return 1`;

/** KEYS: counter. ARGV: ttl ms. */
const COUNT = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n`;

interface Commands {
  x402Transition(record: string, answer: string, owner: string, from: string, next: string, answerTtlMs: number, answerJson: string): Promise<number>;
  x402Count(key: string, ttlMs: number): Promise<number>;
}

export class SharedPayments {
  /** This process: a restarted replica is a new owner, so its predecessor's claims are seen dead. */
  readonly replicaId = randomUUID();
  private readonly redis: Redis & Commands;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    redis: Redis,
    private readonly prefix: string,
    private readonly now: () => number,
    private readonly maxAnswerBytes: number,
    /** How long an owner may hold a payment `claimed` or `charging` (the gate's pending lease). */
    private readonly leaseMs: number,
  ) {
    redis.defineCommand('x402Transition', { numberOfKeys: 2, lua: TRANSITION });
    redis.defineCommand('x402Count', { numberOfKeys: 1, lua: COUNT });
    this.redis = redis as Redis & Commands;
  }

  /** Starts the heartbeat (first beat awaited: no claim is made before this replica is seen alive). */
  async start(): Promise<void> {
    await this.beat();
    this.timer = setInterval(() => void this.beat().catch(() => undefined), HEARTBEAT_MS);
    this.timer.unref();
  }

  /** Stops the heartbeat; a clean stop says so at once (nothing of ours is in flight any more). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.redis.del(this.aliveKey(this.replicaId)).catch(() => undefined);
  }

  /**
   * Claims `nonceKey` for the request `requestHash` until `expiresAtMs`, or says who holds it
   * (record null: a claim written by an older build, whose request is unknown).
   */
  async claim(nonceKey: string, requestHash: string, expiresAtMs: number): Promise<SharedClaim> {
    const mine = this.encode({ s: 'claimed', o: this.replicaId, h: requestHash, t: this.now() });
    // SET … NX GET (Redis 7): claims, or returns the holder's record, in one atomic command.
    const prev = (await this.redis.call('SET', this.recordKey(nonceKey), mine, 'PX', String(this.ttl(expiresAtMs)), 'NX', 'GET')) as string | null;
    if (prev === null) return { kind: 'claimed' };
    const record = decode(prev);
    const running = record !== null && (record.s === 'claimed' || record.s === 'charging');
    // A live replica stuck past the lease (its Redis writes failed) must not block the payer forever.
    const ownerLive = running ? this.now() - record.t < this.leaseMs && (await this.alive(record.o)) : true;
    return { kind: 'held', record, ownerLive };
  }

  /** Takes over a `claimed` record of the dead replica `deadOwner`; false when someone else did first. */
  async takeOver(nonceKey: string, deadOwner: string, requestHash: string): Promise<boolean> {
    return this.transition(nonceKey, deadOwner, ['claimed'], { s: 'claimed', o: this.replicaId, h: requestHash, t: this.now() });
  }

  /** Our claim now has its answer: `charging`, answer kept when small. False when we lost the claim. */
  async charging(nonceKey: string, requestHash: string, answer: SharedAnswer | null, validBeforeSec: number): Promise<boolean> {
    const kept = answer ? this.answerArgs(answer, validBeforeSec) : undefined;
    return this.transition(nonceKey, this.replicaId, ['claimed'], { s: 'charging', o: this.replicaId, h: requestHash, t: this.now() }, kept);
  }

  async paid(nonceKey: string, requestHash: string, paymentResponse: string): Promise<void> {
    await this.transition(nonceKey, this.replicaId, ['charging'], { s: 'paid', o: this.replicaId, h: requestHash, t: this.now(), r: paymentResponse });
  }

  /** Our fresh claim of a payment our ledger already holds (Redis lost it): paid (or failed, null) again. */
  async restore(nonceKey: string, requestHash: string, paymentResponse: string | null): Promise<void> {
    const t = this.now();
    const record: SharedRecord =
      paymentResponse === null
        ? { s: 'failed', o: this.replicaId, h: requestHash, t }
        : { s: 'paid', o: this.replicaId, h: requestHash, t, r: paymentResponse };
    await this.transition(nonceKey, this.replicaId, ['claimed'], record);
  }

  async failed(nonceKey: string, requestHash: string): Promise<void> {
    await this.transition(nonceKey, this.replicaId, ['charging'], { s: 'failed', o: this.replicaId, h: requestHash, t: this.now() }, { ttlMs: 1, json: '-' });
  }

  /** Gives our claim back (nothing charged): the payer may retry anywhere. */
  async release(nonceKey: string): Promise<void> {
    await this.transition(nonceKey, this.replicaId, ['claimed', 'charging'], null, { ttlMs: 1, json: '-' });
  }

  /** The answer kept for `nonceKey`, if any. */
  async answer(nonceKey: string): Promise<SharedAnswer | null> {
    const raw = await this.redis.get(this.answerKey(nonceKey));
    if (raw === null) return null;
    try {
      const a = JSON.parse(raw) as { h: string; st: number; ct: string; b: string; e: 'utf8' | 'base64' };
      return { requestHash: a.h, statusCode: a.st, contentType: a.ct, body: a.e === 'base64' ? Buffer.from(a.b, 'base64') : a.b };
    } catch {
      return null;
    }
  }

  /** Keeps an answer recomputed for a retry (when none is kept yet). */
  async keepAnswer(nonceKey: string, answer: SharedAnswer, validBeforeSec: number): Promise<void> {
    const args = this.answerArgs(answer, validBeforeSec);
    if (args.json !== '') await this.redis.set(this.answerKey(nonceKey), args.json, 'PX', args.ttlMs, 'NX');
  }

  /** Recomputations counted so far for this payment, across replicas. */
  async recomputes(nonceKey: string): Promise<number> {
    return Number((await this.redis.get(`${this.prefix}recompute:${nonceKey}`)) ?? 0);
  }

  /** Counts one recomputation of the answer, across replicas; false when `max` were already made. */
  async countRecompute(nonceKey: string, max: number, expiresAtMs: number): Promise<boolean> {
    return (await this.redis.x402Count(`${this.prefix}recompute:${nonceKey}`, this.ttl(expiresAtMs))) <= max;
  }

  private async transition(
    nonceKey: string,
    owner: string,
    from: SharedState[],
    next: SharedRecord | null,
    answer: { ttlMs: number; json: string } = { ttlMs: 1, json: '' },
  ): Promise<boolean> {
    const done = await this.redis.x402Transition(
      this.recordKey(nonceKey),
      this.answerKey(nonceKey),
      owner,
      from.join(','),
      next === null ? '' : this.encode(next),
      answer.ttlMs,
      answer.json,
    );
    return done === 1;
  }

  /** The answer as stored, or '' (not kept) when too large or the payment is about to expire. */
  private answerArgs(a: SharedAnswer, validBeforeSec: number): { ttlMs: number; json: string } {
    const ttlMs = validBeforeSec * 1000 - this.now();
    const bytes = typeof a.body === 'string' ? Buffer.byteLength(a.body) : a.body.length;
    if (ttlMs < 1000 || bytes > this.maxAnswerBytes) return { ttlMs: 1, json: '' };
    const body = typeof a.body === 'string' ? { b: a.body, e: 'utf8' } : { b: a.body.toString('base64'), e: 'base64' };
    return { ttlMs: Math.ceil(ttlMs), json: JSON.stringify({ h: a.requestHash, st: a.statusCode, ct: a.contentType, ...body }) };
  }

  private async alive(owner: string): Promise<boolean> {
    return (await this.redis.exists(this.aliveKey(owner))) === 1;
  }

  private async beat(): Promise<void> {
    await this.redis.set(this.aliveKey(this.replicaId), '1', 'PX', HEARTBEAT_TTL_MS);
  }

  private encode(r: SharedRecord): string {
    return JSON.stringify(r);
  }

  private ttl(expiresAtMs: number): number {
    return Math.max(1, Math.ceil(expiresAtMs - this.now()));
  }

  private recordKey(nonceKey: string): string {
    return `${this.prefix}nonce:${nonceKey}`;
  }

  private answerKey(nonceKey: string): string {
    return `${this.prefix}answer:${nonceKey}`;
  }

  private aliveKey(owner: string): string {
    return `${this.prefix}replica:${owner}`;
  }
}

function decode(raw: string): SharedRecord | null {
  try {
    const r = JSON.parse(raw) as Partial<SharedRecord> | null;
    if (!r || typeof r !== 'object' || typeof r.s !== 'string' || typeof r.o !== 'string' || typeof r.h !== 'string' || typeof r.t !== 'number') return null;
    return r as SharedRecord;
  } catch {
    return null;
  }
}
