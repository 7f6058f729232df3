/**
 * The 402 challenge: one `accepts` entry per configured network (table order, Base first), the
 * resource, and the `payment-identifier` extension we honour (idempotent retries).
 */
import type { Address } from 'viem';
import type { SettlementMode } from './capabilities.js';
import type { PaymentNetwork } from './networks.js';
import { usdToAtomic } from './prices.js';
import { PAYMENT_IDENTIFIER, X402_VERSION, type PaymentRequired, type PaymentRequirements, type ResourceInfo } from './schemas.js';

/** Declaration of the payment-identifier extension (specs/extensions/payment_identifier.md). */
export const PAYMENT_IDENTIFIER_DECLARATION = {
  info: { required: false },
  schema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: { id: { type: 'string', minLength: 16, maxLength: 128, pattern: '^[a-zA-Z0-9_-]+$' } },
    required: ['id'],
  },
} as const;

export interface RequirementsBuilder {
  /** The requirements offered for a price; memoized per price (a handful of distinct prices). */
  forPrice(priceUsd: number): readonly PaymentRequirements[];
  /**
   * The offer for one request (`bindOffer` of its price): built once per price and route for a
   * route's fixed price, frozen, so a paid request allocates none and the matched requirement's
   * JSON (jsonOnce.ts: the facilitator's body, the ledger row) is encoded once for all of them. A
   * JSON-RPC body's methods are bound per request.
   */
  offer(priceUsd: number, binding: OfferBinding): readonly PaymentRequirements[];
}

/** What binds an offer to one request, in each requirement's `extra` (echoed in `accepted`). */
export interface OfferBinding {
  /** `"<METHOD> <path>"` as registered. */
  route: string;
  /** JSON-RPC: the methods of the quoted body, in order. */
  methods?: readonly string[];
}

/** The offer for one request: the price's requirements with the binding added to `extra`. */
export function bindOffer(list: readonly PaymentRequirements[], binding: OfferBinding): PaymentRequirements[] {
  const extra = binding.methods === undefined ? { route: binding.route } : { route: binding.route, methods: [...binding.methods] };
  return list.map((r) => ({ ...r, extra: { ...r.extra, ...extra } }));
}

export function requirementsBuilder(networks: readonly PaymentNetwork[], payTo: Address, maxTimeoutSeconds: number): RequirementsBuilder {
  const cache = new Map<number, readonly PaymentRequirements[]>();
  const offers = new Map<string, readonly PaymentRequirements[]>();
  const forPrice = (priceUsd: number): readonly PaymentRequirements[] => {
    let list = cache.get(priceUsd);
    if (!list) {
      list = Object.freeze(
        networks.map((n) =>
          Object.freeze({
            scheme: 'exact',
            network: n.network,
            amount: usdToAtomic(priceUsd, n.decimals),
            asset: n.asset,
            payTo,
            maxTimeoutSeconds,
            extra: Object.freeze({ name: n.name, version: n.version }),
          }),
        ),
      );
      // Bounded: prices come from the table and RPC quotes (sums of table prices).
      if (cache.size < 1024) cache.set(priceUsd, list);
    }
    return list;
  };
  return {
    forPrice,
    offer(priceUsd, binding) {
      if (binding.methods !== undefined) return bindOffer(forPrice(priceUsd), binding);
      const key = `${priceUsd} ${binding.route}`;
      let list = offers.get(key);
      if (!list) {
        list = Object.freeze(bindOffer(forPrice(priceUsd), binding).map((r) => Object.freeze({ ...r, extra: Object.freeze(r.extra) })));
        // Bounded: one per priced route (and price).
        if (offers.size < 1024) offers.set(key, list);
      }
      return list;
    },
  };
}

/** `settlement` says whether paying moves money (`facilitator`) or not (`demo`, `local-unsettled`). */
export function paymentRequired(
  resource: ResourceInfo,
  accepts: readonly PaymentRequirements[],
  error: string | undefined,
  settlement: SettlementMode,
): PaymentRequired {
  return {
    x402Version: X402_VERSION,
    ...(error === undefined ? {} : { error }),
    resource,
    accepts: [...accepts],
    extensions: { [PAYMENT_IDENTIFIER]: PAYMENT_IDENTIFIER_DECLARATION },
    settlement,
  };
}
