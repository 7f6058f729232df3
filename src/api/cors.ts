/**
 * CORS for browser clients: any origin may call any route (there are no cookies or accounts to
 * protect: the payment is the credential), preflights are answered for a day, and the x402 headers
 * and `Retry-After` are readable by the page's script.
 */
import type { FastifyCorsOptions } from '@fastify/cors';
import { EXPOSE_HEADERS } from '../payments/replies.js';

export const CORS_OPTIONS: FastifyCorsOptions = {
  origin: '*',
  methods: ['GET', 'HEAD', 'POST', 'OPTIONS'],
  allowedHeaders: ['Content-Type', 'PAYMENT-SIGNATURE', 'Accept'],
  exposedHeaders: EXPOSE_HEADERS.split(', '),
  maxAge: 86_400,
  strictPreflight: false,
};
