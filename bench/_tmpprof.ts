import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { Session } from 'node:inspector/promises';
import { writeFileSync } from 'node:fs';
import { loadConfig } from '../src/config.js';
import { encodeHeaderJson } from '../src/payments/decode.js';
import { paymentsPlugin } from '../src/payments/plugin.js';
import { presign, PUBLIC_BASE_URL } from './payments.bench.js';
const PAY_TO = '0x209693Bc6afc0C5328bA36FaF03C514EF312287C';
const ENV = { PAY_TO, X402_NETWORKS: 'eip155:8453,eip155:137,eip155:42161,eip155:480', LOG_LEVEL: 'silent', PUBLIC_BASE_URL };
const priced = (key: string, priceUsd: number) => ({ config: { payment: { key, priceUsd } } });
const dir = mkdtempSync(join(tmpdir(), 'pp-'));
const app = Fastify({ logger: false });
await app.register(paymentsPlugin, { config: loadConfig({ ...ENV, DATA_DIR: dir, X402_ALLOW_UNSETTLED: '1' }) });
const cached = JSON.stringify({ success: true, height: 875_000, hex: '0xd59f8' });
app.get('/health', priced('GET /health', 0), async (_req, reply) => reply.type('application/json').send('{"success":true,"status":"ok"}'));
app.get('/v1/block-height', priced('GET /v1/block-height', 0.001), async (_req, reply) => reply.type('application/json').send(cached));
await app.ready();
const n = Number(process.env.N ?? 4000);
const headers = presign(n * 2).map((p) => encodeHeaderJson(p));
async function drive(url: string, list: (string | undefined)[]) {
  let next = 0;
  const c0 = process.cpuUsage();
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (next < list.length) {
      const h = list[next++];
      const res = await app.inject({ method: 'GET', url, headers: h ? { 'payment-signature': h } : {} });
      if (res.statusCode !== 200) throw new Error(`answered ${res.statusCode} ${res.body}`);
    }
  }));
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / list.length;
}
await drive('/health', Array(n).fill(undefined));
await drive('/v1/block-height', headers.slice(n));
const free = await drive('/health', Array(n).fill(undefined));
const session = new Session(); session.connect();
await session.post('Profiler.enable'); await session.post('Profiler.start');
const paid = await drive('/v1/block-height', headers.slice(0, n));
const { profile } = await session.post('Profiler.stop');
writeFileSync('/tmp/tsperf/paid.cpuprofile', JSON.stringify(profile));
console.log(`inject: free ${free.toFixed(0)} µs/req, paid ${paid.toFixed(0)} µs/req`);
await app.close();
