/**
 * Facilitator outages logged once per state change (issue 22 item 4): with the facilitator's
 * `/verify` and `/settle` failing (its breaker set never to open), N paid requests write one warn
 * line each for the outage, not one per request; when the facilitator answers again one line says
 * so with how many were not logged, and the next outage is logged at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockFacilitator, type MockFacilitator } from '../helpers/mockFacilitator.js';
import { challengeOf, newAccount, PAY_TO, paymentHeader, requirementFor, signPayment, stubApp, tempDir, testConfig } from './helpers.js';

interface LogLine {
  level: number;
  msg: string;
  notLogged?: number;
}

const N = 40;
const WARN = 40;
const account = newAccount();
const lines: LogLine[] = [];
let tmp: ReturnType<typeof tempDir>;
let mock: MockFacilitator;
let app: Awaited<ReturnType<typeof stubApp>>;

beforeAll(async () => {
  tmp = tempDir();
  mock = await startMockFacilitator('error');
  const config = testConfig({
    DATA_DIR: tmp.dir,
    PAY_TO,
    X402_NETWORKS: 'eip155:8453',
    X402_FACILITATOR_URL: mock.url,
    X402_BREAKER_FAILURES: '1000',
    RATE_LIMIT_MAX: '0',
  });
  app = await stubApp({ config, reconcileIntervalMs: 3_600_000, logStream: { write: (line) => void lines.push(JSON.parse(line) as LogLine) } });
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  await mock?.close();
  tmp?.remove();
});

async function paid(): Promise<number> {
  const req = requirementFor(challengeOf(await app.inject({ method: 'GET', url: '/v1/paid' })));
  const header = paymentHeader(await signPayment(account, req));
  return (await app.inject({ method: 'GET', url: '/v1/paid', headers: { 'payment-signature': header } })).statusCode;
}

const facilitatorLines = (from: number) => lines.slice(from).filter((l) => /facilitator|settle/.test(l.msg));

describe('facilitator down: warn once per state change', () => {
  it(`behavior: ${N} paid requests with /verify and /settle failing log one warn line for each, not one per request`, async () => {
    const from = lines.length;
    for (let i = 0; i < N; i++) expect(await paid()).toBe(200);
    expect(mock.calls.verify).toBe(N);
    const warns = lines.slice(from).filter((l) => l.level >= WARN);
    expect(warns.map((l) => l.msg).sort()).toEqual([
      'payments: facilitator /verify unavailable, continuing on local verification',
      'payments: settlement pending',
    ]);
  });

  it('behavior: the facilitator back: one line each with the count not logged; the next outage is logged at once', async () => {
    mock.mode = 'ok';
    let from = lines.length;
    expect(await paid()).toBe(200);
    const back = facilitatorLines(from);
    expect(back.map((l) => [l.msg, l.notLogged])).toEqual(
      expect.arrayContaining([
        ['payments: facilitator /verify answers again', N - 1],
        ['payments: settlements go through again', N - 1],
      ]),
    );
    expect(back).toHaveLength(2);

    mock.mode = 'error';
    from = lines.length;
    for (let i = 0; i < 5; i++) expect(await paid()).toBe(200);
    expect(facilitatorLines(from).filter((l) => l.level >= WARN)).toHaveLength(2);
  });
});
