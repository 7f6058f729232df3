/**
 * The paid mempool stream end to end: a ticket bought with the stock x402 client, a real `ws`
 * client on the WebSocket, frames from the simulated node's events (a replacement, a block), a
 * second use of the ticket refused, expiry closing with 4001, a stalled client dropped while
 * another keeps receiving, and a clean close on shutdown.
 */
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';

import { openStream } from '../helpers/wsStream.js';
import type { MirrorTx } from '../../src/mempool/mirror.js';
import { newAccount, PAY_TO } from '../payments/helpers.js';
import { startTestWorld, type TestWorld } from '../helpers/testWorld.js';
import { mirrorTx } from '../helpers/mirrorTx.js';

describe('GET /v1/mempool/stream-ticket and the WebSocket stream', () => {
  let world: TestWorld;
  let base: string;
  const payingFetch = wrapFetchWithPayment(fetch, registerExactEvmScheme(new x402Client(), { signer: newAccount() }));
  const buyTicket = async (): Promise<{ ticket: string; url: string; ttlSeconds: number; expiresAt: string }> => {
    const res = await payingFetch(`${base}/v1/mempool/stream-ticket`);
    expect(res.status).toBe(200);
    return (await res.json()) as { ticket: string; url: string; ttlSeconds: number; expiresAt: string };
  };

  beforeAll(async () => {
    world = await startTestWorld({
      seed: 11,
      env: { PAYMENTS_ENABLED: 'true', PAY_TO, X402_NETWORKS: 'eip155:8453', STREAM_TICKET_TTL_SECONDS: '3', STREAM_MAX_BUFFER_BYTES: '65536' },
      events: true,
    });
    await world.app.mempool.mirror.poll();
    base = await world.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await world?.close();
  });

  it('default: a paid ticket opens a stream; a replacement and a block in the node arrive as frames', async () => {
    const unpaid = await fetch(`${base}/v1/mempool/stream-ticket`);
    expect(unpaid.status).toBe(402);
    const ticket = await buyTicket();
    expect(ticket.ttlSeconds).toBe(3);
    expect(ticket.url).toBe(`${base.replace('http', 'ws')}/v1/mempool/stream?ticket=${ticket.ticket}`);
    const stream = openStream(ticket.url);
    await stream.until((f) => f.some((x) => x.type === 'hello') && f.some((x) => x.type === 'mempool'));
    // Events reach the mirror once the subscription is up: make changes until the first `txs`.
    for (let i = 0; !stream.frames.some((f) => f.type === 'txs') && i < 100; i++) {
      await world.simnet.control.addTransactions(1);
      await new Promise((r) => setTimeout(r, 50));
    }
    const { replaced, replacement } = await world.simnet.control.replaceTransaction();
    await stream.until((f) => f.some((x) => x.type === 'replacement' && (x.new as { txid: string }).txid === replacement));
    const frame = stream.frames.find((x) => x.type === 'replacement' && (x.new as { txid: string }).txid === replacement)!;
    expect((frame.old as { txid: string }).txid).toBe(replaced[0]);
    expect(frame.feeDelta).toBeGreaterThan(0);
    const [hash] = await world.simnet.control.mineBlocks(1);
    await stream.until((f) => f.some((x) => x.type === 'block' && x.hash === hash));
    // Every frame has a type and the seq counts 1, 2, 3, …
    expect(stream.frames.map((f) => f.seq)).toEqual(stream.frames.map((_, i) => i + 1));
    const txs = stream.frames.find((f) => f.type === 'txs')!.txs as Array<Record<string, unknown>>;
    expect(Object.keys(txs[0]!).sort()).toEqual(['effectiveRate', 'fee', 'projectedBlock', 'rate', 'txid', 'vsize']);

    // /metrics counts the open stream beside the dashboard's feeds.
    const metrics = (await world.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toMatch(/^stream_clients\{kind="mempool"\} 1$/m);

    // The ticket is single-use.
    const again = openStream(ticket.url);
    expect(await again.closed).toEqual({ code: 4009, reason: 'ticket used' });
    const bogus = openStream(`${base.replace('http', 'ws')}/v1/mempool/stream?ticket=${'x'.repeat(43)}`);
    expect((await bogus.closed).code).toBe(4004);
    // It expires (3 s here): the stream closes with 4001.
    expect(await stream.closed).toEqual({ code: 4001, reason: 'ticket expired' });
  });

  it('error: a plain GET of the stream is 426; a ticket bought and left past its expiry is refused with 4001', async () => {
    const plain = await fetch(`${base}/v1/mempool/stream?ticket=abc`);
    expect(plain.status).toBe(426);
    expect(((await plain.json()) as { error: { code: string } }).error.code).toBe('UPGRADE_REQUIRED');
    const ticket = await buyTicket();
    await new Promise((r) => setTimeout(r, 3_100));
    expect((await openStream(ticket.url).closed).code).toBe(4001);
  });

  it('behavior: a client that does not read is dropped with 4008 while another keeps receiving', async () => {
    const reader = openStream((await buyTicket()).url);
    const stalled = openStream((await buyTicket()).url);
    await reader.until((f) => f.some((x) => x.type === 'hello'));
    await stalled.until((f) => f.some((x) => x.type === 'hello'));
    // The stalled client stops reading from its socket; the server then has to queue what it sends.
    (stalled.socket as unknown as { _socket: { pause(): void } })._socket.pause();
    const before = reader.frames.length;
    const { mirror } = world.app.mempool;
    const some: MirrorTx[] = Array.from({ length: 200 }, (_, i) => mirrorTx(i.toString(16).padStart(64, 'f'), 1000 + i, 561));
    // Large diffs (200 made-up txs each, sent as they would be) until the stalled client's queue passes the 64 KiB limit
    // and the kernel's socket buffers.
    for (let i = 0; i < 2_000 && world.app.stream.droppedSlow === 0; i++) {
      mirror.emit('diff', { at: Date.now(), added: some, removed: [], blocks: [] });
      if (i % 20 === 0) await new Promise((r) => setImmediate(r));
    }
    expect(world.app.stream.droppedSlow).toBe(1);
    await reader.until((f) => f.length > before + 100);
    expect(reader.socket.readyState).toBe(WebSocket.OPEN);
    (stalled.socket as unknown as { _socket: { resume(): void } })._socket.resume();
    expect((await stalled.closed).code).toBe(4008);
    reader.socket.close();
  });
});

describe('shutdown', () => {
  it('behavior: closing the server closes open streams with 1001', async () => {
    const world = await startTestWorld({ seed: 12, env: { PAYMENTS_ENABLED: 'false' } });
    try {
      await world.app.mempool.mirror.poll();
      const base = await world.app.listen({ host: '127.0.0.1', port: 0 });
      const { url } = (await (await fetch(`${base}/v1/mempool/stream-ticket`)).json()) as { url: string };
      const stream = openStream(url);
      await stream.until((f) => f.some((x) => x.type === 'hello'));
      await world.app.close();
      expect((await stream.closed).code).toBe(1001);
    } finally {
      await world.close().catch(() => undefined);
    }
  });
});
