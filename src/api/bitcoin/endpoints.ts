/**
 * Bitcoin reads, over REST and as `eth_*` JSON-RPC methods: block height, fee estimate, address
 * balance and UTXOs, decoded transactions, blocks. Inputs are validated (and addresses checked
 * against the node's network) before any payment is asked. A node that fails to answer is a 503
 * with `Retry-After`; only "the node does not know it" becomes a 404 (or `null` where Ethereum's
 * JSON-RPC answers null).
 */
import { z } from 'zod';
import { ADDRESS_TYPES, parseAddress, type ParsedAddress } from '../../bitcoin/address.js';
import { btcPerKvbToSatVb, btcToSats } from '../../bitcoin/units.js';
import { Errors, type ErrorCode } from '../../errors.js';
import { feeEstimate } from '../../fees/feeEstimate.js';
import { nullIfAbsent } from '../../node/absent.js';
import { defineRoute, defineRpcMethod, type ApiContext } from '../define.js';
import { BlockTag, resolveBlockTag } from '../shared/blockTag.js';
import { chainId } from '../shared/chainId.js';
import { EvmBlock, EvmTransaction, evmBlock, evmTransaction } from '../shared/evmShapes.js';
import { hexQuantity } from '../shared/hex.js';
import { snapshotAge } from '../freshness.js';
import { assertTxKnown } from '../txKnown.js';
import {
  AddressParam,
  AddressParams,
  blocksQuery,
  Freshness,
  Hash,
  HexQuantity,
  Network,
  Sat,
  SatVb,
  strictObject,
  Success,
  Txid,
  TxidParams,
} from '../schemas.js';
import { DecodedTransaction, decodedTransaction, fillPrevouts } from '../shared/decodedTransaction.js';

/** Most UTXOs listed in one answer (the total still counts all of them). */
export const MAX_UTXOS_LISTED = 5_000;

const AddressType = z.enum(ADDRESS_TYPES);
const AddressSourceKind = z.enum(['esplora', 'scantxoutset']);

/** The address, checked against the node's network (400 `WRONG_NETWORK_ADDRESS` / `INVALID_ADDRESS`). */
async function address(ctx: ApiContext, raw: string): Promise<ParsedAddress> {
  return parseAddress(raw, await ctx.chain.network());
}

const FeeEstimateResponse = z.object({
  success: Success,
  /** The mempool view's time (the projection's input); the smart-fee answer is at most 30 s older. */
  ...Freshness,
  blocks: z.number().int(),
  unit: z.literal('sat/vB'),
  feeRateSatVb: SatVb,
  source: z.enum(['mempool_projection', 'estimatesmartfee']),
  derivation: z.string(),
  estimateSmartFee: z.object({
    feeRateSatVb: SatVb.nullable(),
    blocks: z.number().int().nullable(),
    mode: z.string(),
    errors: z.array(z.string()),
    raw: z.object({ feerate: z.number().optional(), blocks: z.number().int(), errors: z.array(z.string()).optional() }).nullable(),
  }),
  mempoolProjection: z.object({ feeRateSatVb: SatVb, competitive: z.boolean(), vsizeAhead: z.number(), derivation: z.string() }).nullable(),
});

const BalanceResponse = z.object({
  success: Success,
  address: z.string(),
  type: AddressType,
  network: Network,
  source: AddressSourceKind,
  unit: z.literal('sat'),
  confirmedSat: Sat,
  /** Null when the source cannot see the mempool (`scantxoutset`). */
  unconfirmedSat: Sat.nullable(),
  totalSat: Sat,
  confirmedTxCount: z.number().int().nullable(),
  unconfirmedTxCount: z.number().int().nullable(),
  note: z.string(),
});

const UtxosResponse = z.object({
  success: Success,
  address: z.string(),
  type: AddressType,
  source: AddressSourceKind,
  height: z.number().int(),
  count: z.number().int(),
  totalSat: Sat,
  truncated: z.boolean(),
  utxos: z.array(
    z.object({
      txid: Hash,
      vout: z.number().int(),
      valueSat: Sat,
      confirmed: z.boolean(),
      height: z.number().int().nullable(),
      confirmations: z.number().int().nonnegative(),
    }),
  ),
});

const EXAMPLE_TXID = '4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b';
/** What an address lookup can answer besides success (balance, UTXOs, eth_getBalance). */
const ADDRESS_ERRORS: readonly ErrorCode[] = ['INVALID_ADDRESS', 'WRONG_NETWORK_ADDRESS', 'ADDRESS_SOURCE_UNAVAILABLE', 'NODE_UNAVAILABLE', 'NODE_TIMEOUT'];
const EXAMPLE_ADDRESS = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';

const checkAddress = async (ctx: ApiContext, input: { params: unknown }): Promise<void> => {
  await address(ctx, (input.params as { address: string }).address);
};

