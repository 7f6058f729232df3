/**
 * The paid mempool stream: `GET /v1/mempool/stream-ticket` sells a single-use ticket, and the
 * WebSocket `GET /v1/mempool/stream?ticket=…` redeems it (free: the ticket is the payment). Frames,
 * close codes and limits: docs/stream.md and `src/stream/`.
 */
import { z } from 'zod';
import { CLOSE_CODES } from '../../stream/hub.js';
import { TICKET_PATTERN } from '../../payments/streamTickets.js';
import type { WebSocket } from 'ws';
import { defineRoute, type ApiContext, type CallInfo } from '../define.js';
import { IsoTime, strictObject, Success } from '../schemas.js';

/** Close codes of a refused ticket (the socket opens, then closes with one of these and a reason). */
export const TICKET_CLOSE_CODES = { unknown: 4004, used: 4009, expired: CLOSE_CODES.TICKET_EXPIRED } as const;

const EXAMPLE_TICKET = 'q3Yt7cVbq0lA7w2uWJ1y3m4V0Sxg8m2k4n6p8r0t2v4';

const TicketResponse = z.object({
  success: Success,
  ticket: z.string().regex(TICKET_PATTERN),
  expiresAt: IsoTime,
  ttlSeconds: z.number().int().positive(),
  /** The WebSocket URL to open, ticket included. */
  url: z.string(),
});

const StreamQuery = strictObject({ ticket: z.string().min(1).max(200) });

/** `GET /v1/mempool/stream-ticket`: a single-use ticket and the URL to open the stream with. */
async function streamTicket(ctx: ApiContext, _input: unknown, call: CallInfo): Promise<z.input<typeof TicketResponse>> {
  const ttlSeconds = ctx.config.STREAM_TICKET_TTL_SECONDS;
  const { ticket, expiresAt } = await ctx.payments.tickets.issue(ttlSeconds * 1000);
  const wsBase = call.baseUrl.replace(/^http/, 'ws');
  return { success: true, ticket, expiresAt: new Date(expiresAt).toISOString(), ttlSeconds, url: `${wsBase}/v1/mempool/stream?ticket=${ticket}` };
}

/** `GET /v1/mempool/stream` upgraded: redeem the ticket, then the hub serves the socket. */
async function openStream(ctx: ApiContext, socket: WebSocket, { query }: { query: z.output<typeof StreamQuery> }): Promise<void> {
  const redeemed = await ctx.payments.tickets.redeem(query.ticket);
  if (!redeemed.ok) {
    socket.close(TICKET_CLOSE_CODES[redeemed.reason], `ticket ${redeemed.reason}`);
    return;
  }
  ctx.stream.attach(socket, redeemed.expiresAt);
}

/** Never reached: the route answers a plain GET with 426 before any handler. */
async function plainStreamGet(): Promise<string> {
  return '';
}

export const streamRoutes = [
  defineRoute({
    family: 'mempool',
    method: 'GET',
    path: '/v1/mempool/stream-ticket',
    price: 0.005,
    summary: 'A ticket for the live mempool WebSocket stream',
    description:
      'Sells one single-use ticket for `GET /v1/mempool/stream` (WebSocket): open `url` within `ttlSeconds`; the stream then closes with 4001 when the ticket expires. Frames: hello, mempool, txs, removed, replacement, block, template (docs/stream.md).',
    response: TicketResponse,
    errors: ['PAYMENT_STORE_UNAVAILABLE'],
    example: {
      response: {
        success: true,
        ticket: EXAMPLE_TICKET,
        expiresAt: '2026-11-25T10:10:00.000Z',
        ttlSeconds: 600,
        url: `wss://api.example.com/v1/mempool/stream?ticket=${EXAMPLE_TICKET}`,
      },
    },
  }).handle(streamTicket),

  defineRoute({
    family: 'mempool',
    method: 'GET',
    path: '/v1/mempool/stream',
    price: 'free',
    content: 'websocket',
    summary: 'Live mempool stream (WebSocket; needs a ticket)',
    description:
      'WebSocket of JSON text frames, each with `type` and a monotonic `seq`: hello, mempool (stats), txs (new transactions with the optimizer’s effective rate and projected block), removed, replacement, block, template (each optimizer cycle). The client may send `{"action":"subscribe","frames":[…],"minRate":N,"txids":[…]}` to receive less and track its own transactions (docs/stream.md). A bad ticket closes with 4004, a used one with 4009, an expired one with 4001; a client that does not read is closed with 4008. A plain GET answers 426.',
    query: StreamQuery,
    response: z.string(),
    errors: ['UPGRADE_REQUIRED'],
    example: {
      query: { ticket: EXAMPLE_TICKET },
      response: '{"seq":1,"type":"hello","frames":["mempool","txs","removed","replacement","block","audit","template"],…}',
    },
    websocket: openStream,
  }).handle(plainStreamGet),
];
