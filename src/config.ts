/**
 * Environment → typed Config. Every setting the service reads is declared here, once, with its
 * default and meaning (the README table is generated from `CONFIG_DOCS`, and a test checks that
 * both agree). `src/main.ts` is the only caller that passes `process.env`.
 */
import { z } from 'zod';
import { firstIssue } from './util/zodIssue.js';

const bool = z.enum(['1', '0', 'true', 'false', 'yes', 'no', 'on', 'off']).transform((v) => v === '1' || v === 'true' || v === 'yes' || v === 'on');

/** `TRUST_PROXY`: off/on, a hop count, or the proxies' addresses (fastify's `trustProxy`). */
const trustProxy = z.union([
  bool,
  z
    .string()
    .regex(/^\d{1,2}$/)
    // The n nearest hops are proxies (fastify's types take a hop count as this function).
    .transform((v) => (_address: string, hop: number) => hop < Number(v)),
  z
    .string()
    .regex(/^[0-9a-fA-F:.]+(\/\d{1,3})?(,[0-9a-fA-F:.]+(\/\d{1,3})?)*$/, 'must be true, false, a hop count or a comma-separated list of addresses/CIDRs')
    .transform((v) => v.split(',')),
]);

const port = z.coerce.number().int().min(0).max(65535);
const positiveInt = z.coerce.number().int().positive();
const nonNegativeInt = z.coerce.number().int().min(0);

