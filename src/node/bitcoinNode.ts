/**
 * Typed access to a Bitcoin node: one method per Core RPC we use, each answer checked by a zod
 * schema (`./schemas.ts`). Works the same against a real Bitcoin Core and the embedded simulated
 * node, which speaks the same protocol. Refusals the caller can act on become catalogue errors
 * (unknown txid → 404 `TX_NOT_FOUND`, …); outages become 503.
 */
import { z } from 'zod';
import { Errors } from '../errors.js';
import { CORE_RPC_CODES } from '../bitcoin/coreRpcCodes.js';
import { NodeRpcError, RpcTransport, type RpcTransportOptions } from './rpcTransport.js';
import * as S from './schemas.js';

export interface BitcoinNodeOptions extends RpcTransportOptions {
  /** Timeout of `scantxoutset`, which walks the whole UTXO set. */
  scanTimeoutMs: number;
}

export class BitcoinNode {
  readonly transport: RpcTransport;
  private readonly scanTimeoutMs: number;

  constructor(options: BitcoinNodeOptions) {
    this.transport = new RpcTransport(options);
    this.scanTimeoutMs = options.scanTimeoutMs;
  }

  /** `getblockchaininfo`: chain name, tip height and hash. */
  getBlockchainInfo(options: { timeoutMs?: number } = {}): Promise<S.BlockchainInfo> {
    return this.transport.call('getblockchaininfo', [], S.BlockchainInfo, options);
  }

  /** `getblockcount`: height of the tip. */
  getBlockCount(): Promise<number> {
    return this.transport.call('getblockcount', [], S.int);
  }

  /** `getbestblockhash` */
  getBestBlockHash(): Promise<string> {
    return this.transport.call('getbestblockhash', [], S.hash);
  }

  /** `getblockhash <height>`; `BLOCK_NOT_FOUND` (404) above the tip. */
  async getBlockHash(height: number): Promise<string> {
    try {
      return await this.transport.call('getblockhash', [height], S.hash);
    } catch (error) {
      throw refusal(error, { [CORE_RPC_CODES.INVALID_PARAMETER]: () => new Errors.BLOCK_NOT_FOUND(`at height ${height}`) });
    }
  }

  /** `getblockheader <hash> true` */
  async getBlockHeader(hash: string): Promise<S.BlockHeader> {
    try {
      return await this.transport.call('getblockheader', [hash, true], S.BlockHeader);
    } catch (error) {
      throw refusal(error, { [CORE_RPC_CODES.INVALID_ADDRESS_OR_KEY]: () => new Errors.BLOCK_NOT_FOUND(hash) });
    }
  }

  /** `getblock <hash> 1`: header fields and txids. */
  getBlock(hash: string, verbosity: 1): Promise<S.BlockVerbose1>;
  /** `getblock <hash> 2`: header fields and decoded transactions with fees. */
  getBlock(hash: string, verbosity: 2): Promise<S.BlockVerbose2>;
  async getBlock(hash: string, verbosity: 1 | 2): Promise<S.BlockVerbose1 | S.BlockVerbose2> {
    try {
      // fastJson: a verbose block is megabytes (the client's big-number parser takes ~5x longer on
      // the event loop), and none of its numbers needs more than a double.
      return await this.transport.call('getblock', [hash, verbosity], verbosity === 1 ? S.BlockVerbose1 : S.BlockVerbose2, { fastJson: true });
    } catch (error) {
      throw refusal(error, { [CORE_RPC_CODES.INVALID_ADDRESS_OR_KEY]: () => new Errors.BLOCK_NOT_FOUND(hash) });
    }
  }

  /**
   * `getrawtransaction <txid> 2` (verbose with prevouts and fee; falls back to verbosity 1 on nodes
   * before v25). `TX_NOT_FOUND` (404) when neither the mempool nor the tx index knows it.
   */
  async getRawTransaction(txid: string): Promise<S.RawTransaction> {
    try {
      try {
        return await this.transport.call('getrawtransaction', [txid, 2], S.RawTransaction);
      } catch (error) {
        if (error instanceof NodeRpcError && error.rpcCode === CORE_RPC_CODES.TYPE_ERROR) {
          return await this.transport.call('getrawtransaction', [txid, true], S.RawTransaction);
        }
        throw error;
      }
    } catch (error) {
      throw refusal(error, { [CORE_RPC_CODES.INVALID_ADDRESS_OR_KEY]: () => new Errors.TX_NOT_FOUND(txid) });
    }
  }

