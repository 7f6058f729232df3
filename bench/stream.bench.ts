/**
 * The mempool stream's fan-out: 1,000 WebSocket clients (`ws`, on loopback, in this process) on one
 * `StreamHub`; each round one mirror diff (one new tx, as an event brings it) becomes a `txs` frame
 * for every client. Measured: event-to-frame latency per client (from the diff's emit to the frame's
 * arrival at the client, p50 and p99) and frames fanned out per second. Server and clients share
 * one event loop and two cores, so the latency includes the clients' own parsing.
 */
import { EventEmitter } from 'node:events';
import { createServer } from 'node:http';
import WebSocket, { WebSocketServer } from 'ws';
import type { MempoolDiff, MempoolMirror, MirrorTx } from '../src/mempool/mirror.js';
import type { OptimizerService } from '../src/optimizer/optimizerService.js';
import { StreamHub } from '../src/stream/hub.js';
import { mirrorTx } from '../test/helpers/mirrorTx.js';

const CLIENTS = 1000;
const ROUNDS = 200;

function fakeTx(i: number): MirrorTx {
  return mirrorTx(i.toString(16).padStart(64, '0'), 2820, 561);
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))] ?? NaN;

export async function run(): Promise<void> {
  const mirror = Object.assign(new EventEmitter(), { txs: new Map<string, MirrorTx>(), tipHeight: 1, tipHash: '00'.repeat(32) }) as unknown as MempoolMirror;
  const optimizer = Object.assign(new EventEmitter(), { cache: undefined }) as unknown as OptimizerService;
  const hub = new StreamHub(mirror, optimizer, { maxBufferBytes: 1 << 20, mempoolFrameMs: 1e9 });
  const http = createServer();
  const wss = new WebSocketServer({ server: http });
  wss.on('connection', (socket) => hub.attach(socket, Date.now() + 3_600_000));
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const { port } = http.address() as { port: number };

  const latencies: number[] = [];
  let sentAt = 0;
  let received = 0;
  let roundDone: (() => void) | undefined;
  const clients: WebSocket[] = [];
  for (let i = 0; i < CLIENTS; i++) {
    const ws = new WebSocket(`ws://127.0.0.1:${port}`);
    ws.on('message', (data: Buffer) => {
      if (!data.includes('"type":"txs"')) return;
      latencies.push(performance.now() - sentAt);
      received += 1;
      if (received === CLIENTS) roundDone?.();
    });
    await new Promise((r) => ws.once('open', r));
    clients.push(ws);
  }

  const started = performance.now();
  for (let round = 0; round < ROUNDS; round++) {
    received = 0;
    const done = new Promise<void>((r) => (roundDone = r));
    sentAt = performance.now();
    const diff: MempoolDiff = { at: Date.now(), added: [fakeTx(round)], removed: [], blocks: [] };
    mirror.emit('diff', diff);
    await done;
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `stream fan-out, ${CLIENTS} clients × ${ROUNDS} diffs: event-to-frame p50 ${pct(latencies, 0.5).toFixed(1)} ms, p99 ${pct(latencies, 0.99).toFixed(1)} ms; ` +
      `${Math.round((CLIENTS * ROUNDS) / seconds)} frames/s fanned out (server and clients in one process)`,
  );
  hub.close();
  for (const ws of clients) ws.terminate();
  wss.close();
  await new Promise((r) => http.close(r));
}
