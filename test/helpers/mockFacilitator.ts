/**
 * A mock x402 facilitator on loopback with failure modes, for the availability tests, the crash
 * test and the payments benchmark (the official facilitator code is in test/payments/localFacilitator.ts).
 *
 * Modes (switchable at any time):
 * - `ok`: `/verify` → `isValid: true`; `/settle` charges the authorization once and answers
 *   `success: true` with a transaction hash. Settling the same authorization again answers the
 *   same transaction (as a facilitator that keeps its broadcasts does), never a second charge.
 * - `slow`: as `ok`, after `delayMs`.
 * - `blackhole`: accepts the connection and never answers.
 * - `error`: HTTP 500.
 *
 * `charges` maps each charged authorization (`from:nonce`) to its transaction and how many times
 * a settle asked for it; `onSettle` runs after a charge and before the answer (a crash test kills
 * the server there: the payer is charged and the server never learns it).
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOnLoopback } from './loopback.js';

export type MockMode = 'ok' | 'slow' | 'blackhole' | 'error';

export interface MockFacilitator {
  url: string;
  mode: MockMode;
  delayMs: number;
  calls: { verify: number; settle: number; supported: number };
  /** `from:nonce` (lower case) → the charge. */
  charges: Map<string, { transaction: string; settleCalls: number }>;
  onSettle: ((key: string) => void) | null;
  /**
   * Settling an authorization already charged answers `success: false`
   * (`invalid_exact_evm_nonce_already_used`), as a facilitator that checks the chain does; default
   * false: the same transaction again.
   */
  refuseUsed: boolean;
  close(): Promise<void>;
}

interface Body {
  paymentPayload?: { payload?: { authorization?: { from?: string; nonce?: string } } };
  paymentRequirements?: { network?: string };
}

export async function startMockFacilitator(mode: MockMode = 'ok', delayMs = 0): Promise<MockFacilitator> {
  const state: MockFacilitator = {
    url: '',
    mode,
    delayMs,
    calls: { verify: 0, settle: 0, supported: 0 },
    charges: new Map(),
    onSettle: null,
    refuseUsed: false,
    close: async () => undefined,
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      void (async () => {
        if (req.url === '/verify') state.calls.verify++;
        else if (req.url === '/settle') state.calls.settle++;
        else if (req.url === '/supported') state.calls.supported++;
        if (state.mode === 'blackhole') return; // never answers; the socket is destroyed on close
        if (state.mode === 'slow') await new Promise((r) => setTimeout(r, state.delayMs));
        const send = (status: number, value: unknown) => {
          if (res.destroyed) return;
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(JSON.stringify(value));
        };
        if (state.mode === 'error') return send(500, { error: 'mock facilitator error mode' });
        if (req.url === '/supported') return send(200, { kinds: [], extensions: [], signers: {} });
        let body: Body;
        try {
          body = JSON.parse(text) as Body;
        } catch {
          return send(400, { error: 'not JSON' });
        }
        const auth = body.paymentPayload?.payload?.authorization;
        const payer = auth?.from ?? '';
        if (req.url === '/verify') return send(200, { isValid: true, payer });
        if (req.url !== '/settle') return send(404, { error: 'not found' });
        const key = `${payer}:${auth?.nonce ?? ''}`.toLowerCase();
        let charge = state.charges.get(key);
        if (charge && state.refuseUsed) {
          charge.settleCalls++;
          return send(200, {
            success: false,
            errorReason: 'invalid_exact_evm_nonce_already_used',
            payer,
            transaction: '',
            network: body.paymentRequirements?.network ?? '',
          });
        }
        if (!charge) {
          charge = { transaction: `0x${createHash('sha256').update(key).digest('hex')}`, settleCalls: 0 };
          state.charges.set(key, charge);
        }
        charge.settleCalls++;
        state.onSettle?.(key);
        send(200, { success: true, payer, transaction: charge.transaction, network: body.paymentRequirements?.network ?? '' });
      })();
    });
  });
  const served = await listenOnLoopback(server);
  state.url = served.url;
  state.close = served.close;
  return state;
}
