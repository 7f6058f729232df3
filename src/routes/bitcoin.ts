/**
 * Bitcoin reads: block height, fee estimate, address balance and UTXOs, decoded transaction.
 * Prices live in `src/payments/prices.ts`; inputs are validated before any payment is asked.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { parseAddress, type ParsedAddress } from '../bitcoin/address.js';
import { Errors } from '../errors.js';
import { feeEstimate } from '../fees/feeEstimate.js';
import type { RouteContext } from './context.js';
import { decodedTransaction, fillPrevouts } from './decodedTransaction.js';
import { AddressParams, blocksQuery, TxidParams } from './schemas.js';

/** Most UTXOs listed in one answer (the total still counts all of them). */
export const MAX_UTXOS_LISTED = 5_000;

export const bitcoinRoutes: FastifyPluginAsync<{ ctx: RouteContext }> = async (fastify, { ctx }) => {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { node, addressSource } = ctx.deps;

  /** Checks the address against the node's network before payment is asked (400, never a paid 400). */
  const checkAddress = async (request: FastifyRequest): Promise<void> => {
    const { address } = request.params as { address?: unknown };
    if (typeof address !== 'string') throw new Errors.INVALID_ADDRESS('missing');
    parseAddress(address, await ctx.chain.network());
  };
  const address = async (raw: string): Promise<ParsedAddress> => parseAddress(raw, await ctx.chain.network());

  app.get('/v1/block-height', { schema: { summary: 'Tip height of the chain' } }, async () => {
    const height = await node.getBlockCount();
    return { success: true, height, hex: `0x${height.toString(16)}` };
  });

  app.get(
    '/v1/fee-estimate',
    { schema: { querystring: z.object({ blocks: blocksQuery(6) }), summary: 'Fee rate (sat/vB) to confirm within N blocks' } },
    async (request) => {
      const { blocks } = request.query;
      const mode = 'conservative';
      // Cached per target for 30 s and shared by concurrent requests: not one node call per request.
      const smart = await ctx.smartFees.answer(blocks);
      if (smart === null) request.log.warn({ blocks }, 'estimatesmartfee failed');
      const projection = ctx.projection(blocks);
      const estimate = feeEstimate(blocks, smart, mode, projection);
      if (!estimate) throw new Errors.NODE_UNAVAILABLE('no fee estimate yet: estimatesmartfee has no data and the mempool view is not ready');
      return { success: true, blocks, unit: 'sat/vB', ...estimate };
    },
  );

  app.get(
    '/v1/balance/:address',
    { schema: { params: AddressParams, summary: 'Confirmed and unconfirmed balance of an address, in satoshis' }, preValidation: checkAddress },
    async (request) => {
      const parsed = await address(request.params.address);
      const balance = await addressSource.balance(parsed);
      return {
        success: true,
        address: parsed.address,
        type: parsed.type,
        network: await ctx.chain.network(),
        source: addressSource.kind,
        unit: 'sat',
        confirmedSat: balance.confirmedSat,
        unconfirmedSat: balance.unconfirmedSat,
        totalSat: balance.confirmedSat + (balance.unconfirmedSat ?? 0),
        confirmedTxCount: balance.confirmedTxCount,
        unconfirmedTxCount: balance.unconfirmedTxCount,
        note:
          addressSource.kind === 'scantxoutset'
            ? 'scantxoutset reads the confirmed UTXO set only: unconfirmed activity is not included (configure ESPLORA_URL for it)'
            : 'confirmed = chain funded − spent; unconfirmed = net change from mempool transactions',
      };
    },
  );

  app.get(
    '/v1/utxos/:address',
    { schema: { params: AddressParams, summary: 'Unspent outputs of an address' }, preValidation: checkAddress },
    async (request) => {
      const parsed = await address(request.params.address);
      const [utxos, height] = await Promise.all([addressSource.utxos(parsed), node.getBlockCount()]);
      utxos.sort((a, b) => (a.height ?? Infinity) - (b.height ?? Infinity) || a.txid.localeCompare(b.txid) || a.vout - b.vout);
      const listed = utxos.slice(0, MAX_UTXOS_LISTED);
      return {
        success: true,
        address: parsed.address,
        type: parsed.type,
        source: addressSource.kind,
        height,
        count: utxos.length,
        totalSat: utxos.reduce((sum, u) => sum + u.valueSat, 0),
        truncated: utxos.length > listed.length,
        utxos: listed.map((u) => ({
          txid: u.txid,
          vout: u.vout,
          valueSat: u.valueSat,
          confirmed: u.confirmed,
          height: u.height,
          // Esplora and the node may be a block apart: a confirmed output has at least one confirmation.
          confirmations: u.height === null ? 0 : Math.max(1, height - u.height + 1),
        })),
      };
    },
  );

  app.get('/v1/tx/:txid', { schema: { params: TxidParams, summary: 'Decoded transaction with fee, fee rate and status' } }, async (request) => {
    const { txid } = request.params;
    const tx = await node.getRawTransaction(txid);
    // The block's own height, not tip − confirmations + 1: a block landing between two calls made that off by one.
    const [blockHeight, mempoolEntry, withPrevouts] = await Promise.all([
      tx.confirmations && tx.blockhash
        ? node.getBlockHeader(tx.blockhash).then(
            (h) => h.height,
            () => null,
          )
        : null,
      tx.confirmations ? null : node.getMempoolEntry(txid).catch(() => null),
      fillPrevouts(node, tx),
    ]);
    return { success: true, ...decodedTransaction(withPrevouts, blockHeight, mempoolEntry) };
  });
};