/** `http(s)://user:pass@host:port[/path]`: credentials in the URL are how Core's RPC is reached. */
const httpUrl = z
  .string()
  .url()
  .refine((u) => /^https?:\/\//.test(u), 'must start with http:// or https://');

const evmAddress = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte hex address');

/** x402 networks with a built-in asset table (`src/payments/networks.ts`); 84532 is the only testnet. */
const KNOWN_X402_NETWORKS: readonly string[] = ['eip155:8453', 'eip155:137', 'eip155:42161', 'eip155:84532', 'eip155:480'];
const KNOWN_X402_NETWORKS_TEXT = KNOWN_X402_NETWORKS.join(', ');
/** Networks whose payments are real money. */
const TESTNET_X402_NETWORKS: ReadonlySet<string> = new Set(['eip155:84532']);

/** One row per variable: the schema, its default (as the environment would spell it) and its meaning. */
const VARIABLES = {
  NODE_ENV: {
    schema: z.string().max(32).optional(),
    default: undefined,
    doc: '`production` refuses payment modes that never settle on chain (demo, local-unsettled) and test-only switches.',
  },
  HOST: { schema: z.string().min(1), default: '127.0.0.1', doc: 'Interface the HTTP server listens on.' },
  PORT: { schema: port, default: '8402', doc: 'TCP port of the HTTP server (0 = any free port).' },
  DATA_DIR: {
    schema: z.string().min(1),
    default: './data',
    doc: 'Directory for state: receipt key, payment ledger, replacement history. Made mode 0700 at start, even when it already exists with another mode.',
  },
  LOG_LEVEL: {
    schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    default: 'info',
    doc: 'pino log level.',
  },
  PUBLIC_BASE_URL: {
    schema: httpUrl.optional(),
    default: undefined,
    doc: 'Public base address used in payment challenges and documents (default: http://HOST:PORT).',
  },
  TRUST_PROXY: {
    schema: trustProxy,
    default: 'false',
    doc: 'Which peers may set X-Forwarded-For/-Proto/-Host: `false` (none: those headers are ignored; a payment is bound to PUBLIC_BASE_URL or the Host header), a comma-separated list of proxy addresses or CIDRs (e.g. `127.0.0.1,10.0.0.0/8`: recommended behind a load balancer), a number of hops, or `true` (anyone: only when nothing but the proxy can reach the service). The client address (rate limits, logs) is the first hop not trusted.',
  },
  BODY_LIMIT_BYTES: {
    schema: positiveInt.max(16 * 1024 * 1024),
    default: '1048576',
    doc: 'Upper bound on any request body (413 above it). Each route has its own, smaller limit derived from the registry: a few KB for one call, `RPC_BATCH_MAX` calls for /v1/rpc.',
  },
  HTTP_REQUEST_TIMEOUT_MS: {
    schema: positiveInt.min(100).max(600_000),
    default: '10000',
    doc: 'Time a client has to send a whole request (headers and body); a slower one gets 408 and is disconnected.',
  },
  HTTP_CONNECTION_TIMEOUT_MS: {
    schema: positiveInt.min(100).max(600_000),
    default: '30000',
    doc: 'A socket idle for this long is closed.',
  },
  HTTP_KEEP_ALIVE_TIMEOUT_MS: {
    schema: positiveInt.min(100).max(600_000),
    default: '5000',
    doc: 'How long an idle keep-alive connection is kept after an answer (set the load balancer’s idle timeout below it).',
  },
  HTTP_MAX_CONNECTIONS: {
    schema: positiveInt.max(1_000_000),
    default: '1024',
    doc: 'Open connections per process; further connections are closed at once.',
  },
  HTTP_MAX_CONNECTIONS_PER_ADDRESS: {
    schema: nonNegativeInt.max(1_000_000),
    default: '128',
    doc: "Open connections per client address (the TCP peer: behind a proxy, the proxy; keep the proxy's connections per replica below it); further connections from that address are closed at once, so one address cannot take HTTP_MAX_CONNECTIONS from the others. 0 = no limit.",
  },
  RATE_LIMIT_MAX: {
    schema: nonNegativeInt.max(1_000_000),
    default: '300',
    doc: 'Unpaid budget: requests per client (address; see TRUST_PROXY) and window on free routes, on paid routes without a payment, and with a payment that fails verification; more get 429 with Retry-After (a paid route without a payment still gets its 402 challenge, see RATE_LIMIT_CHALLENGE_MAX). A verified payment is never counted here. /health and /metrics are not limited. 0 = off (all three limits).',
  },
  RATE_LIMIT_WINDOW_SEC: {
    schema: positiveInt.max(86_400),
    default: '60',
    doc: 'Window of RATE_LIMIT_MAX, RATE_LIMIT_CHALLENGE_MAX and RATE_LIMIT_PAID_MAX, in seconds.',
  },
  RATE_LIMIT_CHALLENGE_MAX: {
    schema: nonNegativeInt.max(1_000_000),
    default: '600',
    doc: 'Past its unpaid budget, a client asking a paid route without a payment still gets the 402 challenge (so it can pay), this many times per window; then 429. 0 = 429 at once.',
  },
  RATE_LIMIT_PAID_MAX: {
    schema: nonNegativeInt.max(10_000_000),
    default: '6000',
    doc: 'Paid requests per payer (the address that signed the payment, after verification) and window; more get 429 with Retry-After, nothing charged. 0 = no paid limit.',
  },
  NODE_STALE_AFTER_MS: {
    schema: positiveInt.min(1000).max(3_600_000),
    default: '30000',
    doc: 'When the node has been unreachable this long, answers derived from the mempool view or the optimizer cache are refused with 503 NODE_UNAVAILABLE (never charged) and /health answers 503.',
  },
  NODE_CHECK_INTERVAL_MS: {
    schema: positiveInt.min(100).max(60_000),
    default: '1000',
    doc: 'How often the node is checked in the background (getblockchaininfo). While the last check failed, paid routes answer 503 NODE_UNAVAILABLE before payment and /health answers 503; /health reports the last check and never waits on the node.',
  },
  NODE_CHECK_TIMEOUT_MS: {
    schema: positiveInt.min(100).max(60_000),
    default: '2000',
    doc: 'Timeout of one background node check; two failed checks in a row make the node known down.',
  },
  RPC_CHAIN_ID: {
    schema: positiveInt.max(2 ** 53 - 1).optional(),
    default: undefined,
    doc: '`eth_chainId` of /v1/rpc. Unset: derived from the Bitcoin network (main 8333, test 18333, testnet4 48333, signet 38333, regtest 18444).',
  },
  RPC_BATCH_MAX: { schema: positiveInt.max(1000), default: '20', doc: 'Largest JSON-RPC batch on /v1/rpc.' },

  // --- Bitcoin node ---
  BITCOIN_RPC_URL: {
    schema: httpUrl.optional(),
    default: undefined,
    doc: 'Bitcoin Core JSON-RPC, e.g. http://user:pass@127.0.0.1:8332. Unset: start the embedded simulated node.',
  },
  BITCOIN_RPC_TIMEOUT_MS: { schema: positiveInt.max(120_000), default: '5000', doc: 'Timeout of every node call; a slower node answers 503.' },
  BITCOIN_RPC_SCAN_TIMEOUT_MS: {
    schema: positiveInt.max(600_000),
    default: '30000',
    doc: 'Timeout of `scantxoutset` (address balance without an address index).',
  },
  ESPLORA_URL: {
    schema: httpUrl.optional(),
    default: undefined,
    doc: 'Esplora/electrs base URL for address balance and UTXOs; unset: `scantxoutset` on the node (embedded node: its own Esplora routes).',
  },
  ESPLORA_TIMEOUT_MS: { schema: positiveInt.max(120_000), default: '5000', doc: 'Timeout of Esplora calls.' },
  MEMPOOL_POLL_MS: { schema: positiveInt.min(250).max(600_000), default: '2000', doc: 'How often the replacement tracker diffs the node mempool.' },
  ZMQ_URL: {
    schema: z
      .string()
      .regex(/^(tcp|ipc):\/\/\S+$/, 'must be a ZMQ endpoint such as tcp://127.0.0.1:28332')
      .optional(),
    default: undefined,
    doc: "Bitcoin Core's `-zmqpubsequence` endpoint, e.g. tcp://127.0.0.1:28332: the mempool view follows its events (every version of a tx seen, blocks at once). Unset with a real node: polling every MEMPOOL_POLL_MS. The embedded node always publishes events.",
  },
  ZMQ_RAWTX_URL: {
    schema: z
      .string()
      .regex(/^(tcp|ipc):\/\/\S+$/, 'must be a ZMQ endpoint such as tcp://127.0.0.1:28333')
      .optional(),
    default: undefined,
    doc: "Bitcoin Core's `-zmqpubrawtx` endpoint (with ZMQ_URL): a version replaced before the service could read it is rebuilt from its raw form, so its replacement is still recorded.",
  },
  MEMPOOL_EVENTS_QUIET_MS: {
    schema: positiveInt.min(1000).max(3_600_000),
    default: '60000',
    doc: 'While following events, a full check against the node this often; when it finds changes the events missed and no event came for this long, the view polls until events flow again.',
  },
  STREAM_TICKET_TTL_SECONDS: {
    schema: positiveInt.max(86_400),
    default: '600',
    doc: 'Lifetime of a mempool stream ticket (`GET /v1/mempool/stream-ticket`): it must be redeemed, and the stream closes (4001), within it.',
  },
  STREAM_MAX_BUFFER_BYTES: {
    schema: positiveInt.min(1024).max(1 << 30),
    default: '1048576',
    doc: 'Unsent bytes a mempool stream may queue for a client that does not read before it is closed (4008).',
  },
  REPLACEMENT_HISTORY_MAX: {
    schema: positiveInt.max(1_000_000),
    default: '20000',
    doc: 'Replacement events kept (oldest dropped first); persisted in DATA_DIR.',
  },

  // --- embedded simulated node ---
  SIMNET_SEED: { schema: nonNegativeInt, default: '1', doc: 'Seed of the embedded simulated node (same seed, same chain and mempool).' },
  SIMNET_BLOCK_INTERVAL_SEC: {
    schema: z.coerce.number().min(0).max(86_400),
    default: '120',
    doc: 'Mean block interval of the simulated node (exponential); 0 = mine only on demand.',
  },
  SIMNET_TX_PER_SEC: {
    schema: z.coerce.number().min(0).max(10_000),
    default: '24',
    doc: 'Mean arrival rate of simulated transactions (Poisson); the default keeps blocks near full (~3,000 txs of ~325 vB per 120 s), so there is a fee market to see.',
  },
  SIMNET_INITIAL_TXS: { schema: nonNegativeInt.max(300_000), default: '4000', doc: 'Transactions in the simulated mempool at start (about 1.3 blocks).' },

  // --- optimizer ---
  OPTIMIZER_ENABLED: { schema: bool, default: 'true', doc: 'Run the template optimizer cycle.' },
  OPTIMIZER_INTERVAL_SEC: { schema: positiveInt.max(3600), default: '60', doc: 'Seconds between optimizer cycles.' },
  OPTIMIZER_INCREMENTAL_MS: {
    schema: nonNegativeInt.max(600_000),
    default: '2000',
    doc: 'Incremental optimizer cycles: when the mempool changed, a new template (and signed receipt) at most this often, ms, from the changes only; the full cycle still runs every `OPTIMIZER_INTERVAL_SEC` and checks it. 0: full cycles only.',
  },
  OPTIMIZER_TIMEOUT_SEC: { schema: positiveInt.max(3600), default: '240', doc: 'A cycle running longer is abandoned; the previous cache keeps serving.' },
  BASELINE_TIMEOUT_SEC: { schema: positiveInt.max(600), default: '15', doc: 'Timeout of the node `getblocktemplate` baseline.' },
  OPTIMIZER_MAX_TX_COUNT: { schema: positiveInt.max(100_000), default: '4000', doc: 'Most transactions in the optimized template.' },
  OPTIMIZER_MIN_FEE_RATE_SAT_VB: {
    schema: z.coerce.number().min(0).max(10_000),
    default: '1',
    doc: "Lowest chunk fee rate in the optimized template (sat per real vB; chunks of clusters linearized by real weight, unlike `-blockmintxfee`'s sigop-adjusted size).",
  },
  OPTIMIZER_THREADS: { schema: positiveInt.max(64), default: '1', doc: 'Worker threads of the optimizer pool.' },
  RECEIPT_SECRET_KEY: {
    schema: z
      .string()
      .regex(/^(0x)?([0-9a-fA-F]{64}|[0-9a-fA-F]{128})$/, 'must be a 32-byte seed or 64-byte Ed25519 secret key in hex')
      .optional(),
    default: undefined,
    doc: 'Ed25519 receipt key (hex seed or secret key). Unset: created in DATA_DIR/receipt-key (mode 0600). Never logged.',
    secret: true,
  },

  BLOCK_AUDIT_KEEP: {
    schema: positiveInt.max(10_000),
    default: '144',
    doc: 'Block audits kept (the last N blocks: fees and weight next to our template and the baseline for the same parent), oldest dropped first; `GET /v1/template/block-audits`.',
  },

  // --- getblocktemplate drop-in for the operator's pool (docs/mining.md) ---
  POOL_RPC_PORT: {
    schema: port.optional(),
    default: undefined,
    doc: "Port of the getblocktemplate drop-in: Bitcoin Core's JSON-RPC for the operator's own pool (ckpool, public-pool, bitcoin-cli), answering getblocktemplate from the optimized template and forwarding a short allowlist to the node. Unset: off. Not part of the paid API.",
  },
  POOL_RPC_HOST: {
    schema: z.string().min(1),
    default: '127.0.0.1',
    doc: 'Interface of the getblocktemplate drop-in (loopback unless set: it serves raw transactions and submits blocks).',
  },
  POOL_RPC_USER: {
    schema: z.string().min(1).max(200).optional(),
    default: undefined,
    doc: 'Basic-auth user of the drop-in; with POOL_RPC_PASSWORD. Unset: a cookie file, Core style.',
  },
  POOL_RPC_PASSWORD: {
    schema: z.string().min(1).max(200).optional(),
    default: undefined,
    doc: 'Basic-auth password of the drop-in. Unset: `__cookie__:<random>` written to DATA_DIR/pool-rpc.cookie (mode 0600) at each start. Never logged.',
    secret: true,
  },
  POOL_RPC_LONGPOLL_SEC: {
    schema: positiveInt.max(3600),
    default: '60',
    doc: 'Longest a getblocktemplate long poll waits for a new tip or template before it answers with the current one.',
  },

  // --- payments (x402 v2) ---
  PAYMENTS_ENABLED: { schema: bool, default: 'true', doc: 'Require x402 payment on paid routes. `false` opens every route (development only).' },
  PAY_TO: {
    schema: evmAddress.optional(),
    default: undefined,
    doc: 'EVM address that receives payments. Unset: demo mode (a placeholder payTo, payments verified but never settled).',
  },
  X402_NETWORKS: {
    schema: z
      .string()
      .regex(/^eip155:\d+(,eip155:\d+)*$/, 'must be a comma-separated list of eip155:<chainId>')
      .refine((v) => v.split(',').every((n) => KNOWN_X402_NETWORKS.includes(n)), `unknown network (known: ${KNOWN_X402_NETWORKS_TEXT})`)
      .refine((v) => new Set(v.split(',')).size === v.split(',').length, 'lists a network twice'),
    default: 'eip155:8453,eip155:137,eip155:42161,eip155:480',
    doc: 'Accepted networks, in challenge order (Base first, World Chain last: stock clients pay the first they know). Known: 8453, 137, 42161, 84532 (Base Sepolia, testnet), 480.',
  },
  X402_WORLDCHAIN_ASSET: {
    schema: evmAddress,
    default: '0x79A02482A880bCE3F13e09Da970dC34db4CD24d1',
    doc: 'Token accepted on World Chain (eip155:480); check its EIP-712 name/version on chain before going live.',
  },
  X402_WORLDCHAIN_ASSET_NAME: { schema: z.string().min(1).max(64), default: 'USD Coin', doc: 'EIP-712 domain name of the World Chain token.' },
  X402_WORLDCHAIN_ASSET_VERSION: { schema: z.string().min(1).max(16), default: '2', doc: 'EIP-712 domain version of the World Chain token.' },
  X402_MAX_TIMEOUT_SECONDS: {
    schema: positiveInt.min(30).max(3600),
    default: '300',
    doc: '`maxTimeoutSeconds` offered in challenges (the client signs `validBefore = now + this`); settlement happens after the handler, so leave room.',
  },
  X402_FACILITATOR_URL: {
    schema: httpUrl.optional(),
    default: undefined,
    doc: 'x402 facilitator (`/verify`, `/settle`). Unset: local verification, payments recorded unsettled.',
  },
  X402_CHAIN_RPC_URLS: {
    schema: z
      .string()
      .max(4000)
      .regex(/^eip155:\d+=https?:\/\/[^\s,]+(,eip155:\d+=https?:\/\/[^\s,]+)*$/, 'must be a comma-separated list of eip155:<chainId>=<http(s) URL>')
      .refine((v) => v.split(',').every((e) => KNOWN_X402_NETWORKS.includes(e.split('=')[0] ?? '')), `unknown network (known: ${KNOWN_X402_NETWORKS_TEXT})`)
      .optional(),
    default: undefined,
    doc: "JSON-RPC endpoint per network (`eip155:8453=https://…,eip155:84532=https://…`), read after a crash: a pending settlement the facilitator refuses as already used is settled if the token's `authorizationState(payer, nonce)` says used, failed if unused; with no endpoint (or none reachable) it stays pending, answered, and is retried. Never logged (may hold an API key).",
    secret: true,
  },
  X402_FACILITATOR_VERIFY_TIMEOUT_MS: {
    schema: positiveInt.max(30_000),
    default: '1000',
    doc: 'Timeout of the facilitator `/verify` call (before the handler); on timeout the local checks stand and settlement has the last word.',
  },
  X402_FACILITATOR_SETTLE_TIMEOUT_MS: {
    schema: positiveInt.max(60_000),
    default: '2000',
    doc: 'Timeout of one `/settle` call (after the handler; never retried inline). A timeout is recorded pending and settled later by the reconciler, never charged twice. Verify + settle timeouts are the most a facilitator can add to a paid request.',
  },
  X402_BREAKER_FAILURES: {
    schema: positiveInt.max(1000),
    default: '3',
    doc: 'Facilitator failures (timeouts, transport errors, 5xx) within 10 s that open the circuit breaker: new paid requests then answer 503 with Retry-After at once.',
  },
  X402_BREAKER_COOLDOWN_SEC: {
    schema: positiveInt.max(3600),
    default: '30',
    doc: 'Seconds the facilitator circuit breaker stays open before one trial request is let through.',
  },
  X402_FACILITATOR_AUTH: {
    schema: z.string().min(1).optional(),
    default: undefined,
    doc: 'Authorization header value sent to the facilitator. Never logged.',
    secret: true,
  },
  X402_FACILITATOR_VERIFY: {
    schema: bool,
    default: 'true',
    doc: 'With a facilitator: also call its `/verify` (balance, on-chain nonce) before the handler runs; local checks always run first.',
  },
  X402_RECONCILE_INTERVAL_SEC: {
    schema: positiveInt.max(86_400),
    default: '30',
    doc: 'How often pending settlements (facilitator timeouts, restarts) are retried; also done once at start.',
  },
  X402_ANSWER_CACHE_BYTES: {
    schema: nonNegativeInt.max(1024 * 1024 * 1024),
    default: '4194304',
    doc: 'Memory (bytes, LRU) for paid answers kept so that a retry of the same payment for the same request is answered without a second charge; an answer not kept is recomputed on retry.',
  },
  X402_ANSWER_CACHE_ENTRY_BYTES: {
    schema: positiveInt.max(16 * 1024 * 1024),
    default: '65536',
    doc: 'Largest answer kept in that cache (with `REDIS_URL`: in Redis, shared by the replicas, until the payment expires); larger answers are recomputed on retry.',
  },
  X402_LEDGER_RETENTION_DAYS: {
    schema: positiveInt.max(36_500),
    default: '400',
    doc: 'Days a settled, unsettled or failed ledger row is kept (purged on a schedule, never before its authorization expired). Pending rows are never purged.',
  },
  X402_PURGE_INTERVAL_SEC: {
    schema: positiveInt.max(86_400),
    default: '600',
    doc: 'How often expired replay-store records and old ledger rows are purged.',
  },
  X402_ALLOW_UNSETTLED: {
    schema: bool,
    default: 'false',
    doc: 'Allow a mainnet `PAY_TO` without a facilitator (payments are then verified but never settled).',
  },
  REDIS_URL: {
    schema: z
      .string()
      .regex(/^rediss?:\/\//, 'must start with redis:// or rediss://')
      .optional(),
    default: undefined,
    doc: 'Redis shared by several replicas: the replay store, the rate limits, stream tickets and the optimizer lease (one replica computes the cycles, the others serve its cache). Unset: SQLite in DATA_DIR, in-memory rate limits, and this replica runs its own cycles. Never logged (may hold a password).',
    secret: true,
  },
  OPTIMIZER_LEASE_MS: {
    schema: positiveInt.min(300).max(600_000),
    default: '15000',
    doc: "With REDIS_URL: the optimizer leader's lease (ms), renewed every third of it. When the leader dies without releasing it, another replica leads within one lease.",
  },
} as const;

type Variables = typeof VARIABLES;
type VariableName = keyof Variables;

const schema = z.object(Object.fromEntries(Object.entries(VARIABLES).map(([name, v]) => [name, v.schema])) as { [K in VariableName]: Variables[K]['schema'] });

export type Config = z.infer<typeof schema>;

/** Documentation rows for the README table. */
export const CONFIG_DOCS: ReadonlyArray<{ name: string; default: string | undefined; doc: string }> = Object.entries(VARIABLES).map(([name, v]) => ({
  name,
  default: v.default,
  doc: v.doc,
}));

/** Names whose values are secrets: never logged, never returned. */
export const SECRET_VARIABLES: ReadonlySet<string> = new Set(
  Object.entries(VARIABLES)
    .filter(([, v]) => 'secret' in v && v.secret)
    .map(([name]) => name),
);

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(message);
    this.name = 'ConfigError';
  }
}

