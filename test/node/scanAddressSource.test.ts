import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ParsedAddress } from '../../src/bitcoin/address.js';
import { BitcoinNode } from '../../src/node/bitcoinNode.js';
import { ScanAddressSource } from '../../src/node/scanAddressSource.js';

type Mode = 'hang' | 'busy' | 'aborted' | 'ok';

/** A JSON-RPC server that answers `scantxoutset` as a real Core would in each situation. */
let mode: Mode = 'ok';
const calls: string[] = [];
const hanging: ServerResponse[] = [];
let server: Server;
let url: string;

function answer(res: ServerResponse, id: unknown, result: unknown, error: unknown = null, status = 200): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ result, error, id }));
}

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const { id, method, params } = JSON.parse(body) as { id: unknown; method: string; params: unknown[] };
      calls.push(`${method} ${String(params[0])}`);
      if (method !== 'scantxoutset') return answer(res, id, null, { code: -32601, message: 'Method not found' }, 404);
      if (params[0] === 'abort') return answer(res, id, true);
      if (mode === 'hang') return void hanging.push(res);
      if (mode === 'busy') return answer(res, id, null, { code: -8, message: 'Scan already in progress, use action "abort" or "status"' }, 500);
      const tip = 'ab'.repeat(32);
      const unspents = [
        { txid: 'cd'.repeat(32), vout: 0, scriptPubKey: '0014' + '11'.repeat(20), desc: 'raw()', amount: 0.5, coinbase: false, height: 90, blockhash: tip },
      ];
      answer(res, id, { success: mode === 'ok', txouts: 1000, height: 100, bestblock: tip, unspents, total_amount: 0.5 });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  url = `http://u:p@127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  for (const res of hanging) res.destroy();
  await new Promise((r) => server.close(r));
});

const address = (n: number): ParsedAddress => ({ address: `addr${n}`, type: 'p2wpkh', scriptPubKeyHex: '0014' + n.toString(16).padStart(40, '0') });

describe('ScanAddressSource against Core scantxoutset behaviour', () => {
  it('behavior: a scan that times out is aborted on the node (Core keeps scanning otherwise and refuses the next one)', async () => {
    mode = 'hang';
    calls.length = 0;
    const source = new ScanAddressSource(new BitcoinNode({ url, timeoutMs: 1000, scanTimeoutMs: 200 }), 0);
    await expect(source.utxos(address(1))).rejects.toMatchObject({ code: 'NODE_TIMEOUT', statusCode: 503 });
    await expect.poll(() => calls).toContain('scantxoutset abort');
  });

  it('error: a scan refused because another one runs is 503 ADDRESS_SOURCE_UNAVAILABLE, not a 502', async () => {
    mode = 'busy';
    const source = new ScanAddressSource(new BitcoinNode({ url, timeoutMs: 1000, scanTimeoutMs: 1000 }), 0);
    await expect(source.balance(address(2))).rejects.toMatchObject({ code: 'ADDRESS_SOURCE_UNAVAILABLE', statusCode: 503 });
  });

  it('error: an aborted scan (success false, partial unspents) is not an answer', async () => {
    mode = 'aborted';
    const source = new ScanAddressSource(new BitcoinNode({ url, timeoutMs: 1000, scanTimeoutMs: 1000 }));
    await expect(source.balance(address(3))).rejects.toMatchObject({ code: 'ADDRESS_SOURCE_UNAVAILABLE' });
    mode = 'ok';
    expect((await source.balance(address(3))).confirmedSat).toBe(50_000_000);
  });

  it('behavior: requests for one address share a scan; past the queue bound the answer is 503 at once', async () => {
    mode = 'hang';
    calls.length = 0;
    const source = new ScanAddressSource(new BitcoinNode({ url, timeoutMs: 1000, scanTimeoutMs: 800 }), 0, 1_000, Date.now, 2);
    const first = source.utxos(address(4));
    const same = source.utxos(address(4));
    const second = source.utxos(address(5));
    const started = Date.now();
    await expect(source.utxos(address(6))).rejects.toMatchObject({ code: 'ADDRESS_SOURCE_UNAVAILABLE' });
    expect(Date.now() - started).toBeLessThan(100);
    await Promise.allSettled([first, same, second]);
    expect(calls.filter((c) => c === 'scantxoutset start')).toHaveLength(2);
  });
});
