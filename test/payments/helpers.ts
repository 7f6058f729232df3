/**
 * Test helpers for the payment gate: a small fastify app with the real plugin and stub paid
 * routes, signers for valid and deliberately wrong payments, and a temporary DATA_DIR.
 */
import { TRANSFER_WITH_AUTHORIZATION_TYPES } from '../../src/payments/eip712.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { privateKeyToAccount, generatePrivateKey, type PrivateKeyAccount } from 'viem/accounts';
import { z } from 'zod';
import { loadConfig, type Config } from '../../src/config.js';
import { errorHandler } from '../../src/api/errorHandler.js';
import { Errors } from '../../src/errors.js';
import { encodeHeaderJson } from '../../src/payments/decode.js';
import { resolveNetworks } from '../../src/payments/networks.js';
import { paymentsPlugin, type PaymentsPluginOptions } from '../../src/payments/plugin.js';
import { sumUsd, type PaymentQuote } from '../../src/payments/prices.js';
import type { LedgerEntry, LedgerStatus } from '../../src/payments/ledger.js';
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from '../../src/payments/schemas.js';

export const PAY_TO = '0x209693Bc6afc0C5328bA36FaF03C514EF312287C';

/** Stub paid routes, each priced in its route config as the registry's routes are (`src/api/routes.ts`). */
export const STUB_PRICES: Readonly<Record<string, number>> = {
  'GET /health': 0,
  'GET /v1/paid': 0.001,
  'GET /v1/fails': 0.001,
  'GET /v1/slow': 0.001,
  'GET /v1/other': 0.001,
  'GET /v1/big': 0.001,
  'POST /v1/echo': 0.01,
};

/** Per-call prices of the stub JSON-RPC route. */
const STUB_RPC_PRICES: Readonly<Record<string, number>> = {
  eth_blockNumber: 0.001,
  eth_getBalance: 0.001,
  eth_chainId: 0,
  svc_templateCheck: 0.01,
  svc_templateBatchCheck: 0.05,
};

const priced = (key: string) => ({ config: { payment: { key, priceUsd: STUB_PRICES[key] ?? 0 } } });

/** The stub's quote for a JSON-RPC body: the sum of the known methods' prices. */
function rpcQuote(body: unknown): PaymentQuote {
  const calls: unknown[] = Array.isArray(body) ? body : [body];
  const prices = calls.map((c) => STUB_RPC_PRICES[String((c as { method?: unknown } | null)?.method)] ?? 0);
  return { priceUsd: sumUsd(prices), description: 'JSON-RPC' };
}

export function tempDir(): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'x402-test-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export function testConfig(env: Record<string, string | undefined>): Config {
  return loadConfig({ X402_NETWORKS: 'eip155:8453,eip155:84532,eip155:480', LOG_LEVEL: 'silent', ...env });
}

export interface StubAppOptions extends Partial<Omit<PaymentsPluginOptions, 'config'>> {
  config: Config;
  /** The first `warmup` runs of the paid handlers answer 503 MEMPOOL_NOT_READY, as a service warming up after a restart does. */
  warmup?: number;
  /** Where the app's log lines go (JSON, one per write); default: no logging. */
  logStream?: { write(line: string): void };
}

/** A fastify app shaped like `buildApp`'s (zod, error handler) with the payments plugin and stub routes. */
export interface StubApp extends FastifyInstance {
  served: () => number;
  /** `GET /v1/slow` waits in its handler until this is called; `slowEntered()` resolves when the next request is inside. */
  releaseSlow: () => void;
  slowEntered: () => Promise<{ closed: Promise<void> }>;
}

