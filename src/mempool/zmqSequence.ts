/**
 * Bitcoin Core's ZMQ `sequence` topic (`-zmqpubsequence`) as mempool events. Each message is three
 * frames: the topic, a body of a 32-byte hash (display order) and a label (`A` added, `R` removed,
 * each followed by the 8-byte little-endian mempool sequence; `C` block connected, `D` disconnected),
 * and the publisher's 4-byte little-endian message counter. A counter that does not follow its
 * predecessor means messages were dropped (Core's high-water mark) or the node restarted (it counts
 * from 0 again): that is reported as a gap, and the follower resynchronizes.
 */
import { Subscriber } from 'zeromq';
import { RawTxRing } from './rawTxRing.js';
import type { MempoolEvent, MempoolEventHandlers, MempoolEventSource } from './mempoolEvents.js';

const TOPIC = 'sequence';

/** Decodes one `sequence` body; null when it is malformed. */
export function parseSequenceBody(body: Buffer): MempoolEvent | null {
  if (body.length < 33) return null;
  const hash = body.subarray(0, 32).toString('hex');
  const label = String.fromCharCode(body[32] ?? 0);
  if (label === 'C' && body.length === 33) return { kind: 'connected', hash };
  if (label === 'D' && body.length === 33) return { kind: 'disconnected', hash };
  if ((label === 'A' || label === 'R') && body.length === 41) {
    const mempoolSequence = Number(body.readBigUInt64LE(33));
    return { kind: label === 'A' ? 'added' : 'removed', txid: hash, mempoolSequence };
  }
  return null;
}

export class ZmqSequenceSource implements MempoolEventSource {
  readonly name = 'zmq' as const;
  private socket: Subscriber | undefined;
  private rawSocket: Subscriber | undefined;
  private loop: Promise<void> | undefined;
  private rawLoop: Promise<void> | undefined;
  private lastCounter: number | undefined;
  private readonly raws = new RawTxRing();

  /** `rawTxUrl`: Core's `-zmqpubrawtx` endpoint, if any (a version replaced before it was fetched is then still recorded). */
  constructor(
    private readonly url: string,
    private readonly rawTxUrl?: string,
  ) {}

  rawTransaction(txid: string): string | undefined {
    return this.raws.get(txid);
  }

  async start(handlers: MempoolEventHandlers): Promise<void> {
    if (this.socket) return;
    const socket = new Subscriber();
    this.socket = socket;
    // Reconnects on its own when the node restarts; the counter then starts again (a gap).
    socket.connect(this.url);
    socket.subscribe(TOPIC);
    this.loop = this.receive(socket, handlers);
    if (this.rawTxUrl) {
      const raw = new Subscriber();
      this.rawSocket = raw;
      raw.connect(this.rawTxUrl);
      raw.subscribe('rawtx');
      this.rawLoop = this.receiveRaw(raw);
    }
    await Promise.resolve();
  }

  private async receiveRaw(socket: Subscriber): Promise<void> {
    try {
      for await (const [topic, body] of socket) if (topic?.toString() === 'rawtx' && body) this.raws.push(body);
    } catch {
      // Ends on close; a missing raw only loses a version gone before it was fetched.
    }
  }

  private async receive(socket: Subscriber, handlers: MempoolEventHandlers): Promise<void> {
    try {
      for await (const frames of socket) {
        const [topic, body, counterFrame] = frames;
        if (!topic || topic.toString() !== TOPIC || !body || !counterFrame || counterFrame.length !== 4) continue;
        const counter = counterFrame.readUInt32LE(0);
        const expected = this.lastCounter === undefined ? undefined : (this.lastCounter + 1) >>> 0;
        this.lastCounter = counter;
        if (expected !== undefined && counter !== expected) handlers.gap(`zmq message ${counter} after ${expected - 1}`);
        const event = parseSequenceBody(body);
        if (event) handlers.event(event);
        else handlers.gap('malformed zmq sequence message');
      }
    } catch (error) {
      // Closing the socket ends the iterator with an error: expected on stop.
      if (!socket.closed) handlers.gap(`zmq receive failed: ${(error as Error).message}`);
    }
  }

  async stop(): Promise<void> {
    const socket = this.socket;
    this.socket = undefined;
    if (!socket) return;
    socket.close();
    this.rawSocket?.close();
    this.rawSocket = undefined;
    await Promise.all([this.loop, this.rawLoop]);
  }
}