  /** `getrawtransaction <txid> false`: the serialized transaction. */
  async getRawTransactionHex(txid: string): Promise<string> {
    try {
      return await this.transport.call('getrawtransaction', [txid, false], S.hex);
    } catch (error) {
      throw refusal(error, { [CORE_RPC_CODES.INVALID_ADDRESS_OR_KEY]: () => new Errors.TX_NOT_FOUND(txid) });
    }
  }

  /** `decoderawtransaction <hex>`; `INVALID_RAW_TRANSACTION` (422) if it does not decode. */
  async decodeRawTransaction(hex: string): Promise<S.DecodedTx> {
    try {
      return await this.transport.call('decoderawtransaction', [hex], S.DecodedTx);
    } catch (error) {
      throw refusal(error, { [CORE_RPC_CODES.DESERIALIZATION_ERROR]: (e) => new Errors.INVALID_RAW_TRANSACTION(e.message) });
    }
  }

  /** `getrawmempool false`: txids. */
  getRawMempoolTxids(): Promise<string[]> {
    return this.transport.call('getrawmempool', [false], z.array(S.hash), { fastJson: true });
  }

  /**
   * `getrawmempool false true`: txids and the next mempool sequence number (ZMQ `sequence` events
   * numbered below it are already in this list).
   */
  getRawMempoolWithSequence(): Promise<{ txids: string[]; mempool_sequence: number }> {
    return this.transport.call('getrawmempool', [false, true], z.object({ txids: z.array(S.hash), mempool_sequence: S.int }), { fastJson: true });
  }

  /** `getrawmempool true`: every entry, keyed by txid. Big: use `timeoutMs` for large mempools. */
  getRawMempoolVerbose(options: { timeoutMs?: number } = {}): Promise<S.VerboseMempool> {
    return this.transport.call('getrawmempool', [true], S.VerboseMempool, { ...options, fastJson: true });
  }

  /**
   * `getmempoolentry` for many txids in batches of `chunk`. Txids that left the mempool meanwhile
   * are simply absent from the answer.
   */
  async getMempoolEntries(txids: readonly string[], chunk = 1000): Promise<Map<string, S.MempoolEntry>> {
    return this.batched(txids, chunk, 'getmempoolentry', (txid) => [txid], S.MempoolEntry);
  }

  /** `getrawtransaction <txid> false` for many txids in batches; unknown txids are absent. */
  async getRawTransactionsHex(txids: readonly string[], chunk = 500): Promise<Map<string, string>> {
    return this.batched(txids, chunk, 'getrawtransaction', (txid) => [txid, false], S.hex);
  }

  /**
   * `gettxout <txid> <n> false` for many outpoints (`txid:vout`) in batches: the value in BTC of
   * each output unspent in the chain (whatever the mempool spends); spent or unknown ones are absent.
   */
  async getTxOutValues(outpoints: readonly string[], chunk = 500): Promise<Map<string, number>> {
    const answers = await this.batched(
      outpoints,
      chunk,
      'gettxout',
      (o) => [o.slice(0, 64), Number(o.slice(65)), false],
      z.object({ value: S.num }).nullable(),
    );
    const out = new Map<string, number>();
    for (const [o, answer] of answers) if (answer) out.set(o, answer.value);
    return out;
  }

  /** `getrawtransaction <txid> 1` for many txids in batches; unknown txids are absent. */
  async getRawTransactionsVerbose(txids: readonly string[], chunk = 100): Promise<Map<string, S.RawTransaction>> {
    return this.batched(txids, chunk, 'getrawtransaction', (txid) => [txid, true], S.RawTransaction);
  }

  private async batched<S extends z.ZodType>(
    keys: readonly string[],
    chunk: number,
    method: string,
    params: (key: string) => unknown[],
    schema: S,
  ): Promise<Map<string, z.output<S>>> {
    const out = new Map<string, z.output<S>>();
    for (let i = 0; i < keys.length; i += chunk) {
      const slice = keys.slice(i, i + chunk);
      const answers = await this.transport.batch(slice.map((key) => ({ method, params: params(key) })));
      answers.forEach((answer, j) => {
        const key = slice[j];
        if (!answer.ok || key === undefined) return;
        const parsed = schema.safeParse(answer.result);
        if (!parsed.success) throw new Errors.NODE_BAD_RESPONSE(method, parsed.error.issues[0]?.message ?? 'invalid');
        out.set(key, parsed.data);
      });
    }
    return out;
  }

