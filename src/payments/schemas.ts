/**
 * Wire shapes of x402 v2 (research/x402.md §1), parsed with zod at the edge. Everything a client
 * sends is bounded: string lengths, object sizes, integer ranges.
 */
import { z } from 'zod';

export const X402_VERSION = 2;

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 20-byte hex address');
const UINT256_END = 2n ** 256n;
const uint256 = z
  .string()
  .regex(/^(0|[1-9][0-9]{0,77})$/, 'must be a decimal integer string')
  // Up to 77 digits is below 10^77 < 2^256: only a 78-digit value needs the BigInt comparison.
  .refine((v) => v.length < 78 || BigInt(v) < UINT256_END, 'must fit in uint256');
const bytes32 = z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'must be 32 bytes of hex');
/** A small JSON object: client-controlled maps are kept small. */
const smallRecord = z.record(z.string().max(64), z.unknown()).refine((r) => Object.keys(r).length <= 16, 'too many keys');

export const PaymentRequirementsSchema = z.object({
  scheme: z.string().max(32),
  network: z.string().max(64),
  amount: z.string().max(80),
  asset: z.string().max(64),
  payTo: z.string().max(64),
  maxTimeoutSeconds: z
    .number()
    .int()
    .positive()
    .max(86_400 * 7),
  extra: smallRecord.optional(),
});
export type PaymentRequirements = z.infer<typeof PaymentRequirementsSchema>;

export const ResourceInfoSchema = z.object({
  url: z.string().max(2048),
  description: z.string().max(1024).optional(),
  mimeType: z.string().max(128).optional(),
});
export type ResourceInfo = z.infer<typeof ResourceInfoSchema>;

export const Eip3009AuthorizationSchema = z.object({
  from: address,
  to: address,
  value: uint256,
  validAfter: uint256,
  validBefore: uint256,
  nonce: bytes32,
});
export type Eip3009Authorization = z.infer<typeof Eip3009AuthorizationSchema>;

export const ExactEvmPayloadSchema = z.object({
  // 65 bytes for an EOA; smart-wallet (ERC-1271/6492) signatures are longer and refused locally.
  signature: z
    .string()
    .regex(/^0x[0-9a-fA-F]+$/, 'must be hex')
    .max(2 + 2 * 4096),
  authorization: Eip3009AuthorizationSchema,
});

/** The payment-identifier extension as a client echoes it (`info.id`, 16–128 of [A-Za-z0-9_-]). */
export const PAYMENT_IDENTIFIER = 'payment-identifier';
export const PaymentIdSchema = z.string().regex(/^[A-Za-z0-9_-]{16,128}$/, 'must be 16-128 characters of [A-Za-z0-9_-]');

export const PaymentPayloadSchema = z.object({
  x402Version: z.literal(X402_VERSION),
  resource: ResourceInfoSchema.optional(),
  accepted: PaymentRequirementsSchema,
  payload: ExactEvmPayloadSchema,
  extensions: smallRecord.optional(),
});
export type PaymentPayload = z.infer<typeof PaymentPayloadSchema>;

/** Only the version, read first so a v1 payload gets its own refusal. */
export const VersionProbeSchema = z.object({ x402Version: z.number().int() });

export interface PaymentRequired {
  x402Version: 2;
  error?: string;
  resource: ResourceInfo;
  accepts: PaymentRequirements[];
  extensions?: Record<string, unknown>;
  /** Ours: `facilitator` (settled on chain), `local-unsettled` or `demo` (no money moves). */
  settlement?: 'facilitator' | 'local-unsettled' | 'demo';
}

/** Content of `PAYMENT-RESPONSE` (spec §5.3). */
export interface SettlementResponse {
  success: boolean;
  errorReason?: string;
  errorMessage?: string;
  payer?: string;
  transaction: string;
  network: string;
  amount?: string;
  /** Ours: `settlement` = settled | pending | unsettled (see docs/payments.md). */
  extra?: Record<string, unknown>;
}

// --- facilitator answers (spec §7); unknown fields are ignored ---
export const FacilitatorVerifyResponseSchema = z.object({
  isValid: z.boolean(),
  invalidReason: z.string().max(256).nullish(),
  invalidMessage: z.string().max(2048).nullish(),
  payer: z.string().max(128).nullish(),
});
export type FacilitatorVerifyResponse = z.infer<typeof FacilitatorVerifyResponseSchema>;

export const FacilitatorSettleResponseSchema = z.object({
  success: z.boolean(),
  errorReason: z.string().max(256).nullish(),
  errorMessage: z.string().max(2048).nullish(),
  payer: z.string().max(128).nullish(),
  transaction: z.string().max(256).nullish(),
  network: z.string().max(64).nullish(),
  amount: z.string().max(80).nullish(),
});
export type FacilitatorSettleResponse = z.infer<typeof FacilitatorSettleResponseSchema>;
