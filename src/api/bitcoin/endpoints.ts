/**
 * Bitcoin reads over REST: block height, fee estimate, address balance and UTXOs, decoded
 * transactions (the same reads as `eth_*` JSON-RPC methods: `methods.ts`). Inputs are validated
 * (and addresses checked against the node's network) before any payment is asked. A node that
 * fails to answer is a 503 with `Retry-After`; only "the node does not know it" becomes a 404.
 * Each handler is the named function above the declarations; answers' shapes are in
 * `endpoints.schemas.ts`, their examples in `endpoints.examples.ts`.
 */
import type { z } from 'zod';
import { Errors } from '../../errors.js';
import { feeEstimate } from '../../fees/feeEstimate.js';
import { nullIfAbsent } from '../../node/absent.js';
import { defineRoute, type ApiContext } from '../define.js';
import { snapshotAge } from '../freshness.js';
import { AddressParams, blocksQuery, strictObject, TxidParams } from '../schemas.js';
import { decodedTransaction, fillPrevouts } from '../shared/decodedTransaction.js';
import { hexQuantity } from '../shared/hex.js';
import { assertTxKnown } from '../txKnown.js';
import { address, ADDRESS_ERRORS } from './addressLookup.js';
import { EXAMPLE_ADDRESS, EXAMPLE_BALANCE, EXAMPLE_FEE_ESTIMATE, EXAMPLE_TX, EXAMPLE_TXID, EXAMPLE_UTXOS } from './endpoints.examples.js';
import { BalanceResponse, BlockHeightResponse, FeeEstimateResponse, TxResponse, UtxosResponse } from './endpoints.schemas.js';

/** Most UTXOs listed in one answer (the total still counts all of them). */
export const MAX_UTXOS_LISTED = 5_000;

const FeeEstimateQuery = strictObject({ blocks: blocksQuery(6) });
type AddressInput = { params: z.output<typeof AddressParams> };

async function checkAddress(ctx: ApiContext, { params }: AddressInput): Promise<void> {
  await address(ctx, params.address);
}

async function checkTxKnown(ctx: ApiContext, { params }: { params: z.output<typeof TxidParams> }): Promise<void> {
  await assertTxKnown(ctx, params.txid);
}

/** `GET /v1/block-height` */
async function blockHeight(ctx: ApiContext): Promise<z.input<typeof BlockHeightResponse>> {
  const height = await ctx.node.getBlockCount();
  return { success: true, height, hex: hexQuantity(height) };
}

/** `GET /v1/fee-estimate` */
async function feeEstimateRoute(ctx: ApiContext, { query }: { query: z.output<typeof FeeEstimateQuery> }): Promise<z.input<typeof FeeEstimateResponse>> {
  const { blocks } = query;
  const mode = 'conservative';
  // Cached per target for 30 s and shared by concurrent requests: not one node call per request.
  const smart = await ctx.fees.smartFees.answer(blocks);
  const estimate = feeEstimate(blocks, smart, mode, ctx.fees.projection(blocks));
  if (!estimate) throw new Errors.MEMPOOL_NOT_READY('estimatesmartfee has no data yet and the first mempool poll has not finished');
  const now = ctx.now();
  return { success: true, ...snapshotAge(now, ctx.mempool.mirror.matchedNodeAt ?? now), blocks, unit: 'sat/vB', ...estimate };
}

/** `GET /v1/balance/:address` */
async function addressBalance(ctx: ApiContext, { params }: AddressInput): Promise<z.input<typeof BalanceResponse>> {
  const parsed = await address(ctx, params.address);
  const balance = await ctx.addressSource.balance(parsed);
  return {
    success: true,
    address: parsed.address,
    type: parsed.type,
    network: await ctx.chain.network(),
    source: ctx.addressSource.kind,
    unit: 'sat',
    confirmedSat: balance.confirmedSat,
    unconfirmedSat: balance.unconfirmedSat,
    totalSat: balance.confirmedSat + (balance.unconfirmedSat ?? 0),
    confirmedTxCount: balance.confirmedTxCount,
    unconfirmedTxCount: balance.unconfirmedTxCount,
    note:
      ctx.addressSource.kind === 'scantxoutset'
        ? 'scantxoutset reads the confirmed UTXO set only: unconfirmed activity is not included (configure ESPLORA_URL for it)'
        : 'confirmed = chain funded − spent; unconfirmed = net change from mempool transactions',
  };
}