export async function stubApp(opts: StubAppOptions): Promise<StubApp> {
  const logger = opts.logStream ? { level: 'info', stream: opts.logStream } : false;
  const app = Fastify({ logger, trustProxy: opts.config.TRUST_PROXY }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler(errorHandler);
  await app.register(paymentsPlugin, opts);
  let served = 0;
  let warmup = opts.warmup ?? 0;
  const ready = () => {
    if (warmup-- > 0) throw new Errors.MEMPOOL_NOT_READY('warming up');
  };
  app.get('/health', priced('GET /health'), async () => ({ success: true }));
  app.get('/v1/paid', priced('GET /v1/paid'), async () => {
    ready();
    return { success: true, served: ++served };
  });
  // Resolves, once the handler is running, with a promise of the client's socket closing.
  let entered!: (inside: { closed: Promise<void> }) => void;
  let enteredP = new Promise<{ closed: Promise<void> }>((r) => (entered = r));
  let release!: () => void;
  let releaseP = new Promise<void>((r) => (release = r));
  app.get('/v1/slow', priced('GET /v1/slow'), async (req) => {
    entered({ closed: new Promise<void>((r) => req.raw.socket.once('close', () => r())) });
    await releaseP;
    return { success: true, served: ++served };
  });
  app.get('/v1/other', priced('GET /v1/other'), async () => ({ success: true, other: true, served: ++served }));
  // An answer larger than the answer cache keeps (64 KiB by default): recomputed on retry.
  app.get('/v1/big', priced('GET /v1/big'), async () => {
    ready();
    return { success: true, served: ++served, pad: 'x'.repeat(100_000) };
  });
  app.get('/v1/fails', priced('GET /v1/fails'), async () => {
    throw new Error('boom');
  });
  app.post('/v1/echo', { ...priced('POST /v1/echo'), schema: { body: z.object({ txid: z.string().regex(/^[0-9a-f]{64}$/) }) } }, async (req) => ({
    success: true,
    txid: req.body.txid,
    served: ++served,
  }));
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_r, body, done) => {
    try {
      done(null, JSON.parse(body as string));
    } catch (err) {
      done(err as Error);
    }
  });
  app.post(
    '/v1/rpc',
    {
      config: { payment: { key: 'POST /v1/rpc', priceUsd: 'per_call' } },
      preValidation: async (req) => {
        req.paymentQuote = rpcQuote(req.body);
      },
    },
    async (req, reply) => {
      const calls = (Array.isArray(req.body) ? req.body : [req.body]) as Array<{ id?: unknown; method?: string }>;
      served++;
      const answers = calls.map((c) =>
        c.method === 'eth_blockNumber'
          ? { jsonrpc: '2.0', id: c.id ?? null, result: '0x2a' }
          : c.method === 'eth_chainId'
            ? { jsonrpc: '2.0', id: c.id ?? null, result: '0x2105' }
            : { jsonrpc: '2.0', id: c.id ?? null, error: { code: -32000, message: 'node unavailable' } },
      );
      // As src/api/rpc/dispatch.ts: charged only when every priced call succeeded.
      if (answers.some((a, i) => 'error' in a && (STUB_RPC_PRICES[String(calls[i]?.method)] ?? 0) > 0)) req.paymentChargeable = false;
      return reply.send(Array.isArray(req.body) ? answers : answers[0]);
    },
  );
  return Object.assign(app, {
    served: () => served,
    releaseSlow: () => {
      release();
      releaseP = new Promise<void>((r) => (release = r));
    },
    slowEntered: () => {
      enteredP = new Promise<{ closed: Promise<void> }>((r) => (entered = r));
      return enteredP;
    },
  });
}

export function newAccount(): PrivateKeyAccount {
  return privateKeyToAccount(generatePrivateKey());
}

export function decodeHeader<T>(value: string | string[] | number | undefined): T {
  if (typeof value !== 'string') throw new Error(`missing header (${String(value)})`);
  return JSON.parse(Buffer.from(value, 'base64').toString('utf8')) as T;
}

/** The challenge each offered requirement came from: a stock client pays with its `resource`. */
const resourceOf = new WeakMap<PaymentRequirements, PaymentRequired['resource']>();

