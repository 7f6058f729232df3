/**
 * The getblocktemplate drop-in: a small HTTP server, apart from the paid API, that speaks Bitcoin
 * Core's JSON-RPC (1.0 and 2.0 envelopes, batches, Core's error codes and HTTP statuses) to the
 * operator's own pool. `getblocktemplate` answers from the optimized template (poolTemplate.ts),
 * with long polling; proposal mode and a short allowlist of read-only and submit calls a pool
 * makes go to the node as they are; anything else is Core's "Method not found".
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import { z } from 'zod';
import { CORE_RPC_CODES } from '../bitcoin/coreRpcCodes.js';
import type { MempoolMirror } from '../mempool/mirror.js';
import type { BitcoinNode } from '../node/bitcoinNode.js';
import { NodeRpcError } from '../node/rpcTransport.js';
import { BlockTemplate } from '../node/schemas.js';
import type { OptimizerService } from '../optimizer/optimizerService.js';
import type { PoolCredentials } from './credentials.js';
import { LongPoll, longPollId } from './longPoll.js';
import { poolTemplate } from './poolTemplate.js';

/**
 * Calls a pool makes besides getblocktemplate, forwarded to the node: submitting work
 * (`submitblock`, `submitheader`), following the chain (`getbestblockhash`, `getblockcount`,
 * `getblockhash`, `getblockheader`, `getblock`, `getblockchaininfo`, `getdifficulty`), status
 * pages (`getmininginfo`, `getnetworkinfo`, `getnetworkhashps`, `getmempoolinfo`, `uptime`) and
 * payout address checks (`validateaddress`). Nothing that spends, mines to the node's wallet,
 * changes the mempool or the node's configuration.
 */
export const FORWARDED_METHODS: ReadonlySet<string> = new Set([
  'submitblock',
  'submitheader',
  'getbestblockhash',
  'getblockcount',
  'getblockhash',
  'getblockheader',
  'getblock',
  'getblockchaininfo',
  'getdifficulty',
  'getmininginfo',
  'getnetworkinfo',
  'getnetworkhashps',
  'getmempoolinfo',
  'uptime',
  'validateaddress',
]);

/** A block of 4 MWU is 8 MB as hex; room for the envelope and a batch of small calls. */
const MAX_BODY_BYTES = 24 * 1024 * 1024;
const MAX_BATCH = 100;

const Call = z.object({
  method: z.string().max(100),
  params: z.union([z.array(z.unknown()), z.record(z.string(), z.unknown())]).optional(),
  id: z.unknown().optional(),
  jsonrpc: z.string().max(10).optional(),
});
const TemplateRequest = z.looseObject({ mode: z.string().optional(), longpollid: z.string().max(200).optional() });

class Fault extends Error {
  constructor(
    readonly rpcCode: number,
    message: string,
  ) {
    super(message);
  }
}

export interface PoolRpcStats {
  templates: { optimized: number; node: number; lastFallbackReason: string | null; lastSource: 'optimized' | 'node' | null };
  forwarded: number;
  refused: { auth: number; method: number };
}

export interface PoolRpcOptions {
  host: string;
  port: number;
  credentials: PoolCredentials;
  node: BitcoinNode;
  mirror: MempoolMirror;
  optimizer: OptimizerService;
  longPollMs: number;
  logger?: FastifyBaseLogger;
}

export class PoolRpcServer {
  readonly stats: PoolRpcStats = {
    templates: { optimized: 0, node: 0, lastFallbackReason: null, lastSource: null },
    forwarded: 0,
    refused: { auth: 0, method: 0 },
  };
  private readonly server: Server;
  private readonly longPoll: LongPoll;

  constructor(private readonly options: PoolRpcOptions) {
    this.longPoll = new LongPoll(options.mirror, options.optimizer, options.longPollMs);
    this.server = createServer((req, res) => void this.handle(req, res));
    // Long polls hold requests open: no request timeout below the long poll.
    this.server.requestTimeout = options.longPollMs + 120_000;
  }