/**
 * Parses the environment. Unknown variables are ignored; an empty string counts as unset.
 * @throws ConfigError naming the first bad variable (its value is not echoed: it may be a secret).
 */
/** Settings that were renamed: a deployment still setting the old name is told, not silently ignored. */
const RENAMED: Readonly<Record<string, string>> = {
  X402_FACILITATOR_TIMEOUT_MS: 'X402_FACILITATOR_VERIFY_TIMEOUT_MS and X402_FACILITATOR_SETTLE_TIMEOUT_MS',
};

export function loadConfig(env: Record<string, string | undefined>): Config {
  for (const [old, now] of Object.entries(RENAMED))
    if (env[old] !== undefined && env[old] !== '') throw new ConfigError(old, `${old} is no longer read: set ${now} instead`);
  const input: Record<string, string> = {};
  for (const name of Object.keys(VARIABLES)) {
    const value = env[name];
    const fallback = VARIABLES[name as VariableName].default;
    if (value !== undefined && value !== '') input[name] = value;
    else if (fallback !== undefined) input[name] = fallback;
  }
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    const issue = firstIssue(parsed.error);
    const variable = String(issue.path[0] ?? 'environment');
    throw new ConfigError(variable, `invalid ${variable}: ${issue.message}`);
  }
  return parsed.data;
}

