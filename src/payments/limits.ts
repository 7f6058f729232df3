/**
 * What the gate tells the rate limiter (implemented in the API layer, src/api/limits/): a request
 * carrying a payment skips the unpaid budget only once the payment verified locally (signature,
 * amount, binding to the route and resource). Both calls throw the limiter's 429 when a budget is
 * spent; nothing has been claimed or charged at that point.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';

export interface PaymentLimits {
  /** The payment verified: counted against its payer's paid budget, never the client's unpaid one. */
  verified(request: FastifyRequest, reply: FastifyReply, payer: string): Promise<void>;
  /** The payment failed verification: counted as an unpaid request (429 past the unpaid budget, not another 402). */
  refused(request: FastifyRequest, reply: FastifyReply): Promise<void>;
}