/** `GET /v1/utxos/:address` */
async function addressUtxos(ctx: ApiContext, { params }: AddressInput): Promise<z.input<typeof UtxosResponse>> {
  const parsed = await address(ctx, params.address);
  const [utxos, height] = await Promise.all([ctx.addressSource.utxos(parsed), ctx.node.getBlockCount()]);
  utxos.sort((a, b) => (a.height ?? Infinity) - (b.height ?? Infinity) || a.txid.localeCompare(b.txid) || a.vout - b.vout);
  const listed = utxos.slice(0, MAX_UTXOS_LISTED);
  return {
    success: true,
    address: parsed.address,
    type: parsed.type,
    source: ctx.addressSource.kind,
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
}

/** `GET /v1/tx/:txid` */
async function transaction(ctx: ApiContext, { params }: { params: z.output<typeof TxidParams> }): Promise<z.input<typeof TxResponse>> {
  const { node } = ctx;
  const tx = await node.getRawTransaction(params.txid);
  // The block's own height, not tip − confirmations + 1: a block landing between two calls made that off by one.
  const [header, mempoolEntry, withPrevouts] = await Promise.all([
    tx.confirmations && tx.blockhash ? nullIfAbsent(node.getBlockHeader(tx.blockhash)) : null,
    tx.confirmations ? null : nullIfAbsent(node.getMempoolEntry(params.txid)),
    fillPrevouts(node, tx),
  ]);
  return { success: true, ...decodedTransaction(withPrevouts, header?.height ?? null, mempoolEntry) };
}

export const bitcoinRoutes = [
  defineRoute({
    family: 'bitcoin',
    method: 'GET',
    path: '/v1/block-height',
    price: 0.001,
    summary: 'Tip height of the chain',
    description: 'Calls getblockcount. `hex` is the height as a 0x-prefixed hexadecimal quantity.',
    response: BlockHeightResponse,
    errors: ['NODE_UNAVAILABLE', 'NODE_TIMEOUT'],
    example: { response: { success: true, height: 850_000, hex: '0xcf850' } },
  }).handle(blockHeight),

  defineRoute({
    family: 'bitcoin',
    method: 'GET',
    path: '/v1/fee-estimate',
    snapshot: 'mempool',
    price: 0.001,
    summary: 'Fee rate (sat/vB) to confirm within N blocks',
    description:
      'Up to 8 blocks the current mempool queue decides (sorted by effective chunk fee rate); beyond, or when the queue clears within the target, Core estimatesmartfee (conservative). Both answers are returned; `source` names the one used and `derivation` says how.',
    query: FeeEstimateQuery,
    response: FeeEstimateResponse,
    errors: ['NODE_UNAVAILABLE', 'NODE_TIMEOUT', 'MEMPOOL_NOT_READY'],
    example: {
      query: { blocks: '3' },
      response: EXAMPLE_FEE_ESTIMATE,
    },
  }).handle(feeEstimateRoute),

  defineRoute({
    family: 'bitcoin',
    method: 'GET',
    path: '/v1/balance/:address',
    price: 0.001,
    summary: 'Confirmed and unconfirmed balance of an address, in satoshis',
    description:
      'From Esplora when ESPLORA_URL is set (confirmed and mempool), else the node scantxoutset (confirmed only: unconfirmedSat is null). `source` says which.',
    params: AddressParams,
    response: BalanceResponse,
    errors: ADDRESS_ERRORS,
    example: {
      params: { address: EXAMPLE_ADDRESS },
      response: EXAMPLE_BALANCE,
    },
    precheck: checkAddress,
  }).handle(addressBalance),

  defineRoute({
    family: 'bitcoin',
    method: 'GET',
    path: '/v1/utxos/:address',
    price: 0.002,
    summary: 'Unspent outputs of an address',
    description: `Oldest first; the first ${MAX_UTXOS_LISTED.toLocaleString('en-US')} are listed, \`count\` and \`totalSat\` count all.`,
    params: AddressParams,
    response: UtxosResponse,
    errors: ADDRESS_ERRORS,
    example: {
      params: { address: EXAMPLE_ADDRESS },
      response: EXAMPLE_UTXOS,
    },
    precheck: checkAddress,
  }).handle(addressUtxos),

  defineRoute({
    family: 'bitcoin',
    method: 'GET',
    path: '/v1/tx/:txid',
    price: 0.001,
    summary: 'Decoded transaction with fee, fee rate and status',
    description:
      'getrawtransaction 2 (confirmed transactions need txindex=1 on the node); prevouts of mempool transactions are filled from their parents, as Esplora does.',
    params: TxidParams,
    response: TxResponse,
    errors: ['INVALID_TXID', 'TX_NOT_FOUND', 'NODE_UNAVAILABLE', 'NODE_TIMEOUT'],
    precheck: checkTxKnown,
    example: {
      params: { txid: EXAMPLE_TXID },
      response: EXAMPLE_TX,
    },
  }).handle(transaction),
];
