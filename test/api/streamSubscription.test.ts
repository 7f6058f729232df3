/**
 * Stream subscriptions: a client narrows what it receives (frame types, a minimum effective rate,
 * tracked txids) by sending a message; a tracked payment is followed through its replacement, the
 * block that confirms it and each template; bad messages get an `error` frame, and a client that
 * keeps sending them is closed with 1008.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';

import { openStream, type StreamFrame as Frame } from '../helpers/wsStream.js';
import { startTestWorld, type TestWorld } from '../helpers/testWorld.js';

const types = (frames: Frame[], from: number) => frames.slice(from).map((f) => f.type);

describe('mempool stream subscriptions', () => {
  let world: TestWorld;
  let base: string;
  const open = async () => {
    const { url } = (await (await fetch(`${base}/v1/mempool/stream-ticket`)).json()) as { url: string };
    const stream = openStream(url);
    await stream.until((f) => f.some((x) => x.type === 'hello'));
    return stream;
  };

  beforeAll(async () => {
    world = await startTestWorld({ seed: 21, env: { PAYMENTS_ENABLED: 'false' }, events: true });
    await world.app.mempool.mirror.poll();
    base = await world.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await world?.close();
  });

  it('default: only the frame types asked for, and only txs at or above minRate', async () => {
    const stream = await open();
    const hello = stream.frames[0]!;
    expect(hello.clientMessages).toEqual(['subscribe', 'unsubscribe']);
    stream.socket.send(JSON.stringify({ action: 'subscribe', frames: ['txs', 'block'], minRate: 5 }));
    await stream.until((f) => f.some((x) => x.type === 'subscribed'));
    const subscribed = stream.frames.find((f) => f.type === 'subscribed')!;
    expect(subscribed).toMatchObject({ frames: ['txs', 'block'], minRate: 5, txids: null });
    const from = stream.frames.length;
    for (let i = 0; i < 30 && !stream.frames.slice(from).some((f) => f.type === 'txs'); i++) {
      await world.simnet.control.addTransactions(20);
      await new Promise((r) => setTimeout(r, 50));
    }
    const [hash] = await world.simnet.control.mineBlocks(1);
    await stream.until((f) => f.some((x) => x.type === 'block' && x.hash === hash));
    const got = stream.frames.slice(from);
    expect(new Set(types(stream.frames, from))).toEqual(new Set(['txs', 'block']));
    const rates = got.filter((f) => f.type === 'txs').flatMap((f) => (f.txs as Array<{ effectiveRate: number }>).map((t) => t.effectiveRate));
    expect(rates.length).toBeGreaterThan(0);
    expect(Math.min(...rates)).toBeGreaterThanOrEqual(5);
    // The seq still counts every frame this client got, without gaps.
    expect(stream.frames.map((f) => f.seq)).toEqual(stream.frames.map((_, i) => i + 1));
    // Unsubscribing brings every frame type back.
    stream.socket.send(JSON.stringify({ action: 'unsubscribe' }));
    await stream.until((f) => f.filter((x) => x.type === 'subscribed').length === 2);
    const [fresh] = await world.simnet.control.addTransactions(1);
    const again = stream.frames.length;
    await world.simnet.control.replaceTransaction(fresh);
    await stream.until((f) => f.slice(again).some((x) => x.type === 'replacement'));
    stream.socket.close();
  });

  it('behavior: a tracked tx is followed through its replacement, the template and the block that confirms it', async () => {
    const stream = await open();
    const [mine, other] = (await world.simnet.control.addTransactions(2)) as [string, string];
    await world.app.mempool.mirror.poll();
    expect(world.app.mempool.mirror.txs.has(mine)).toBe(true);
    stream.socket.send(JSON.stringify({ action: 'subscribe', txids: [mine.toUpperCase()] }));
    await stream.until((f) => f.some((x) => x.type === 'subscribed'));
    expect(stream.frames.find((f) => f.type === 'subscribed')!.txids).toEqual([mine]);

    // Another tx's replacement is not shown; ours is, and the new version is tracked from then on.
    const from = stream.frames.length;
    await world.simnet.control.replaceTransaction(other);
    const { replacement } = await world.simnet.control.replaceTransaction(mine);
    await stream.until((f) => f.slice(from).some((x) => x.type === 'replacement'));
    const replacements = stream.frames.slice(from).filter((f) => f.type === 'replacement');
    expect(replacements.map((f) => (f.old as { txid: string }).txid)).toEqual([mine]);
    expect(
      stream.frames
        .slice(from)
        .filter((f) => f.type === 'removed')
        .flatMap((f) => (f.txs as Array<{ txid: string }>).map((t) => t.txid)),
    ).toEqual([mine]);
    await stream.until((f) => f.slice(from).some((x) => x.type === 'txs'));
    expect(
      stream.frames
        .slice(from)
        .filter((f) => f.type === 'txs')
        .flatMap((f) => (f.txs as Array<{ txid: string }>).map((t) => t.txid)),
    ).toEqual([replacement]);

    // Each template says where the tracked txs stand.
    await world.app.mempool.mirror.poll();
    await world.app.optimizer.service.refresh();
    await stream.until((f) => f.slice(from).some((x) => x.type === 'template'));
    const template = stream.frames.slice(from).find((f) => f.type === 'template')!;
    const tracked = template.tracked as Array<{ txid: string; effectiveRate: number | null; projectedBlock: number | null }>;
    expect(tracked.map((t) => t.txid).sort()).toEqual([mine, replacement].sort());
    const now = tracked.find((t) => t.txid === replacement)!;
    expect(now.effectiveRate).toBeGreaterThan(0);
    expect(now.projectedBlock).not.toBeNull();
    expect(tracked.find((t) => t.txid === mine)).toEqual({ txid: mine, effectiveRate: null, projectedBlock: null });

    // The block frame names the tracked tx it confirmed.
    const [hash] = await world.simnet.control.mineBlocks(1);
    await stream.until((f) => f.some((x) => x.type === 'block' && x.hash === hash));
    const block = stream.frames.find((f) => f.type === 'block' && f.hash === hash)!;
    const confirmed = world.app.mempool.mirror.txs.has(replacement) ? [] : [replacement];
    expect(block.trackedConfirmed).toEqual(confirmed);
    stream.socket.close();
  });

  it('error: a bad message gets an error frame and the stream stays open; a client that keeps sending them is closed with 1008', async () => {
    const stream = await open();
    const bad = [
      'not json',
      JSON.stringify({ action: 'subscribe', txids: ['abc'] }),
      JSON.stringify({ action: 'subscribe', frames: ['hello'] }),
      JSON.stringify({ action: 'dance' }),
    ];
    for (const message of bad) stream.socket.send(message);
    stream.socket.send(Buffer.from([1, 2, 3]), { binary: true });
    stream.socket.send('x'.repeat(20_000));
    await stream.until((f) => f.filter((x) => x.type === 'error').length === 6);
    const errors = stream.frames.filter((f) => f.type === 'error');
    expect(errors.every((e) => e.code === 'INVALID_MESSAGE' && typeof e.message === 'string')).toBe(true);
    expect(errors[1]!.message).toMatch(/txids\.0: a txid is 64 hex characters/);
    expect(stream.socket.readyState).toBe(WebSocket.OPEN);
    for (let i = 0; i < 20; i++) stream.socket.send('{');
    expect((await stream.closed).code).toBe(1008);
  });
});