export function challengeOf(res: { headers: Record<string, unknown> }): PaymentRequired {
  const challenge = decodeHeader<PaymentRequired>(res.headers['payment-required'] as string);
  for (const r of challenge.accepts) resourceOf.set(r, challenge.resource);
  return challenge;
}

export interface AuthorizationFields {
  from?: `0x${string}`;
  to?: string;
  value?: string;
  validAfter?: string;
  validBefore?: string;
  nonce?: `0x${string}`;
}

export function randomNonce(): `0x${string}` {
  return `0x${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('hex')}`;
}

const TYPES = TRANSFER_WITH_AUTHORIZATION_TYPES;

/**
 * Signs an EIP-3009 authorization for `requirement` the way a stock client does, with fields
 * overridable so each check can be failed on purpose while the signature stays valid.
 */
export async function signPayment(
  account: PrivateKeyAccount,
  requirement: PaymentRequirements,
  fields: AuthorizationFields = {},
  options: {
    domainName?: string;
    signer?: PrivateKeyAccount;
    extensions?: Record<string, unknown>;
    accepted?: PaymentRequirements;
    resource?: PaymentRequired['resource'];
  } = {},
): Promise<PaymentPayload> {
  const now = Math.floor(Date.now() / 1000);
  const authorization = {
    from: fields.from ?? account.address,
    to: fields.to ?? requirement.payTo,
    value: fields.value ?? requirement.amount,
    validAfter: fields.validAfter ?? '0',
    validBefore: fields.validBefore ?? String(now + requirement.maxTimeoutSeconds),
    nonce: fields.nonce ?? randomNonce(),
  };
  const chainId = Number(requirement.network.split(':')[1]);
  const signature = await (options.signer ?? account).signTypedData({
    domain: {
      name: options.domainName ?? (requirement.extra?.name as string),
      version: requirement.extra?.version as string,
      chainId,
      verifyingContract: requirement.asset as `0x${string}`,
    },
    types: TYPES,
    primaryType: 'TransferWithAuthorization',
    message: {
      from: authorization.from,
      to: authorization.to as `0x${string}`,
      value: BigInt(authorization.value),
      validAfter: BigInt(authorization.validAfter),
      validBefore: BigInt(authorization.validBefore),
      nonce: authorization.nonce,
    },
  });
  return {
    x402Version: 2,
    // As a stock client does: the resource of the challenge the requirement came from.
    resource: options.resource ?? resourceOf.get(requirement) ?? { url: 'http://localhost/', description: 'test', mimeType: 'application/json' },
    accepted: options.accepted ?? requirement,
    payload: { signature, authorization },
    ...(options.extensions ? { extensions: options.extensions } : {}),
  };
}

export function paymentHeader(payload: unknown): string {
  return encodeHeaderJson(payload);
}

/** The first requirement offered for `network` in a 402. */
export function requirementFor(challenge: PaymentRequired, network = 'eip155:8453'): PaymentRequirements {
  const r = challenge.accepts.find((a) => a.network === network);
  if (!r) throw new Error(`no requirement for ${network}`);
  return r;
}

export { resolveNetworks };

/** A ledger row of placeholder values, for store and ledger tests that never verify it. */
export function ledgerEntry(nonceKey: string, status: LedgerStatus): LedgerEntry {
  const req = { scheme: 'exact', network: 'eip155:8453', amount: '1000', asset: '0xa', payTo: '0xb', maxTimeoutSeconds: 300 };
  return {
    nonceKey,
    route: 'GET /v1/x',
    priceUsd: 0.001,
    amount: '1000',
    network: 'eip155:8453',
    asset: '0xa',
    payTo: '0xb',
    payer: '0xc',
    nonce: '0x01',
    validBefore: 1,
    payload: {
      x402Version: 2,
      accepted: req,
      payload: { signature: '0x00', authorization: { from: '0xc', to: '0xb', value: '1000', validAfter: '0', validBefore: '1', nonce: '0x01' } },
    },
    requirements: req,
    status,
    requestHash: 'r',
    answerHash: 'a',
  };
}
