/**
 * Fans the mempool stream out to WebSocket clients: each mirror diff and each optimizer cycle
 * becomes frames (`frames.ts`), sent to every open stream with the stream's own `seq`. A frame
 * is serialized once and only its `seq` prefix differs per client, so a fan-out to N clients is one
 * `JSON.stringify` and N string concatenations.
 *
 * Backpressure: before each send, a stream whose unsent bytes exceed `maxBufferBytes` (a client
 * that does not read) is closed with 4008 and torn down a second later if it does not close: never
 * buffered without bound. A stream closes with 4001 when its ticket expires, with 1001 on shutdown.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { WebSocket } from 'ws';
import type { MempoolDiff, MempoolMirror } from '../mempool/mirror.js';
import type { OptimizerService } from '../optimizer/optimizerService.js';
import type { TemplateCache } from '../optimizer/cache/templateCache.js';
import type { BlockAudit, BlockAuditor } from '../optimizer/blockAudit.js';
import { auditFrame, diffFrames, FRAME_TYPES, mempoolFrame, optimizerView, templateFrame, type Frame, type OptimizerView } from './frames.js';
import { parseClientMessage, Subscription } from './subscription.js';

export const CLOSE_CODES = {
  /** The ticket's time is up (buy another). */
  TICKET_EXPIRED: 4001,
  /** The client did not read: its unsent frames passed the buffer limit. */
  TOO_SLOW: 4008,
  SHUTDOWN: 1001,
  /** The client kept sending messages it was told were invalid. */
  POLICY: 1008,
} as const;

/** Invalid client messages answered with an `error` frame before the stream is closed (1008). */
const MAX_INVALID_MESSAGES = 20;

export interface StreamHubOptions {
  maxBufferBytes: number;
  /** Least time between two `mempool` (stats) frames. */
  mempoolFrameMs?: number;
  now?: () => number;
  logger?: FastifyBaseLogger;
  /** Block audits: each block's audit follows its `block` frame as an `audit` frame (if ready within AUDIT_WAIT_MS). */
  audits?: Pick<BlockAuditor, 'audit'>;
}

/** Longest the hub waits for a block's audit (one `getblock`); a later one is not streamed. */
const AUDIT_WAIT_MS = 10_000;

interface Client {
  socket: WebSocket;
  seq: number;
  expiry: NodeJS.Timeout;
  open: boolean;
  subscription: Subscription;
  invalidMessages: number;
}

const TERMINATE_AFTER_MS = 1000;

/** The audit of `hash`, or null when it failed or took longer than AUDIT_WAIT_MS. */
function auditWithin(audits: Pick<BlockAuditor, 'audit'>, hash: string): Promise<BlockAudit | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), AUDIT_WAIT_MS);
    timer.unref();
  });
  return Promise.race([audits.audit(hash), late]).finally(() => clearTimeout(timer));
}

export class StreamHub {
  private readonly clients = new Set<Client>();
  private lastMempoolFrameAt = 0;
  framesSent = 0;
  droppedSlow = 0;

  constructor(
    private readonly mirror: MempoolMirror,
    private readonly optimizer: Pick<OptimizerService, 'cache' | 'on' | 'off'>,
    private readonly options: StreamHubOptions,
  ) {
    mirror.on('diff', this.onDiff);
    optimizer.on('published', this.onTemplate);
  }

