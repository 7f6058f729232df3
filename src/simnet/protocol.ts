/**
 * Messages between the process that owns a simulated node and its worker thread. The control
 * surface exists only here (structured-clone messages), never on the node's HTTP API. Arguments
 * are re-validated with zod in the worker.
 */
import { z } from 'zod';

/** What the worker needs to start (fully resolved options). */
export interface WorkerInit {
  seed: number;
  blockIntervalSec: number;
  txPerSec: number;
  initialTxs: number;
  startTime: number;
  fundingUtxos: number;
  addressCount: number;
  historyBlocks: number;
  /** URL of the module whose `mempoolPolicy` export is the node's mining policy (see `mempool/policy.ts`). */
  policyModule: string;
}

const hash = z.string().regex(/^[0-9a-f]{64}$/);

/** Control methods and their argument tuples. */
export const ControlArgs = {
  mineBlocks: z.tuple([z.number().int().min(0).max(10_000)]),
  addTransactions: z.tuple([z.number().int().min(0).max(1_000_000)]),
  replaceTransaction: z.tuple([hash.optional()]),
  setAutomatic: z.tuple([z.boolean()]),
  walletAddresses: z.tuple([]),
  stats: z.tuple([]),
  createSpend: z.tuple([
    z.object({
      fromTxid: hash,
      feeRateSatVb: z.number().positive().max(1_000_000),
      feeSat: z.number().int().min(0).max(2_100_000_000_000_000).optional(),
      vout: z.number().int().min(0).max(100_000).optional(),
      version: z.number().int().min(1).max(3).optional(),
      kind: z.enum(['replacement', 'child']).optional(),
    }),
  ]),
} as const;

export type ControlMethod = keyof typeof ControlArgs;

export type OwnerMessage = { type: 'call'; id: number; method: ControlMethod; args: unknown[] } | { type: 'close' };

export type WorkerMessage =
  | { type: 'ready'; port: number; username: string; password: string; zmqUrl: string; startupMs: number }
  | { type: 'result'; id: number; ok: true; value: unknown }
  | { type: 'result'; id: number; ok: false; error: string }
  | { type: 'log'; level: 'info' | 'warn' | 'error'; message: string }
  | { type: 'fatal'; error: string }
  | { type: 'closed' };