  async listen(): Promise<AddressInfo> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.options.port, this.options.host, () => resolve());
    });
    return this.address();
  }

  address(): AddressInfo {
    return this.server.address() as AddressInfo;
  }

  async close(): Promise<void> {
    this.longPoll.releaseAll();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!this.options.credentials.accepts(req.headers.authorization)) {
      this.stats.refused.auth += 1;
      req.resume();
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="jsonrpc"' }).end();
      return;
    }
    if (req.method !== 'POST') {
      req.resume();
      res.writeHead(405).end('JSONRPC server handles only POST requests');
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req));
    } catch (e) {
      if ((e as { tooLarge?: boolean }).tooLarge) {
        res.writeHead(413).end();
        return;
      }
      send(res, 500, { result: null, error: { code: CORE_RPC_CODES.PARSE_ERROR, message: 'Parse error' }, id: null });
      return;
    }
    if (Array.isArray(body)) {
      if (body.length > MAX_BATCH) {
        send(res, 400, { result: null, error: { code: CORE_RPC_CODES.INVALID_REQUEST, message: `Batch of more than ${MAX_BATCH} calls` }, id: null });
        return;
      }
      const replies = [];
      for (const item of body) replies.push((await this.reply(item)).body);
      send(res, 200, replies);
      return;
    }
    const { status, body: reply } = await this.reply(body);
    send(res, status, reply);
  }

  /** One call's reply, in the envelope the caller used, with the HTTP status Core gives a lone call. */
  private async reply(raw: unknown): Promise<{ status: number; body: unknown }> {
    const parsed = Call.safeParse(raw);
    const id = (raw as { id?: unknown } | null)?.id ?? null;
    const v2 = (raw as { jsonrpc?: unknown } | null)?.jsonrpc === '2.0';
    const ok = (result: unknown) => ({ status: 200, body: v2 ? { jsonrpc: '2.0', result, id } : { result, error: null, id } });
    const fail = (code: number, message: string) => {
      const error = { code, message };
      const status = v2 ? 200 : code === CORE_RPC_CODES.INVALID_REQUEST ? 400 : code === CORE_RPC_CODES.METHOD_NOT_FOUND ? 404 : 500;
      return { status, body: v2 ? { jsonrpc: '2.0', error, id } : { result: null, error, id } };
    };
    if (!parsed.success) return fail(CORE_RPC_CODES.INVALID_REQUEST, 'Invalid Request object');
    const { method } = parsed.data;
    const params = Array.isArray(parsed.data.params) ? parsed.data.params : parsed.data.params === undefined ? [] : [parsed.data.params];
    try {
      if (method === 'getblocktemplate') return ok(await this.getBlockTemplate(params));
      if (!FORWARDED_METHODS.has(method)) {
        this.stats.refused.method += 1;
        return fail(CORE_RPC_CODES.METHOD_NOT_FOUND, 'Method not found');
      }
      this.stats.forwarded += 1;
      return ok(await this.options.node.transport.raw(method, params, { fastJson: true }));
    } catch (e) {
      if (e instanceof Fault) return fail(e.rpcCode, e.message);
      if (e instanceof NodeRpcError) return fail(e.rpcCode, e.coreMessage);
      this.options.logger?.warn({ err: e, method }, 'pool RPC: the node call failed');
      return fail(CORE_RPC_CODES.MISC_ERROR, `node unavailable: ${(e as Error).message}`);
    }
  }

  private async getBlockTemplate(params: unknown[]): Promise<unknown> {
    const request = TemplateRequest.safeParse(params[0] ?? {});
    if (!request.success) throw new Fault(CORE_RPC_CODES.TYPE_ERROR, 'template_request must be an object');
    const { longpollid, ...forNode } = request.data;
    // Proposals are the node's to judge, as they are.
    if (request.data.mode === 'proposal') return this.options.node.transport.raw('getblocktemplate', params, { fastJson: true });
    const { mirror, optimizer, node } = this.options;
    if (longpollid !== undefined) await this.longPoll.wait(longpollid, () => longPollId(mirror.tipHash ?? '', optimizer.cache));
    const nodeTemplate = await node.transport.call('getblocktemplate', [forNode], BlockTemplate, { fastJson: true });
    const built = await poolTemplate({
      node: nodeTemplate,
      cache: optimizer.cache,
      txOf: (txid) => mirror.txs.get(txid),
      fetchRaw: (txids) => node.getRawTransactionsHex(txids),
    });
    const t = this.stats.templates;
    t.lastSource = built.source;
    if (built.source === 'optimized') t.optimized += 1;
    else {
      t.node += 1;
      t.lastFallbackReason = built.reason;
      this.options.logger?.info({ reason: built.reason }, 'pool RPC: serving the node’s own template');
    }
    return { ...built.template, longpollid: longPollId(built.template.previousblockhash, optimizer.cache) };
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(`${JSON.stringify(body)}\n`);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.destroy();
        reject(Object.assign(new Error('body too large'), { tooLarge: true }));
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