  get clientCount(): number {
    return this.clients.size;
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  /** Takes over an open socket whose ticket expires at `expiresAt` (ms): hello, stats, the last template. */
  attach(socket: WebSocket, expiresAt: number): void {
    const client: Client = {
      socket,
      seq: 0,
      open: true,
      expiry: setTimeout(() => this.drop(client, CLOSE_CODES.TICKET_EXPIRED, 'ticket expired'), Math.max(0, expiresAt - this.now())),
      subscription: new Subscription(),
      invalidMessages: 0,
    };
    this.clients.add(client);
    socket.on('message', (data, isBinary) => this.onMessage(client, parseClientMessage(data, isBinary)));
    socket.on('close', () => this.forget(client));
    socket.on('error', () => this.forget(client));
    const hello: Frame = {
      type: 'hello',
      frames: FRAME_TYPES.filter((t) => t !== 'hello'),
      expiresAt: new Date(expiresAt).toISOString(),
      bufferLimitBytes: this.options.maxBufferBytes,
      closeCodes: { ticketExpired: CLOSE_CODES.TICKET_EXPIRED, tooSlow: CLOSE_CODES.TOO_SLOW, shutdown: CLOSE_CODES.SHUTDOWN, policy: CLOSE_CODES.POLICY },
      clientMessages: ['subscribe', 'unsubscribe'],
    };
    const frames = [hello, mempoolFrame(this.mirror)];
    if (this.optimizer.cache) frames.push(templateFrame(this.optimizer.cache));
    for (const frame of frames) this.send(client, JSON.stringify(frame));
  }

  /** Closes every stream (server shutdown) and stops listening. */
  close(): void {
    this.mirror.off('diff', this.onDiff);
    this.optimizer.off('published', this.onTemplate);
    for (const client of [...this.clients]) this.drop(client, CLOSE_CODES.SHUTDOWN, 'server shutting down');
  }

  private onMessage(client: Client, message: ReturnType<typeof parseClientMessage>): void {
    if (!client.open) return;
    if ('type' in message) {
      client.invalidMessages += 1;
      if (client.invalidMessages > MAX_INVALID_MESSAGES) this.drop(client, CLOSE_CODES.POLICY, 'too many invalid messages');
      else this.send(client, JSON.stringify(message));
      return;
    }
    this.send(client, JSON.stringify(client.subscription.update(message)));
    // Where the tracked txs stand now, without waiting for the next cycle.
    const cache = this.optimizer.cache;
    const now = cache ? client.subscription.filter(templateFrame(cache), optimizerView(cache)) : null;
    if (now && 'tracked' in now) this.send(client, JSON.stringify(now));
  }

  private readonly onDiff = (diff: MempoolDiff): void => {
    if (this.clients.size === 0) return;
    const view = optimizerView(this.optimizer.cache);
    const frames = diffFrames(diff, view);
    const now = this.now();
    if (now - this.lastMempoolFrameAt >= (this.options.mempoolFrameMs ?? 1000)) {
      this.lastMempoolFrameAt = now;
      frames.push(mempoolFrame(this.mirror));
    }
    this.broadcast(frames, view, diff.blocks.length > 0 ? confirmedByHeight(diff) : undefined);
    // Each block's audit (one getblock) follows its block frame, when it is ready.
    const audits = this.options.audits;
    if (audits)
      for (const block of diff.blocks)
        void auditWithin(audits, block.hash).then((audit) => {
          if (audit && this.clients.size > 0) this.broadcast([auditFrame(audit)], optimizerView(this.optimizer.cache));
        });
  };

  private readonly onTemplate = (cache: TemplateCache): void => {
    if (this.clients.size > 0) this.broadcast([templateFrame(cache)], optimizerView(cache));
  };

  /** Serialized once for every client that takes everything; filtered per client otherwise. */
  private broadcast(frames: readonly Frame[], view: OptimizerView, confirmed?: ReadonlyMap<number, readonly string[]>): void {
    const bodies = frames.map((f) => JSON.stringify(f));
    for (const client of [...this.clients]) {
      if (client.subscription.isEverything) for (const body of bodies) this.send(client, body);
      else
        for (const frame of frames) {
          const mine = client.subscription.filter(frame, view, confirmed);
          if (mine) this.send(client, JSON.stringify(mine));
        }
    }
  }

  /** `body` is a frame's JSON object; the client's next `seq` goes first. */
  private send(client: Client, body: string): void {
    if (!client.open) return;
    if (client.socket.bufferedAmount > this.options.maxBufferBytes) {
      this.droppedSlow += 1;
      this.drop(client, CLOSE_CODES.TOO_SLOW, `client too slow: more than ${this.options.maxBufferBytes} bytes unsent`);
      return;
    }
    client.seq += 1;
    client.socket.send(`{"seq":${client.seq},${body.slice(1)}`);
    this.framesSent += 1;
  }

  private drop(client: Client, code: number, reason: string): void {
    if (!client.open) return;
    this.forget(client);
    client.socket.close(code, reason);
    // A client that does not read never completes the closing handshake.
    setTimeout(() => client.socket.terminate(), TERMINATE_AFTER_MS).unref();
  }

  private forget(client: Client): void {
    client.open = false;
    clearTimeout(client.expiry);
    this.clients.delete(client);
  }
}

/** The txids each block of a diff confirmed, by height (for subscribers tracking txids). */
function confirmedByHeight(diff: MempoolDiff): Map<number, string[]> {
  const confirmed = new Map<number, string[]>();
  for (const r of diff.removed) {
    if (r.reason !== 'confirmed' || r.blockHeight === undefined) continue;
    const list = confirmed.get(r.blockHeight) ?? [];
    list.push(r.tx.txid);
    confirmed.set(r.blockHeight, list);
  }
  return confirmed;
}