export const bitcoinRoutes = [
  defineRoute({
    family: 'bitcoin',
    method: 'GET',
    path: '/v1/block-height',
    price: 0.001,
    summary: 'Tip height of the chain',
    description: 'Calls getblockcount. `hex` is the height as a 0x-prefixed hexadecimal quantity.',
    response: z.object({ success: Success, height: z.number().int().nonnegative(), hex: HexQuantity }),
    errors: ['NODE_UNAVAILABLE', 'NODE_TIMEOUT'],
    example: { response: { success: true, height: 850_000, hex: '0xcf850' } },
  }).handle(async (ctx) => {
    const height = await ctx.node.getBlockCount();
    return { success: true, height, hex: hexQuantity(height) };
  }),

  defineRoute({
    family: 'bitcoin',
    method: 'GET',
    path: '/v1/fee-estimate',
    snapshot: 'mempool',
    price: 0.001,
    summary: 'Fee rate (sat/vB) to confirm within N blocks',
    description:
      'Up to 8 blocks the current mempool queue decides (sorted by effective chunk fee rate); beyond, or when the queue clears within the target, Core estimatesmartfee (conservative). Both answers are returned; `source` names the one used and `derivation` says how.',
    query: strictObject({ blocks: blocksQuery(6) }),
    response: FeeEstimateResponse,
    errors: ['NODE_UNAVAILABLE', 'NODE_TIMEOUT', 'MEMPOOL_NOT_READY'],
    example: {
      query: { blocks: '3' },
      response: {
        success: true,
        asOf: '2026-11-25T10:00:00.000Z',
        ageMs: 1_200,
        blocks: 3,
        unit: 'sat/vB',
        feeRateSatVb: 12.4,
        source: 'mempool_projection',
        derivation: 'target within 8 blocks: the current queue decides. …',
        estimateSmartFee: { feeRateSatVb: 14.2, blocks: 3, mode: 'conservative', errors: [], raw: { feerate: 0.000142, blocks: 3 } },
        mempoolProjection: { feeRateSatVb: 12.4, competitive: true, vsizeAhead: 2_994_000, derivation: '…' },
      },
    },
  }).handle(async (ctx, { query }) => {
    const { blocks } = query;
    const mode = 'conservative';
    // Cached per target for 30 s and shared by concurrent requests: not one node call per request.
    const smart = await ctx.fees.smartFees.answer(blocks);
    const estimate = feeEstimate(blocks, smart, mode, ctx.fees.projection(blocks));
    if (!estimate) throw new Errors.MEMPOOL_NOT_READY('estimatesmartfee has no data yet and the first mempool poll has not finished');
    const now = ctx.now();
    return { success: true, ...snapshotAge(now, ctx.mempool.mirror.matchedNodeAt ?? now), blocks, unit: 'sat/vB', ...estimate };
  }),

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
      response: {
        success: true,
        address: EXAMPLE_ADDRESS,
        type: 'p2wpkh',
        network: 'main',
        source: 'esplora',
        unit: 'sat',
        confirmedSat: 150_000,
        unconfirmedSat: -20_000,
        totalSat: 130_000,
        confirmedTxCount: 4,
        unconfirmedTxCount: 1,
        note: 'confirmed = chain funded − spent; unconfirmed = net change from mempool transactions',
      },
    },
    precheck: checkAddress,
  }).handle(async (ctx, { params }) => {
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
  }),

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
      response: {
        success: true,
        address: EXAMPLE_ADDRESS,
        type: 'p2wpkh',
        source: 'esplora',
        height: 850_000,
        count: 1,
        totalSat: 150_000,
        truncated: false,
        utxos: [{ txid: EXAMPLE_TXID, vout: 0, valueSat: 150_000, confirmed: true, height: 849_990, confirmations: 11 }],
      },
    },
    precheck: checkAddress,
  }).handle(async (ctx, { params }) => {
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
  }),

  defineRoute({
    family: 'bitcoin',
    method: 'GET',
    path: '/v1/tx/:txid',
    price: 0.001,
    summary: 'Decoded transaction with fee, fee rate and status',
    description:
      'getrawtransaction 2 (confirmed transactions need txindex=1 on the node); prevouts of mempool transactions are filled from their parents, as Esplora does.',
    params: TxidParams,
    response: DecodedTransaction.extend({ success: Success }),
    errors: ['INVALID_TXID', 'TX_NOT_FOUND', 'NODE_UNAVAILABLE', 'NODE_TIMEOUT'],
    precheck: async (ctx, { params }) => assertTxKnown(ctx, params.txid),
    example: {
      params: { txid: EXAMPLE_TXID },
      response: {
        success: true,
        txid: EXAMPLE_TXID,
        wtxid: EXAMPLE_TXID,
        version: 2,
        locktime: 0,
        size: 222,
        vsize: 141,
        weight: 561,
        feeSat: 2_820,
        feeRateSatVb: 20,
        rbfSignaling: true,
        coinbase: false,
        status: {
          confirmed: false,
          inMempool: true,
          confirmations: 0,
          blockHash: null,
          blockHeight: null,
          blockTime: null,
          firstSeen: '2026-11-25T10:00:00.000Z',
        },
        totalInputSat: 102_820,
        totalOutputSat: 100_000,
        inputs: [{ txid: EXAMPLE_TXID, vout: 1, coinbase: false, sequence: 4_294_967_293, witnessItems: 2, prevout: null }],
        outputs: [
          {
            n: 0,
            valueSat: 100_000,
            address: EXAMPLE_ADDRESS,
            scriptType: 'witness_v0_keyhash',
            scriptPubKeyHex: '0014e8df018c7e326cc253faac7e46cdc51e68542c42',
          },
        ],
      },
    },
  }).handle(async (ctx, { params }) => {
    const { node } = ctx;
    const tx = await node.getRawTransaction(params.txid);
    // The block's own height, not tip − confirmations + 1: a block landing between two calls made that off by one.
    const [header, mempoolEntry, withPrevouts] = await Promise.all([
      tx.confirmations && tx.blockhash ? nullIfAbsent(node.getBlockHeader(tx.blockhash)) : null,
      tx.confirmations ? null : nullIfAbsent(node.getMempoolEntry(params.txid)),
      fillPrevouts(node, tx),
    ]);
    return { success: true, ...decodedTransaction(withPrevouts, header?.height ?? null, mempoolEntry) };
  }),
];

