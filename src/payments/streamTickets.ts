/**
 * Stream tickets: what `GET /v1/mempool/stream-ticket` sells and the WebSocket stream redeems. A
 * ticket is 32 bytes in base64url (its expiry in ms, 6 bytes, then 26 random bytes), kept in the replay store (Redis with REDIS_URL, so a
 * ticket sold by one replica opens a stream on another; else SQLite or memory) until it expires,
 * and redeemed at most once: the redemption is an atomic claim, so of two connections with one
 * ticket exactly one opens.
 */
import { randomBytes } from 'node:crypto';
import type { ReplayStore } from './store/replayStore.js';

export type TicketRedemption = { ok: true; expiresAt: number } | { ok: false; reason: 'unknown' | 'used' | 'expired' };

export const TICKET_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export class StreamTickets {
  constructor(
    private readonly store: ReplayStore,
    private readonly now: () => number,
  ) {}

  /** A new ticket valid for `ttlMs`. */
  async issue(ttlMs: number): Promise<{ ticket: string; expiresAt: number }> {
    const expiresAt = this.now() + ttlMs;
    const bytes = Buffer.alloc(32);
    bytes.writeUIntBE(expiresAt, 0, 6);
    randomBytes(26).copy(bytes, 6);
    const ticket = bytes.toString('base64url');
    const key = `stream-ticket:${ticket}`;
    if (!(await this.store.beginIdempotency(key, String(expiresAt), expiresAt))) throw new Error('stream ticket collision');
    await this.store.completeIdempotency(key, String(expiresAt), expiresAt);
    return { ticket, expiresAt };
  }

  /** Redeems `ticket` once: ok with its expiry, or why not. */
  async redeem(ticket: string): Promise<TicketRedemption> {
    if (!TICKET_PATTERN.test(ticket)) return { ok: false, reason: 'unknown' };
    // The expiry is read from the ticket: an expired one is told so even once the store dropped it.
    const expiresAt = Buffer.from(ticket, 'base64url').readUIntBE(0, 6);
    if (this.now() >= expiresAt) return { ok: false, reason: 'expired' };
    const record = await this.store.getIdempotency(`stream-ticket:${ticket}`);
    if (!record || record.fingerprint !== String(expiresAt)) return { ok: false, reason: 'unknown' };
    if (!(await this.store.claimNonce(`stream-ticket-used:${ticket}`, expiresAt))) return { ok: false, reason: 'used' };
    return { ok: true, expiresAt };
  }
}
