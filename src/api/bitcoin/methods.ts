/**
 * Bitcoin reads as `eth_*` JSON-RPC methods, in the shapes EVM clients parse (`shared/evmShapes.ts`):
 * tip height, gas price (next-block fee rate), address balance, blocks and transactions. Where
 * Ethereum's JSON-RPC answers null for "not found", so do these. Each runner is the named function
 * above the declarations.
 */
import { z } from 'zod';
import { btcPerKvbToSatVb, btcToSats } from '../../bitcoin/units.js';
import { Errors } from '../../errors.js';
import { nullIfAbsent } from '../../node/absent.js';
import { defineRpcMethod, type ApiContext } from '../define.js';
import { AddressParam, HexQuantity, Txid } from '../schemas.js';
import { BlockTag, resolveBlockTag } from '../shared/blockTag.js';
import { chainId } from '../shared/chainId.js';
import { EvmBlock, EvmTransaction, evmBlock, evmTransaction } from '../shared/evmShapes.js';
import { hexQuantity } from '../shared/hex.js';
import { address, ADDRESS_ERRORS } from './addressLookup.js';
import { EXAMPLE_ADDRESS, EXAMPLE_TXID } from './endpoints.examples.js';

/** `params` of `eth_getBalance`: a Bitcoin address and an optional block tag. */
const GetBalanceParams = z.union([z.tuple([AddressParam]), z.tuple([AddressParam, BlockTag])]);
const GetBlockParams = z.union([z.tuple([BlockTag]), z.tuple([BlockTag, z.boolean()])]);
/** A txid, with or without the `0x` EVM clients put in front. */
const GetTransactionParams = z.tuple([
  z
    .string()
    .transform((s) => (s.startsWith('0x') ? s.slice(2) : s))
    .pipe(Txid),
]);

/**
 * Which balance a block tag asks for: `latest` (confirmed) or `pending` (with the mempool).
 * @throws INVALID_REQUEST (invalid params, free) for heights and tags the service cannot serve
 */
async function balanceTag(ctx: ApiContext, tag: z.output<typeof BlockTag>): Promise<'latest' | 'pending'> {
  if (tag === 'latest') return 'latest';
  if (tag === 'pending') {
    if (ctx.addressSource.kind === 'scantxoutset') {
      throw new Errors.INVALID_REQUEST('a pending balance needs an address source that sees the mempool (this server reads scantxoutset: use "latest")');
    }
    return 'pending';
  }
  const tip = await ctx.node.getBlockCount();
  const height = await resolveBlockTag(ctx.node, tag);
  if (height === tip) return 'latest';
  throw new Errors.INVALID_REQUEST(
    `the balance at height ${height} cannot be served (no historical address index); ask for "latest" (tip ${tip}) or "pending"`,
  );
}

async function checkBalanceParams(ctx: ApiContext, [raw, tag = 'latest']: z.output<typeof GetBalanceParams>): Promise<void> {
  await address(ctx, raw);
  await balanceTag(ctx, tag);
}

/** `eth_blockNumber` */
async function ethBlockNumber(ctx: ApiContext): Promise<string> {
  return hexQuantity(await ctx.node.getBlockCount());
}

/** `eth_gasPrice` */
async function ethGasPrice(ctx: ApiContext): Promise<string> {
  let satVb = ctx.fees.projection(1)?.feeRateSatVb;
  if (satVb === undefined) {
    const smart = await ctx.fees.smartFees.answer(1);
    if (smart.feerate === undefined)
      throw new Errors.MEMPOOL_NOT_READY('no fee data yet: the first mempool poll has not finished and estimatesmartfee has no estimate');
    satVb = btcPerKvbToSatVb(smart.feerate);
  }
  return hexQuantity(Math.ceil(satVb * 1000));
}

/** `eth_getBalance` */
async function ethGetBalance(ctx: ApiContext, [raw, tag = 'latest']: z.output<typeof GetBalanceParams>): Promise<string> {
  const parsed = await address(ctx, raw);
  const withMempool = (await balanceTag(ctx, tag)) === 'pending';
  const balance = await ctx.addressSource.balance(parsed);
  return hexQuantity(Math.max(0, balance.confirmedSat + (withMempool ? (balance.unconfirmedSat ?? 0) : 0)));
}

/** Above the tip: answered null before payment, free. */
async function blockAbsent(ctx: ApiContext, [tag]: z.output<typeof GetBlockParams>): Promise<boolean> {
  return (await resolveBlockTag(ctx.node, tag)) > (await ctx.node.getBlockCount());
}

/** Unknown to the node (mempool and transaction index): answered null before payment, free. */
async function transactionAbsent(ctx: ApiContext, [txid]: z.output<typeof GetTransactionParams>): Promise<boolean> {
  return (await nullIfAbsent(ctx.node.getRawTransaction(txid))) === null;
}

