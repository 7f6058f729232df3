/**
 * `app.payments`: what the rest of the service may know about payments (settlement mode, networks,
 * payTo, capabilities, ledger counts, /health's section), and the two operations it may start
 * (reconcile, purge). No secrets: the facilitator is named by host only.
 */
import type { Config } from '../config.js';
import { paymentsCapabilities, type PaymentsCapabilities, type SettlementMode } from './capabilities.js';
import type { BreakerState, FacilitatorClient, FacilitatorHealth } from './facilitator.js';
import type { LedgerStatus } from './ledger.js';
import type { PaymentNetwork } from './networks.js';
import type { ReconcileResult, Settler } from './settlement.js';
import type { PaymentStorage, Recovery } from './storage.js';
import type { ReplayStore } from './store/replayStore.js';
import { StreamTickets } from './streamTickets.js';

export interface PaymentsInfo {
  enabled: boolean;
  settlement: SettlementMode;
  payTo: string;
  networks: readonly PaymentNetwork[];
  store: ReplayStore['kind'];
  facilitator: { configured: boolean } & FacilitatorHealth;
  /** For the capabilities route: `payment` and `customerAuth` (= limits.customerAuth). */
  capabilities: PaymentsCapabilities;
  /** For /health: one line that says whether money moves. */
  settlementNote: string;
  ledgerCounts(): Record<LedgerStatus, number>;
  /** Commits of the payments database since the start, the writes they held and the WAL syncs (/metrics). */
  ledgerCommits(): { commits: number; writes: number; syncs: number };
  /** Retries pending settlements now (also runs at start and on a timer). */
  reconcile(): Promise<ReconcileResult>;
  /** Purges expired replay-store records and old ledger rows now (also on a timer). */
  purge(): Promise<void>;
  /** The `payments` section of /health (no secrets: the facilitator is named by host only). */
  health(): PaymentsHealth;
  /** Stream tickets, in the replay store (shared by replicas with REDIS_URL). */
  tickets: StreamTickets;
}

export interface PaymentsHealth {
  enabled: boolean;
  settlement: SettlementMode;
  note: string;
  payTo: string;
  networks: string[];
  replayStore: ReplayStore['kind'];
  facilitator: {
    configured: boolean;
    reachable: boolean | null;
    checkedAt: string | null;
    /** `open`: repeated failures; new paid requests are answered 503 at once. */
    breaker: BreakerState | null;
    retryAfterSeconds: number | null;
  };
  ledger: Record<LedgerStatus, number>;
  /** Answers kept in memory for retries of paid requests. */
  answerCache: { entries: number; bytes: number; maxBytes: number };
  /** The last scheduled purge of the replay store and the ledger. */
  purge: { lastAt: string | null; removed: number };
  /** At start: abandoned pending records released (their payers may retry without waiting). */
  recovery: Recovery;
}

export interface InfoParts {
  config: Config;
  mode: SettlementMode;
  payTo: string;
  networks: readonly PaymentNetwork[];
  storage: PaymentStorage;
  facilitator: FacilitatorClient | null;
  settler: Settler | null;
  now: () => number;
  purge: () => Promise<void>;
  lastPurge: () => { at: number | null; removed: number };
}

/** For /health: one line that says whether money moves. */
function settlementNoteOf(mode: SettlementMode, config: Config): string {
  if (mode === 'facilitator')
    return `payments are settled through the facilitator at ${config.X402_FACILITATOR_URL ? new URL(config.X402_FACILITATOR_URL).host : '(unset)'}`;
  return mode === 'local-unsettled'
    ? 'settlement is OFF: payments are verified locally and recorded unsettled (no facilitator configured)'
    : 'demo mode: no PAY_TO configured; payments are verified but never settled';
}

export function paymentsInfo(p: InfoParts): PaymentsInfo {
  const { config, mode, payTo, networks, facilitator, settler } = p;
  const { store, ledger, answers, recovery } = p.storage;
  const enabled = config.PAYMENTS_ENABLED;
  const settlementNote = settlementNoteOf(mode, config);
  return {
    enabled,
    settlement: mode,
    payTo,
    networks,
    store: store.kind,
    tickets: new StreamTickets(store, p.now),
    facilitator: {
      configured: facilitator !== null,
      get reachable() {
        return facilitator?.health.reachable ?? null;
      },
      get checkedAt() {
        return facilitator?.health.checkedAt ?? null;
      },
    },
    capabilities: paymentsCapabilities(mode, payTo, networks),
    settlementNote,
    ledgerCounts: () => ledger.countByStatus(),
    ledgerCommits: () => ({ ...p.storage.commits }),
    reconcile: () => (settler ? settler.reconcile() : Promise.resolve({ attempted: 0, settled: 0, failed: 0, pending: 0 })),
    purge: p.purge,
    health: () => {
      const lastPurge = p.lastPurge();
      return {
        enabled,
        settlement: mode,
        note: settlementNote,
        payTo,
        networks: networks.map((n) => n.network),
        replayStore: store.kind,
        facilitator: {
          configured: facilitator !== null,
          reachable: facilitator?.health.reachable ?? null,
          checkedAt: facilitator?.health.checkedAt ? new Date(facilitator.health.checkedAt).toISOString() : null,
          breaker: facilitator?.breakerState ?? null,
          retryAfterSeconds: facilitator ? facilitator.retryAfterSeconds() : null,
        },
        ledger: ledger.countByStatus(),
        answerCache: { entries: answers.size, bytes: answers.bytes, maxBytes: config.X402_ANSWER_CACHE_BYTES },
        purge: { lastAt: lastPurge.at === null ? null : new Date(lastPurge.at).toISOString(), removed: lastPurge.removed },
        recovery,
      };
    },
  };
}
