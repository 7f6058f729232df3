/**
 * The local checks of an exact-EVM (EIP-3009) payment, in DESIGN §4's order; the first failure
 * is the answer. Pure: no I/O, the replay store is consulted by the caller afterwards.
 *
 *   1. `accepted` is one of the requirements we offer for THIS request (the reference's
 *      deep-equal: every field equal, `extra` may carry more keys than ours; our `extra` names the
 *      route and, for JSON-RPC, the quoted methods, so a payment offered for one request does not
 *      match another of the same price);
 *   2. the EIP-712 signature recovers `authorization.from` under OUR domain for that network;
 *   3. `to == payTo`;  4. `value == amount`;
 *   5. `validAfter <= now`, `validBefore >= now + 6` (the facilitator's margin), and the window
 *      is no longer than the challenge's `maxTimeoutSeconds` plus clock skew.
 * The version was checked when decoding.
 */
import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { PaymentNetwork } from './networks.js';
import { domainSeparator, transferWithAuthorizationDigest } from './eip712.js';
import { signedBy } from './recover.js';
import type { PaymentPayload, PaymentRequirements } from './schemas.js';

/** Refusal reasons sent in the challenge's `error` (the official ones where they exist). */
export const PaymentError = {
  MISSING: 'PAYMENT-SIGNATURE header is required',
  VERSION_1: 'unsupported_x402_version_1: send an x402 v2 PAYMENT-SIGNATURE header',
  VERSION: 'unsupported_x402_version',
  SCHEME: 'unsupported_scheme',
  NETWORK: 'unsupported_network',
  NO_MATCH: 'no_matching_payment_requirements',
  RESOURCE: 'payment_resource_mismatch',
  SIGNATURE: 'invalid_exact_evm_signature',
  RECIPIENT: 'invalid_exact_evm_recipient_mismatch',
  VALUE: 'invalid_exact_evm_payload_authorization_value_mismatch',
  VALID_AFTER: 'invalid_exact_evm_payload_authorization_valid_after',
  VALID_BEFORE: 'invalid_exact_evm_payload_authorization_valid_before',
  WINDOW: 'invalid_exact_evm_payload_authorization_window_too_long',
  NONCE_USED: 'invalid_exact_evm_nonce_already_used',
} as const;

/** Seconds `validBefore` must still be ahead of now (same as the 2.27.0 facilitator). */
export const VALID_BEFORE_MARGIN_SECONDS = 6;
/** Tolerated clock difference between payer and us when bounding the window. */
export const MAX_CLOCK_SKEW_SECONDS = 600;

export interface VerifiedPayment {
  ok: true;
  requirement: PaymentRequirements;
  network: PaymentNetwork;
  /** Lower-case payer address. */
  payer: string;
  /**
   * The replay-store key: SHA-256 (base64url) of `chainId:asset:from:nonce`, lower-case. Hashed so
   * the ledger's unique index and Redis keys stay short (43 characters instead of ~160).
   */
  nonceKey: string;
  validBefore: number;
}

export type VerifyResult = VerifiedPayment | { ok: false; reason: string };

export interface Verifier {
  verify(payload: PaymentPayload, offered: readonly PaymentRequirements[], nowSeconds: number): VerifyResult;
}

export function createVerifier(networks: readonly PaymentNetwork[]): Verifier {
  const byNetwork = new Map(
    networks.map((n) => [
      n.network as string,
      { network: n, separator: domainSeparator({ name: n.name, version: n.version, chainId: n.chainId, verifyingContract: n.asset }) },
    ]),
  );
  return {
    verify(payload, offered, now) {
      const accepted = payload.accepted;
      if (accepted.scheme !== 'exact') return { ok: false, reason: PaymentError.SCHEME };
      const requirement = offered.find((r) => r.network === accepted.network);
      const entry = byNetwork.get(accepted.network);
      if (!requirement || !entry) return { ok: false, reason: PaymentError.NETWORK };
      if (!matchesAccepted(requirement, accepted)) return { ok: false, reason: PaymentError.NO_MATCH };

      const auth = payload.payload.authorization;
      const payer = auth.from.toLowerCase();
      if (!signedBy(transferWithAuthorizationDigest(entry.separator, auth), payload.payload.signature, payer))
        return { ok: false, reason: PaymentError.SIGNATURE };
      if (auth.to.toLowerCase() !== requirement.payTo.toLowerCase()) return { ok: false, reason: PaymentError.RECIPIENT };
      if (BigInt(auth.value) !== BigInt(requirement.amount)) return { ok: false, reason: PaymentError.VALUE };
      const validAfter = BigInt(auth.validAfter);
      const validBefore = BigInt(auth.validBefore);
      if (validAfter > BigInt(now)) return { ok: false, reason: PaymentError.VALID_AFTER };
      if (validBefore < BigInt(now + VALID_BEFORE_MARGIN_SECONDS)) return { ok: false, reason: PaymentError.VALID_BEFORE };
      if (validBefore > BigInt(now + requirement.maxTimeoutSeconds + MAX_CLOCK_SKEW_SECONDS)) return { ok: false, reason: PaymentError.WINDOW };
      return {
        ok: true,
        requirement,
        network: entry.network,
        payer,
        nonceKey: nonceKeyOf(entry.network, payer, auth.nonce),
        validBefore: Number(validBefore),
      };
    },
  };
}

/** Replay key of an authorization (see `VerifiedPayment.nonceKey`). */
export function nonceKeyOf(network: PaymentNetwork, payer: string, nonce: string): string {
  return createHash('sha256').update(`${network.chainId}:${network.asset.toLowerCase()}:${payer.toLowerCase()}:${nonce.toLowerCase()}`).digest('base64url');
}

/** @x402/core `paymentRequirementsMatchAccepted`: all fields equal; our `extra` a subset of theirs. */
export function matchesAccepted(ours: PaymentRequirements, theirs: PaymentRequirements): boolean {
  if (
    ours.scheme !== theirs.scheme ||
    ours.network !== theirs.network ||
    ours.amount !== theirs.amount ||
    ours.asset !== theirs.asset ||
    ours.payTo !== theirs.payTo ||
    ours.maxTimeoutSeconds !== theirs.maxTimeoutSeconds
  ) {
    return false;
  }
  const extra = theirs.extra ?? {};
  return Object.entries(ours.extra ?? {}).every(([k, v]) => Object.hasOwn(extra, k) && isDeepStrictEqual(extra[k], v));
}