/** `eth_getBlockByNumber` */
async function ethGetBlockByNumber(ctx: ApiContext, [tag, full = false]: z.output<typeof GetBlockParams>): Promise<z.input<typeof EvmBlock> | null> {
  const { node } = ctx;
  const height = await resolveBlockTag(node, tag);
  if (height > (await node.getBlockCount())) return null;
  const hash = await nullIfAbsent(node.getBlockHash(height));
  if (hash === null) return null;
  const block = full ? await node.getBlock(hash, 2) : await node.getBlock(hash, 1);
  return evmBlock(block, await chainId(ctx));
}

/** `eth_getTransactionByHash` */
async function ethGetTransactionByHash(ctx: ApiContext, [txid]: z.output<typeof GetTransactionParams>): Promise<z.input<typeof EvmTransaction> | null> {
  const { node } = ctx;
  const tx = await nullIfAbsent(node.getRawTransaction(txid));
  if (!tx) return null;
  const id = await chainId(ctx);
  if (!tx.blockhash || !tx.confirmations) {
    const entry = tx.fee === undefined ? await nullIfAbsent(node.getMempoolEntry(txid)) : null;
    return evmTransaction(tx, { blockHash: null, blockHeight: null, index: null, chainId: id, feeSat: entry ? btcToSats(entry.fees.base) : null });
  }
  const block = await node.getBlock(tx.blockhash, 1);
  return evmTransaction(tx, { blockHash: block.hash, blockHeight: block.height, index: block.tx.indexOf(txid), chainId: id });
}

export const bitcoinMethods = [
  defineRpcMethod({
    family: 'bitcoin',
    name: 'eth_blockNumber',
    price: 0.001,
    summary: 'Bitcoin tip height as a hex quantity (getblockcount)',
    params: z.tuple([]),
    result: HexQuantity,
    errors: ['NODE_UNAVAILABLE', 'NODE_TIMEOUT'],
    example: { params: [], result: '0xcf850' },
  }).run(ethBlockNumber),

  defineRpcMethod({
    family: 'bitcoin',
    name: 'eth_gasPrice',
    snapshot: 'mempool',
    price: 0.001,
    summary: 'Next-block fee rate in sat/kvB (= msat/vB) as a hex quantity',
    description:
      'From the mempool projection for one block, else estimatesmartfee 1. sat/kvB keeps sub-sat/vB precision in an integer: 0x2710 = 10,000 sat/kvB = 10 sat/vB.',
    params: z.tuple([]),
    result: HexQuantity,
    errors: ['NODE_UNAVAILABLE', 'NODE_TIMEOUT', 'MEMPOOL_NOT_READY'],
    example: { params: [], result: '0x2710' },
  }).run(ethGasPrice),

  defineRpcMethod({
    family: 'bitcoin',
    name: 'eth_getBalance',
    price: 0.001,
    summary: 'Balance of a Bitcoin address in satoshis (hex); `latest` = confirmed, `pending` = confirmed + mempool',
    description:
      'The block argument: `latest` (default) or the tip height as a hex quantity = confirmed outputs; `pending` = confirmed plus the net mempool change (needs an address source that sees the mempool: ESPLORA_URL). A past height, `earliest`, `safe` or `finalized` cannot be served (Bitcoin Core keeps no historical address balances): invalid params, free. An EVM 0x address is invalid params.',
    params: GetBalanceParams,
    paramNames: ['address', 'block'],
    result: HexQuantity,
    errors: ADDRESS_ERRORS,
    example: { params: [EXAMPLE_ADDRESS, 'latest'], result: '0x249f0' },
    precheck: checkBalanceParams,
  }).run(ethGetBalance),

  defineRpcMethod({
    family: 'bitcoin',
    name: 'eth_getBlockByNumber',
    price: 0.001,
    summary: 'A Bitcoin block in EVM shape (number = height, gasUsed = weight), or null above the tip (free)',
    description:
      'Tags: latest/pending = tip, safe = tip − 1, finalized = tip − 5 (6 confirmations), earliest = genesis, or a hex height. With `true` as the second param, transactions are returned in EVM shape with their Bitcoin fields under `bitcoin`. A height above the tip is answered null before payment: never charged.',
    params: GetBlockParams,
    paramNames: ['block', 'fullTransactions'],
    result: EvmBlock.nullable(),
    errors: ['NODE_UNAVAILABLE', 'NODE_TIMEOUT'],
    example: { params: ['latest', false], result: null },
    isAbsent: blockAbsent,
  }).run(ethGetBlockByNumber),

  defineRpcMethod({
    family: 'bitcoin',
    name: 'eth_getTransactionByHash',
    price: 0.001,
    summary: 'A Bitcoin transaction in EVM shape (value = outputs in sat, gas = vsize, gasPrice = sat/kvB), or null when unknown (free)',
    description:
      'Mempool transactions carry their fee too (from the mempool entry): gasPrice and bitcoin.feeSat are never null for them. A txid the node does not know (mempool and transaction index) is answered null before payment: never charged.',
    params: GetTransactionParams,
    paramNames: ['hash'],
    result: EvmTransaction.nullable(),
    errors: ['NODE_UNAVAILABLE', 'NODE_TIMEOUT'],
    example: { params: [`0x${EXAMPLE_TXID}`], result: null },
    isAbsent: transactionAbsent,
  }).run(ethGetTransactionByHash),
];
