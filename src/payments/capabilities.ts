/**
 * What the capabilities route and `/health` say about payments (SPEC §2, §5), derived from the
 * resolved configuration. Prices are the registry's (`src/api/system/pricing.ts`).
 */
import type { PaymentNetwork } from './networks.js';

/** `demo`: no PAY_TO (placeholder payee, never settled); `local-unsettled`: PAY_TO without a facilitator. */
export type SettlementMode = 'facilitator' | 'local-unsettled' | 'demo';

/** SPEC §5: `limits.customerAuth`. */
export const CUSTOMER_AUTH = 'x402 only' as const;

export interface PaymentCapability {
  model: string;
  customerApiKeys: false;
  payTo: string;
  networks: Array<{ network: string; label: string; asset: string }>;
  /** Ours, beside SPEC's fields: how payments are settled right now. */
  settlement: SettlementMode;
  note: string;
}

const NOTES: Record<SettlementMode, string> = {
  facilitator:
    'Pay per request with x402 v2 (scheme exact, EIP-3009 USDC). Send the request, answer the 402 with a PAYMENT-SIGNATURE header; payments are settled on chain through the facilitator after a successful answer.',
  'local-unsettled':
    'Pay per request with x402 v2 (scheme exact, EIP-3009 USDC). Settlement is OFF: signatures are verified locally and recorded as unsettled; no funds move.',
  demo: 'Demo mode: x402 v2 payments are verified but never settled (no payee configured, placeholder payTo); no funds move.',
};

export function paymentCapability(mode: SettlementMode, payTo: string, networks: readonly PaymentNetwork[]): PaymentCapability {
  return {
    model: 'x402 v2 pay-per-request (scheme exact, USDC via EIP-3009 transferWithAuthorization); no accounts',
    customerApiKeys: false,
    payTo,
    networks: networks.map((n) => ({ network: n.network, label: n.label, asset: n.asset })),
    settlement: mode,
    note: NOTES[mode],
  };
}

export interface PaymentsCapabilities {
  payment: PaymentCapability;
  customerAuth: typeof CUSTOMER_AUTH;
}

export function paymentsCapabilities(mode: SettlementMode, payTo: string, networks: readonly PaymentNetwork[]): PaymentsCapabilities {
  return { payment: paymentCapability(mode, payTo, networks), customerAuth: CUSTOMER_AUTH };
}
