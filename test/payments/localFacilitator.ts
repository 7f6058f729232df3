/**
 * An x402 facilitator on loopback built from the official code (@x402/core `x402Facilitator` +
 * @x402/evm `ExactEvmScheme`, TOOLCHAIN §7) with an in-memory chain behind its signer: USDC
 * balances, used EIP-3009 nonces, transaction receipts. Nothing is mocked above the signer: the
 * official code verifies the signature, simulates, "broadcasts" and waits for the receipt.
 *
 * Knobs for the settlement tests: `hangSettles` (the next N /settle calls never answer, as a
 * facilitator that times out), `receiptTimeouts` (the next N receipt waits fail, so the official
 * scheme answers `settlement_pending` with the tx hash), and per-payer balances.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { x402Facilitator } from '@x402/core/facilitator';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/facilitator';
import { keccak256, toHex } from 'viem';
import { resolveNetworks } from '../../src/payments/networks.js';
import { listenOnLoopback } from '../helpers/loopback.js';
import { testConfig } from './helpers.js';

export interface LocalFacilitator {
  url: string;
  balances: Map<string, bigint>;
  usedNonces: Set<string>;
  /** Transactions broadcast (the in-memory chain), by hash. */
  transactions: Map<string, { from: string; to: string; value: bigint; nonce: string }>;
  calls: { verify: number; settle: number };
  /** `Authorization` header of the last call. */
  lastAuthorization: string | undefined;
  hangSettles: number;
  receiptTimeouts: number;
  close(): Promise<void>;
}

const FACILITATOR_ADDRESS = '0x1111111111111111111111111111111111111111';

/** A facilitator for the networks of an `X402_NETWORKS` list and their USDC assets, as the service resolves them. */
export function startFacilitatorFor(x402Networks: string): Promise<LocalFacilitator> {
  const networks = resolveNetworks(testConfig({ X402_NETWORKS: x402Networks }));
  return startLocalFacilitator(
    networks.map((n) => n.network),
    networks.map((n) => n.asset),
  );
}

export async function startLocalFacilitator(networks: readonly string[], assets: readonly string[]): Promise<LocalFacilitator> {
  const assetSet = new Set(assets.map((a) => a.toLowerCase()));
  const state: LocalFacilitator = {
    url: '',
    balances: new Map(),
    usedNonces: new Set(),
    transactions: new Map(),
    calls: { verify: 0, settle: 0 },
    lastAuthorization: undefined,
    hangSettles: 0,
    receiptTimeouts: 0,
    close: async () => undefined,
  };
  const balanceOf = (a: string) => state.balances.get(a.toLowerCase()) ?? 10_000_000n;

  const signer = {
    getAddresses: () => [FACILITATOR_ADDRESS] as const,
    getCode: async ({ address }: { address: string }) => (assetSet.has(address.toLowerCase()) ? '0x6080' : '0x'),
    verifyTypedData: async () => {
      throw new Error('unused for EOA payers');
    },
    readContract: async ({ functionName, args }: { functionName: string; args?: readonly unknown[] }) => {
      // eth_call simulation of transferWithAuthorization against the in-memory state.
      if (functionName !== 'transferWithAuthorization') throw new Error(`unsupported read ${functionName}`);
      const [from, , value, , , nonce] = args as [string, string, bigint, bigint, bigint, string];
      if (state.usedNonces.has(nonce)) throw new Error('FiatTokenV2: authorization is used or canceled');
      if (balanceOf(from) < value) throw new Error('ERC20: transfer amount exceeds balance');
      return undefined;
    },
    writeContract: async ({ args }: { args: readonly unknown[] }) => {
      const [from, to, value, , , nonce] = args as [string, string, bigint, bigint, bigint, string];
      if (state.usedNonces.has(nonce)) throw new Error('FiatTokenV2: authorization is used or canceled');
      if (balanceOf(from) < value) throw new Error('ERC20: transfer amount exceeds balance');
      state.usedNonces.add(nonce);
      state.balances.set(from.toLowerCase(), balanceOf(from) - value);
      state.balances.set(to.toLowerCase(), balanceOf(to) + value);
      const hash = keccak256(toHex(`${from}:${nonce}`));
      state.transactions.set(hash, { from, to, value, nonce });
      return hash;
    },
    sendTransaction: async () => {
      throw new Error('unused');
    },
    waitForTransactionReceipt: async () => {
      if (state.receiptTimeouts > 0) {
        state.receiptTimeouts--;
        throw new Error('Timed out while waiting for transaction receipt');
      }
      return { status: 'success' };
    },
  };

  const facilitator = new x402Facilitator();
  for (const n of networks) facilitator.register(n as `${string}:${string}`, new ExactEvmScheme(signer));

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    state.lastAuthorization = req.headers.authorization;
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      void (async () => {
        const send = (status: number, value: unknown) => {
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(JSON.stringify(value));
        };
        try {
          if (req.method === 'GET' && req.url === '/supported') return send(200, facilitator.getSupported());
          const parsed = JSON.parse(body) as { paymentPayload: PaymentPayload; paymentRequirements: PaymentRequirements };
          if (req.url === '/verify') {
            state.calls.verify++;
            return send(200, await facilitator.verify(parsed.paymentPayload, parsed.paymentRequirements));
          }
          if (req.url === '/settle') {
            state.calls.settle++;
            // A facilitator that never answers: the request is left open until the server closes.
            if (state.hangSettles > 0) {
              state.hangSettles--;
              return;
            }
            return send(200, await facilitator.settle(parsed.paymentPayload, parsed.paymentRequirements));
          }
          send(404, { error: 'not found' });
        } catch (err) {
          send(500, { error: err instanceof Error ? err.message : String(err) });
        }
      })();
    });
  });
  const served = await listenOnLoopback(server);
  state.url = served.url;
  state.close = served.close;
  return state;
}
