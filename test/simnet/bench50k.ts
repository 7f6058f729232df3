/**
 * Measures the simulated node at the sizes that matter (not part of the test suite):
 * 1. start-up with a 1,500-transaction mempool until the first `getrawmempool true` answers;
 * 2. adding 50,000 transactions through the owner's control (and how the RPC server stays responsive meanwhile);
 * 3. `getrawmempool true` at 50,000 entries: first call (builds the view) and a repeat, through
 *    `BitcoinNode` (the `bitcoin-core` client) and through a plain `fetch` + `JSON.parse`;
 * 4. `getblocktemplate` and mining one block at that size.
 *
 * Run: npx tsx test/simnet/bench50k.ts [txCount=50000]
 */
import { startSimnet } from '../../src/simnet/index.js';
import { parseRpcUrl } from '../../src/node/rpcTransport.js';
import { bitcoinNode, POLICY } from './helpers.js';

const target = Number(process.argv[2] ?? 50_000);
const ms = (t0: number): number => Math.round(performance.now() - t0);

async function rawCall(rpcUrl: string, method: string, params: unknown[]): Promise<{ ms: number; bytes: number; result: unknown }> {
  const { host, username, password } = parseRpcUrl(rpcUrl);
  const t0 = performance.now();
  const res = await fetch(`${host}/`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}` },
    body: JSON.stringify({ id: 'bench', method, params }),
  });
  const text = await res.text();
  const parsed = JSON.parse(text) as { result: unknown };
  return { ms: ms(t0), bytes: text.length, result: parsed.result };
}

async function main(): Promise<void> {
  // 1. Start-up as `npm start` does it (1,500 transactions, automatic activity off for the measure).
  let t0 = performance.now();
  const small = await startSimnet({ seed: 1, initialTxs: 1500, ...POLICY });
  const node = bitcoinNode(small.rpcUrl);
  const firstPool = await node.getRawMempoolVerbose();
  console.log(
    `start-up (1,500 txs): ${ms(t0)} ms until getrawmempool true answered (${Object.keys(firstPool).length} entries; worker build ${small.startupMs} ms)`,
  );
  await small.close();

  // 2. Adding `target` transactions.
  t0 = performance.now();
  const sim = await startSimnet({ seed: 2, initialTxs: 0, fundingUtxos: Math.ceil(target * 2), ...POLICY });
  console.log(`start-up with ${Math.ceil(target * 2)} funding coins: ${ms(t0)} ms`);
  const big = bitcoinNode(sim.rpcUrl);
  let added = 0;
  const latencies: number[] = [];
  const probe = setInterval(() => {
    const p0 = performance.now();
    void big.getBlockCount().then(() => latencies.push(ms(p0)));
  }, 500);
  t0 = performance.now();
  // Replacements evict what they replace, so keep adding until the mempool itself holds `target`.
  for (let size = 0; size < target; size = (await sim.control.stats()).mempoolSize) {
    const batch = await sim.control.addTransactions(Math.min(10_000, target - size));
    if (batch.length === 0) break;
    added += batch.length;
    console.log(`  ${added} added, mempool ${(await sim.control.stats()).mempoolSize}, ${ms(t0)} ms`);
  }
  clearInterval(probe);
  const addMs = ms(t0);
  const stats = await sim.control.stats();
  console.log(
    `added ${added} txs in ${addMs} ms (${((addMs / added) * 1000).toFixed(0)} µs/tx); mempool ${stats.mempoolSize} txs, ${stats.mempoolVsize} vB; signing: ${stats.signingBackend}`,
  );
  console.log(
    `RPC latency while adding (getblockcount every 500 ms): max ${Math.max(...latencies)} ms, median ${latencies.sort((a, b) => a - b)[Math.floor(latencies.length / 2)]} ms`,
  );

  // 3. getrawmempool true at that size: right away (entry data partly cold), then again (cached).
  for (const label of ['first, right after adding', 'repeat (cached)']) {
    const r = await rawCall(sim.rpcUrl, 'getrawmempool', [true]);
    console.log(
      `getrawmempool true ${label}: fetch+JSON.parse ${r.ms} ms, ${(r.bytes / 1e6).toFixed(1)} MB, ${Object.keys(r.result as object).length} entries`,
    );
  }
  t0 = performance.now();
  const verbose = await big.getRawMempoolVerbose({ timeoutMs: 60_000 });
  console.log(`getrawmempool true via BitcoinNode (bitcoin-core client + zod): ${ms(t0)} ms, ${Object.keys(verbose).length} entries`);

  // 4. Template and mining.
  let r = await rawCall(sim.rpcUrl, 'getblocktemplate', [{ rules: ['segwit'] }]);
  console.log(`getblocktemplate: ${r.ms} ms, ${(r.result as { transactions: unknown[] }).transactions.length} txs`);
  t0 = performance.now();
  await sim.control.mineBlocks(1);
  console.log(`mine one block: ${ms(t0)} ms`);
  await sim.control.addTransactions(1);
  r = await rawCall(sim.rpcUrl, 'getrawmempool', [true]);
  console.log(`getrawmempool true right after mining a block and one arrival: ${r.ms} ms`);
  await new Promise((resolve) => setTimeout(resolve, 3000));
  await sim.control.addTransactions(1);
  r = await rawCall(sim.rpcUrl, 'getrawmempool', [true]);
  console.log(`getrawmempool true after one more arrival (idle warming had 3 s): ${r.ms} ms`);
  await sim.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
