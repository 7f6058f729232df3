/**
 * The simulated node's ZMQ notifications, as Bitcoin Core publishes them with `-zmqpubsequence`
 * and `-zmqpubrawtx` (here on one endpoint): `sequence` messages (`A`/`R` with the mempool
 * sequence, `C` for a connected block; no `R` for a tx leaving in a block, as in Core) and `rawtx`
 * for each tx added to the mempool, each message ending with the topic's 4-byte little-endian
 * counter. Messages are queued and sent in order; past `MAX_QUEUE` the oldest are dropped, which a
 * subscriber sees as a counter gap (as with Core's high-water mark).
 */
import { Publisher } from 'zeromq';
import type { ChainBlock } from '../chain/chain.js';
import type { MempoolEntry, MempoolListener, RemovalReason } from '../mempool/mempool.js';

const MAX_QUEUE = 100_000;

export class ZmqPublisher implements MempoolListener {
  private readonly socket = new Publisher();
  private readonly queue: Buffer[][] = [];
  private readonly counters = new Map<string, number>();
  private pumping = false;
  private closed = false;
  /** `tcp://127.0.0.1:<port>` once bound. */
  url = '';

  /** Binds a free loopback port. */
  async bind(): Promise<string> {
    await this.socket.bind('tcp://127.0.0.1:*');
    this.url = this.socket.lastEndpoint ?? '';
    return this.url;
  }

  added(entry: MempoolEntry, sequence: number): void {
    this.publish('rawtx', Buffer.from(entry.tx.raw));
    this.publish('sequence', sequenceBody(entry.tx.txid, 'A', sequence));
  }

  removed(entries: readonly MempoolEntry[], reason: RemovalReason, firstSequence: number): void {
    if (reason === 'block') return;
    entries.forEach((e, k) => this.publish('sequence', sequenceBody(e.tx.txid, 'R', firstSequence + k)));
  }

  blockConnected(block: ChainBlock): void {
    this.publish('sequence', sequenceBody(block.hash, 'C'));
  }

  close(): void {
    this.closed = true;
    this.socket.close();
  }

  private publish(topic: string, body: Buffer): void {
    if (this.closed) return;
    const n = this.counters.get(topic) ?? 0;
    this.counters.set(topic, (n + 1) >>> 0);
    const counter = Buffer.alloc(4);
    counter.writeUInt32LE(n);
    this.queue.push([Buffer.from(topic), body, counter]);
    if (this.queue.length > MAX_QUEUE) this.queue.shift();
    if (!this.pumping) void this.pump();
  }

  /** One send at a time (the socket refuses overlapping sends). */
  private async pump(): Promise<void> {
    this.pumping = true;
    try {
      for (let message = this.queue.shift(); message && !this.closed; message = this.queue.shift()) await this.socket.send(message);
    } catch {
      // Closed while sending: nothing more to publish.
    } finally {
      this.pumping = false;
    }
  }
}

function sequenceBody(hash: string, label: 'A' | 'R' | 'C', sequence?: number): Buffer {
  const body = Buffer.alloc(sequence === undefined ? 33 : 41);
  Buffer.from(hash, 'hex').copy(body, 0);
  body.write(label, 32, 'latin1');
  if (sequence !== undefined) body.writeBigUInt64LE(BigInt(sequence), 33);
  return body;
}