/** `params` of `eth_getBalance`: a Bitcoin address and an optional block tag. */
const GetBalanceParams = z.union([z.tuple([AddressParam]), z.tuple([AddressParam, BlockTag])]);

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
  }).run(async (ctx) => hexQuantity(await ctx.node.getBlockCount())),

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
  }).run(async (ctx) => {
    let satVb = ctx.fees.projection(1)?.feeRateSatVb;
    if (satVb === undefined) {
      const smart = await ctx.fees.smartFees.answer(1);
      if (smart.feerate === undefined)
        throw new Errors.MEMPOOL_NOT_READY('no fee data yet: the first mempool poll has not finished and estimatesmartfee has no estimate');
      satVb = btcPerKvbToSatVb(smart.feerate);
    }
    return hexQuantity(Math.ceil(satVb * 1000));
  }),

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
    precheck: async (ctx, [raw, tag = 'latest']) => {
      await address(ctx, raw);
      await balanceTag(ctx, tag);
    },
  }).run(async (ctx, [raw, tag = 'latest']) => {
    const parsed = await address(ctx, raw);
    const withMempool = (await balanceTag(ctx, tag)) === 'pending';
    const balance = await ctx.addressSource.balance(parsed);
    return hexQuantity(Math.max(0, balance.confirmedSat + (withMempool ? (balance.unconfirmedSat ?? 0) : 0)));
  }),

  defineRpcMethod({
    family: 'bitcoin',
    name: 'eth_getBlockByNumber',
    price: 0.001,
    summary: 'A Bitcoin block in EVM shape (number = height, gasUsed = weight), or null above the tip',
    description:
      'Tags: latest/pending = tip, safe = tip − 1, finalized = tip − 5 (6 confirmations), earliest = genesis, or a hex height. With `true` as the second param, transactions are returned in EVM shape with their Bitcoin fields under `bitcoin`.',
    params: z.union([z.tuple([BlockTag]), z.tuple([BlockTag, z.boolean()])]),
    paramNames: ['block', 'fullTransactions'],
    result: EvmBlock.nullable(),
    errors: ['NODE_UNAVAILABLE', 'NODE_TIMEOUT'],
    example: { params: ['latest', false], result: null },
  }).run(async (ctx, [tag, full = false]) => {
    const { node } = ctx;
    const height = await resolveBlockTag(node, tag);
    if (height > (await node.getBlockCount())) return null;
    const hash = await nullIfAbsent(node.getBlockHash(height));
    if (hash === null) return null;
    const block = full ? await node.getBlock(hash, 2) : await node.getBlock(hash, 1);
    return evmBlock(block, await chainId(ctx));
  }),

  defineRpcMethod({
    family: 'bitcoin',
    name: 'eth_getTransactionByHash',
    price: 0.001,
    summary: 'A Bitcoin transaction in EVM shape (value = outputs in sat, gas = vsize, gasPrice = sat/kvB), or null',
    description: 'Mempool transactions carry their fee too (from the mempool entry): gasPrice and bitcoin.feeSat are never null for them.',
    params: z.tuple([
      z
        .string()
        .transform((s) => (s.startsWith('0x') ? s.slice(2) : s))
        .pipe(Txid),
    ]),
    paramNames: ['hash'],
    result: EvmTransaction.nullable(),
    errors: ['NODE_UNAVAILABLE', 'NODE_TIMEOUT'],
    example: { params: [`0x${EXAMPLE_TXID}`], result: null },
  }).run(async (ctx, [txid]) => {
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
  }),
];

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
