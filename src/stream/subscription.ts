/**
 * What one stream client asked to receive. A client sends a text message
 * `{"action":"subscribe","frames":[…],"minRate":N,"txids":[…]}` (every field optional) or
 * `{"action":"unsubscribe"}` (everything again); the server answers `subscribed` with the filter
 * now in force, or `error` for a message it cannot use (the stream stays open).
 *
 * Tracking follows the way a wallet watches its payment (mempool.space's `track-tx`): a tracked tx
 * that is replaced is followed to its replacement, a `block` frame names the tracked txs it
 * confirmed, and each `template` frame says where every tracked tx stands (its effective rate and
 * projected block) in that cycle.
 */
import { z } from 'zod';
import { FRAME_TYPES, type Frame, type OptimizerView } from './frames.js';

/** Tracked txids a client may name; replacements followed may add as many again. */
export const MAX_TRACKED_TXIDS = 100;
/** Longest client message, bytes (a subscription with 100 txids is about 6.7 KB). */
export const MAX_CLIENT_MESSAGE_BYTES = 16 * 1024;

const DataFrame = z.enum(FRAME_TYPES).exclude(['hello']);
const Txid = z
  .string()
  .regex(/^[0-9a-fA-F]{64}$/, 'a txid is 64 hex characters')
  .transform((s) => s.toLowerCase());

export const ClientMessage = z.discriminatedUnion('action', [
  z
    .object({
      action: z.literal('subscribe'),
      frames: z.array(DataFrame).min(1).max(FRAME_TYPES.length).optional(),
      minRate: z.number().finite().min(0).max(1_000_000).optional(),
      txids: z.array(Txid).min(1).max(MAX_TRACKED_TXIDS).optional(),
    })
    .strict(),
  z.object({ action: z.literal('unsubscribe') }).strict(),
]);
export type ClientMessage = z.infer<typeof ClientMessage>;

interface TxItem {
  txid: string;
  effectiveRate: number;
}

interface RemovedItem {
  txid: string;
}

export class Subscription {
  private frames: ReadonlySet<string> | null = null;
  private minRate: number | null = null;
  private tracked: Set<string> | null = null;

  /** True when the client gets every frame unchanged (the shared, serialize-once path). */
  get isEverything(): boolean {
    return this.frames === null && this.minRate === null && this.tracked === null;
  }

  /** Applies a parsed message; returns the `subscribed` frame to send. */
  update(message: ClientMessage): Frame {
    if (message.action === 'unsubscribe') {
      this.frames = null;
      this.minRate = null;
      this.tracked = null;
    } else {
      this.frames = message.frames ? new Set(message.frames) : null;
      this.minRate = message.minRate ?? null;
      this.tracked = message.txids ? new Set(message.txids) : null;
    }
    return this.describe();
  }

  describe(): Frame {
    return {
      type: 'subscribed',
      frames: this.frames ? [...this.frames] : FRAME_TYPES.filter((t) => t !== 'hello'),
      minRate: this.minRate,
      txids: this.tracked ? [...this.tracked] : null,
    };
  }

  /** The frame as this client should see it, or null to send nothing. */
  filter(frame: Frame, view: OptimizerView, confirmedByHeight: ReadonlyMap<number, readonly string[]> = new Map()): Frame | null {
    if (this.frames && !this.frames.has(frame.type)) return null;
    const tracked = this.tracked;
    switch (frame.type) {
      case 'txs': {
        const txs = (frame.txs as TxItem[]).filter(
          (tx) => (this.minRate === null || tx.effectiveRate >= this.minRate) && (tracked === null || tracked.has(tx.txid)),
        );
        return txs.length === 0 ? null : { ...frame, txs };
      }
      case 'removed': {
        if (tracked === null) return frame;
        const txs = (frame.txs as RemovedItem[]).filter((tx) => tracked.has(tx.txid));
        return txs.length === 0 ? null : { ...frame, txs };
      }
      case 'replacement': {
        if (tracked === null) return frame;
        const oldTxid = (frame.old as { txid: string }).txid;
        const newTxid = (frame.new as { txid: string }).txid;
        if (tracked.has(oldTxid)) {
          // Follow the payment to its new version (bounded: at most twice the named txids).
          if (tracked.size < 2 * MAX_TRACKED_TXIDS) tracked.add(newTxid);
          return frame;
        }
        return tracked.has(newTxid) ? frame : null;
      }
      case 'block':
        if (tracked === null) return frame;
        return { ...frame, trackedConfirmed: (confirmedByHeight.get(frame.height as number) ?? []).filter((txid) => tracked.has(txid)) };
      case 'template':
        if (tracked === null) return frame;
        return {
          ...frame,
          tracked: [...tracked].map((txid) => ({ txid, effectiveRate: view.effectiveRate(txid), projectedBlock: view.projectedBlock(txid) })),
        };
      default:
        return frame;
    }
  }
}

/** Parses one client message; an error frame when it cannot be used. */
export function parseClientMessage(data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean): ClientMessage | Frame {
  const error = (message: string): Frame => ({ type: 'error', code: 'INVALID_MESSAGE', message });
  if (isBinary) return error('send text frames (JSON)');
  const text = Buffer.isBuffer(data) ? data.toString('utf8') : Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data).toString('utf8');
  if (Buffer.byteLength(text) > MAX_CLIENT_MESSAGE_BYTES) return error(`a message is at most ${MAX_CLIENT_MESSAGE_BYTES} bytes`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return error('not JSON');
  }
  const parsed = ClientMessage.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return error(issue ? `${issue.path.join('.') || 'message'}: ${issue.message}` : 'invalid message');
  }
  return parsed.data;
}