  /** `getmempoolentry <txid>`; `TX_NOT_IN_MEMPOOL` (404) if absent. */
  async getMempoolEntry(txid: string): Promise<S.MempoolEntry> {
    try {
      return await this.transport.call('getmempoolentry', [txid], S.MempoolEntry);
    } catch (error) {
      throw refusal(error, { [CORE_RPC_CODES.INVALID_ADDRESS_OR_KEY]: () => new Errors.TX_NOT_IN_MEMPOOL(txid) });
    }
  }

  /** `getmempoolancestors <txid> true` */
  async getMempoolAncestors(txid: string): Promise<S.VerboseMempool> {
    try {
      return await this.transport.call('getmempoolancestors', [txid, true], S.VerboseMempool);
    } catch (error) {
      throw refusal(error, { [CORE_RPC_CODES.INVALID_ADDRESS_OR_KEY]: () => new Errors.TX_NOT_IN_MEMPOOL(txid) });
    }
  }

  /** `getmempooldescendants <txid> true` */
  async getMempoolDescendants(txid: string): Promise<S.VerboseMempool> {
    try {
      return await this.transport.call('getmempooldescendants', [txid, true], S.VerboseMempool);
    } catch (error) {
      throw refusal(error, { [CORE_RPC_CODES.INVALID_ADDRESS_OR_KEY]: () => new Errors.TX_NOT_IN_MEMPOOL(txid) });
    }
  }

  /** `getmempoolinfo` */
  getMempoolInfo(): Promise<S.MempoolInfo> {
    return this.transport.call('getmempoolinfo', [], S.MempoolInfo);
  }

  /** `estimatesmartfee <blocks> <mode>`: `feerate` in BTC/kvB, absent when the node has no estimate. */
  estimateSmartFee(blocks: number, mode: 'economical' | 'conservative' = 'conservative'): Promise<S.SmartFee> {
    return this.transport.call('estimatesmartfee', [blocks, mode], S.SmartFee);
  }

  /** `getblocktemplate {"rules":["segwit"]}`: the node's own block template (our baseline). */
  getBlockTemplate(options: { timeoutMs?: number } = {}): Promise<S.BlockTemplate> {
    return this.transport.call('getblocktemplate', [{ rules: ['segwit'] }], S.BlockTemplate, { ...options, fastJson: true });
  }

  /** `testmempoolaccept [<hex>]`: would the node accept it, and why not. */
  testMempoolAccept(hex: string): Promise<S.MempoolAcceptResult> {
    return this.transport.call('testmempoolaccept', [[hex]], S.MempoolAcceptResult);
  }

  /** `sendrawtransaction <hex>`: relays a caller-signed transaction; returns its txid. */
  sendRawTransaction(hex: string): Promise<string> {
    return this.transport.call('sendrawtransaction', [hex], S.hash);
  }

  /**
   * `scantxoutset start [descriptors]`: confirmed UTXOs of the given descriptors (slow on mainnet).
   * Core runs one scan at a time and keeps scanning after its client gave up, so a scan that times
   * out is aborted on the node (otherwise every later scan is refused until it ends).
   * @throws ADDRESS_SOURCE_UNAVAILABLE (503) while another scan runs on the node, or when the scan
   *   was aborted before it finished (its answer is partial); NODE_TIMEOUT / NODE_UNAVAILABLE (503)
   */
  async scanTxOutSet(descriptors: string[]): Promise<S.ScanTxOutSet> {
    let result: S.ScanTxOutSet;
    try {
      result = await this.transport.call('scantxoutset', ['start', descriptors], S.ScanTxOutSet, { timeoutMs: this.scanTimeoutMs });
    } catch (error) {
      if ((error as { code?: unknown }).code === 'NODE_TIMEOUT') void this.transport.raw('scantxoutset', ['abort']).catch(() => undefined);
      throw refusal(error, {
        [CORE_RPC_CODES.INVALID_PARAMETER]: (e) =>
          /in progress/i.test(e.message)
            ? new Errors.ADDRESS_SOURCE_UNAVAILABLE('the node is running another scantxoutset; retry shortly')
            : new Errors.NODE_ERROR(e.method, e.message),
      });
    }
    if (!result.success) throw new Errors.ADDRESS_SOURCE_UNAVAILABLE('scantxoutset was aborted before it finished; retry shortly');
    return result;
  }
}

type RefusalMap = Record<number, (error: NodeRpcError) => Error>;

/** Maps a node refusal to a catalogue error; unmapped refusals become `NODE_ERROR` (502). */
function refusal(error: unknown, map: RefusalMap): unknown {
  if (!(error instanceof NodeRpcError)) return error;
  const make = map[error.rpcCode];
  return make ? make(error) : new Errors.NODE_ERROR(error.method, error.message);
}