/**
 * Payment settings that are each valid alone but dangerous together. `src/main.ts` calls this at
 * start-up, after `loadConfig`:
 * - with `NODE_ENV=production`, paid routes must settle on chain: demo mode (no `PAY_TO`) and
 *   local-unsettled mode (no facilitator) are refused;
 * - a mainnet `PAY_TO` set explicitly with no facilitator would take real authorizations and never
 *   settle them, so it is refused unless `X402_ALLOW_UNSETTLED=1`. Demo mode and testnet-only
 *   network lists are allowed outside production.
 * @throws ConfigError naming the variable to set.
 */
export function assertPaymentConfig(config: Config): void {
  assertProductionPayments(config);
  if (!config.PAYMENTS_ENABLED || config.PAY_TO === undefined || config.X402_FACILITATOR_URL !== undefined) return;
  const mainnets = config.X402_NETWORKS.split(',').filter((n) => !TESTNET_X402_NETWORKS.has(n));
  if (mainnets.length > 0 && !config.X402_ALLOW_UNSETTLED) {
    throw new ConfigError(
      'X402_FACILITATOR_URL',
      `PAY_TO is set for mainnet networks (${mainnets.join(', ')}) but X402_FACILITATOR_URL is not: payments would never be settled. ` +
        'Set X402_FACILITATOR_URL, restrict X402_NETWORKS to eip155:84532, or set X402_ALLOW_UNSETTLED=1.',
    );
  }
}

/** The production half of `assertPaymentConfig`; the payments plugin checks it too, whoever wires it. */
export function assertProductionPayments(config: Config): void {
  const production = config.NODE_ENV === 'production';
  if (!config.PAYMENTS_ENABLED) return;
  if (production && config.PAY_TO === undefined) {
    throw new ConfigError('PAY_TO', 'NODE_ENV=production needs PAY_TO and X402_FACILITATOR_URL: demo mode (no PAY_TO) never settles payments on chain.');
  }
  if (production && config.X402_FACILITATOR_URL === undefined) {
    throw new ConfigError(
      'X402_FACILITATOR_URL',
      'NODE_ENV=production needs X402_FACILITATOR_URL: without a facilitator payments are verified locally and never settled on chain.',
    );
  }
}
