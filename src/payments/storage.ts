/**
 * What the payments plugin stores, opened once: the payments database (ledger, kept answers, and
 * without Redis the replay store), the replay store, and the `PaymentState` the gate runs on. The
 * one place that chooses between one process (`LocalPaymentState`) and several replicas sharing
 * Redis (`SharedPaymentState`).
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import { AnswerCache } from './answerCache.js';
import { openPaymentsDb, type PaymentsDb } from './db.js';
import { KeptAnswers } from './keptAnswers.js';
import { Ledger } from './ledger.js';
import { LocalPaymentState } from './state/localState.js';
import type { PaymentState } from './state/paymentState.js';
import { SharedPaymentState } from './state/sharedState.js';
import { MemoryReplayStore } from './store/memoryReplayStore.js';
import { RedisReplayStore } from './store/redisReplayStore.js';
import type { ReplayStore } from './store/replayStore.js';
import { SharedPayments } from './store/sharedPayments.js';
import { SqliteReplayStore } from './store/sqliteReplayStore.js';
import { WriteQueue } from './writeQueue.js';

/** At start: abandoned pending records released (their payers may retry without waiting). */
export interface Recovery {
  releasedPaymentIds: number;
  releasedUnansweredRows: number;
}

export interface PaymentStorage {
  ledger: Ledger;
  store: ReplayStore;
  answers: AnswerCache;
  state: PaymentState;
  recovery: Recovery;
  /** How long a crashed owner blocks a payment id (or a shared claim): the facilitator budget plus a minute for the handler. */
  pendingLeaseMs: number;
  /** Commits of the payments database so far and the writes in them (group commit: writes per commit). */
  commits: WriteQueue['totals'];
  /** Flushes and closes everything opened here. */
  close(): Promise<void>;
}

/** `override`: the plugin's `store` option (`memory` for tests and benchmarks); `redis`: the app's connection to REDIS_URL, if it opened one. */
export async function openPaymentStorage(
  config: Config,
  override: ReplayStore | 'memory' | undefined,
  now: () => number,
  log: FastifyBaseLogger,
  redis?: Redis,
): Promise<PaymentStorage> {
  const db = openPaymentsDb(config.DATA_DIR);
  // One group-commit queue for the ledger and the SQLite store: their writes share transactions.
  const writes = new WriteQueue(db);
  const ledger = new Ledger(db, now, writes);
  // At start (one process per DATA_DIR), nothing of this process is in flight yet: pending
  // payment-identifier records and unanswered pending rows were left by a killed process.
  const recovery: Recovery = { releasedPaymentIds: 0, releasedUnansweredRows: ledger.releaseUnanswered() };
  const store = await replayStoreOf(config, override, db, writes, now, recovery, redis);
  const pendingLeaseMs = config.X402_FACILITATOR_VERIFY_TIMEOUT_MS + config.X402_FACILITATOR_SETTLE_TIMEOUT_MS + 60_000;
  const base = { store, ledger, pendingLeaseMs, now, log };

  // Several replicas: payment states and retry answers live in Redis beside the claims.
  const shared =
    store instanceof RedisReplayStore ? new SharedPayments(store.redis, store.prefix, now, config.X402_ANSWER_CACHE_ENTRY_BYTES, pendingLeaseMs) : null;
  await shared?.start();
  // Without Redis, kept answers also go to the data directory: they outlive a crash.
  const answers = new AnswerCache(config.X402_ANSWER_CACHE_BYTES, config.X402_ANSWER_CACHE_ENTRY_BYTES, shared ? null : new KeptAnswers(db, writes));
  const state: PaymentState = shared
    ? new SharedPaymentState({ ...base, shared, maxAnswerBytes: config.X402_ANSWER_CACHE_ENTRY_BYTES })
    : new LocalPaymentState({ ...base, answers });
  return {
    ledger,
    store,
    answers,
    state,
    recovery,
    pendingLeaseMs,
    commits: writes.totals,
    close: async () => {
      await shared?.stop();
      await store.close();
      writes.close();
      db.close();
    },
  };
}

async function replayStoreOf(
  config: Config,
  override: ReplayStore | 'memory' | undefined,
  db: PaymentsDb,
  writes: WriteQueue,
  now: () => number,
  recovery: Recovery,
  redis: Redis | undefined,
): Promise<ReplayStore> {
  if (override === 'memory') return new MemoryReplayStore(now);
  if (override) return override;
  // The app's connection (shared with the rate limits, closed by the app), or one of our own.
  if (config.REDIS_URL) return redis ? RedisReplayStore.open(redis, 'x402:', now, false) : RedisReplayStore.connect(config.REDIS_URL, 'x402:', now);
  const sqlite = new SqliteReplayStore(db, now, writes);
  recovery.releasedPaymentIds = sqlite.releaseAbandoned();
  return sqlite;
}
