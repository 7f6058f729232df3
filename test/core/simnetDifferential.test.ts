/**
 * The simulated node answers as Core does: every RPC the service sends goes to the simulated node
 * and to real Core (regtest, both with a mempool of CPFP pairs and replacements), both answers are
 * parsed with the service's own `src/node/schemas.ts`, and every field those schemas read must have
 * the same JSON type in both. Refusals must carry the same Core error code.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';

import { NodeRpcError, RpcTransport } from '../../src/node/rpcTransport.js';
import * as S from '../../src/node/schemas.js';
import { startSimnet, type SimnetHandle } from '../../src/simnet/index.js';
import { CORE_V31_POLICY_MODULE } from '../helpers/policyModule.js';
import { fillMempool, fundCoins } from './filler.js';
import { coreAvailability, startRegtest, type Regtest } from './regtest.js';

const available = coreAvailability();

/** Paths of the fields a schema reads (`a.b`, `a[].b`, `*` for record values). */
function readPaths(schema: z.ZodType, prefix = '', out = new Set<string>()): Set<string> {
  if (prefix) out.add(prefix);
  if (schema instanceof z.ZodObject) for (const [key, value] of Object.entries(schema.shape)) readPaths(value, prefix ? `${prefix}.${key}` : key, out);
  else if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable || schema instanceof z.ZodDefault)
    readPaths(schema.unwrap() as z.ZodType, prefix, out);
  else if (schema instanceof z.ZodArray) readPaths(schema.element as z.ZodType, `${prefix}[]`, out);
  else if (schema instanceof z.ZodRecord) readPaths(schema.valueType as z.ZodType, `${prefix}.*`, out);
  else if (schema instanceof z.ZodPipe) readPaths(schema.in as z.ZodType, prefix, out);
  else if (schema instanceof z.ZodUnion) for (const option of schema.options as z.ZodType[]) readPaths(option, prefix, out);
  return out;
}

/** Every path of a JSON value with the JSON types seen there. */
function typesByPath(value: unknown, prefix = '', out = new Map<string, Set<string>>(), recordKeys = false): Map<string, Set<string>> {
  const type = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  if (prefix) out.set(prefix, (out.get(prefix) ?? new Set()).add(type));
  if (Array.isArray(value)) for (const item of value) typesByPath(item, `${prefix}[]`, out);
  else if (value && typeof value === 'object')
    for (const [key, item] of Object.entries(value)) typesByPath(item, recordKeys ? `${prefix}.*` : prefix ? `${prefix}.${key}` : key, out);
  return out;
}

interface Call {
  label: string;
  method: string;
  params: (n: NodeSide) => unknown[];
  schema: z.ZodType;
  /** The answer is keyed by txid (a record). */
  record?: boolean;
}

interface NodeSide {
  name: string;
  rpc: RpcTransport;
  tipHash: string;
  confirmedTxid: string;
  /** A CPFP child (its parent is in the mempool too) and its raw hex. */
  childTxid: string;
  childHex: string;
  parentTxid: string;
  address: string;
}

const CALLS: Call[] = [
  { label: 'getblockchaininfo', method: 'getblockchaininfo', params: () => [], schema: S.BlockchainInfo },
  { label: 'getblockcount', method: 'getblockcount', params: () => [], schema: S.int },
  { label: 'getbestblockhash', method: 'getbestblockhash', params: () => [], schema: S.hash },
  { label: 'getblockhash', method: 'getblockhash', params: () => [1], schema: S.hash },
  { label: 'getblockheader', method: 'getblockheader', params: (n) => [n.tipHash], schema: S.BlockHeader },
  { label: 'getblock 1', method: 'getblock', params: (n) => [n.tipHash, 1], schema: S.BlockVerbose1 },
  { label: 'getblock 2', method: 'getblock', params: (n) => [n.tipHash, 2], schema: S.BlockVerbose2 },
  { label: 'getrawtransaction 2 (confirmed)', method: 'getrawtransaction', params: (n) => [n.confirmedTxid, 2], schema: S.RawTransaction },
  { label: 'getrawtransaction 2 (mempool)', method: 'getrawtransaction', params: (n) => [n.childTxid, 2], schema: S.RawTransaction },
  { label: 'getrawtransaction 0', method: 'getrawtransaction', params: (n) => [n.childTxid, 0], schema: S.hex },
  { label: 'decoderawtransaction', method: 'decoderawtransaction', params: (n) => [n.childHex], schema: S.DecodedTx },
  { label: 'getrawmempool false', method: 'getrawmempool', params: () => [false], schema: z.array(S.hash) },
  { label: 'getrawmempool true', method: 'getrawmempool', params: () => [true], schema: S.VerboseMempool, record: true },
  { label: 'getmempoolentry (child)', method: 'getmempoolentry', params: (n) => [n.childTxid], schema: S.MempoolEntry },
  { label: 'getmempoolentry (parent)', method: 'getmempoolentry', params: (n) => [n.parentTxid], schema: S.MempoolEntry },
  { label: 'getmempoolancestors true', method: 'getmempoolancestors', params: (n) => [n.childTxid, true], schema: S.VerboseMempool, record: true },
  { label: 'getmempooldescendants true', method: 'getmempooldescendants', params: (n) => [n.parentTxid, true], schema: S.VerboseMempool, record: true },
  { label: 'getmempoolinfo', method: 'getmempoolinfo', params: () => [], schema: S.MempoolInfo },
  { label: 'estimatesmartfee', method: 'estimatesmartfee', params: () => [2, 'conservative'], schema: S.SmartFee },
  { label: 'getblocktemplate', method: 'getblocktemplate', params: () => [{ rules: ['segwit'] }], schema: S.BlockTemplate },
  { label: 'testmempoolaccept', method: 'testmempoolaccept', params: (n) => [[n.childHex]], schema: S.MempoolAcceptResult },
  { label: 'scantxoutset', method: 'scantxoutset', params: (n) => ['start', [`addr(${n.address})`]], schema: S.ScanTxOutSet },
];

/** Fields of which a node sends one or the other, by its state (Core: `feerate` once it has fee history, else `errors`). */
const ALTERNATIVES: Record<string, string[]> = { estimatesmartfee: ['feerate', 'errors'] };

/** Refusals the service maps to its own errors: the same call must fail with the same code. */
const REFUSALS: Array<{ label: string; method: string; params: unknown[] }> = [
  { label: 'getblockhash above the tip', method: 'getblockhash', params: [1_000_000] },
  { label: 'getrawtransaction unknown', method: 'getrawtransaction', params: ['11'.repeat(32), 2] },
  { label: 'getmempoolentry unknown', method: 'getmempoolentry', params: ['11'.repeat(32)] },
  { label: 'getmempoolancestors unknown', method: 'getmempoolancestors', params: ['11'.repeat(32), true] },
  { label: 'getblockheader unknown', method: 'getblockheader', params: ['11'.repeat(32)] },
  { label: 'decoderawtransaction garbage', method: 'decoderawtransaction', params: ['00'] },
];

async function sideOf(name: string, rpc: RpcTransport, parentTxid: string, childTxid: string, address: string): Promise<NodeSide> {
  const tipHash = (await rpc.raw('getbestblockhash', [])) as string;
  const tip = (await rpc.raw('getblock', [tipHash, 1])) as { tx: string[] };
  return {
    name,
    rpc,
    tipHash,
    confirmedTxid: tip.tx[1] ?? tip.tx[0] ?? '',
    parentTxid,
    childTxid,
    childHex: (await rpc.raw('getrawtransaction', [childTxid, 0])) as string,
    address,
  };
}

describe.runIf(available.run)('the simulated node against real Bitcoin Core', () => {
  let core: Regtest;
  let sim: SimnetHandle;
  let coreSide: NodeSide;
  let simSide: NodeSide;

  beforeAll(async () => {
    if (!available.run) return;
    // The simulated node reports `bip125-replaceable` (so the service's pre-v31 code path is testable); Core does with this flag.
    core = await startRegtest(available.path, { args: ['-deprecatedrpc=bip125'] });
    await fundCoins(core, 700);
    await fillMempool(core, { seed: 5, profile: 'mixed', targetVsize: 15_000 });
    await core.mine(1);
    const fill = await fillMempool(core, { seed: 6, profile: 'cpfp-heavy', targetVsize: 15_000 });
    const corePair = fill.cpfp[0] ?? { parent: '', child: '' };
    coreSide = await sideOf('core', new RpcTransport({ url: core.rpcUrl, timeoutMs: 60_000 }), corePair.parent, corePair.child, core.minerAddress);

    sim = await startSimnet({ seed: 11, blockIntervalSec: 0, txPerSec: 0, initialTxs: 200, fundingUtxos: 500, policyModule: CORE_V31_POLICY_MODULE });
    const simRpc = new RpcTransport({ url: sim.rpcUrl, timeoutMs: 60_000 });
    // A CPFP pair in the simulated mempool: a mempool transaction with a child.
    const entries = (await simRpc.raw('getrawmempool', [true])) as Record<string, { depends: string[] }>;
    const simChild = Object.entries(entries).find(([, e]) => e.depends.length > 0);
    if (!simChild) throw new Error('the simulated mempool has no child transaction');
    const [childTxid, childEntry] = simChild;
    const blockWithTx = (await simRpc.raw('getblock', [await simRpc.raw('getbestblockhash', []), 2])) as {
      tx: Array<{ vout: Array<{ scriptPubKey: { address?: string } }> }>;
    };
    const simAddress = blockWithTx.tx[0]?.vout.find((o) => o.scriptPubKey.address)?.scriptPubKey.address ?? '';
    simSide = await sideOf('simnet', simRpc, childEntry.depends[0] ?? '', childTxid, simAddress);
  }, 240_000);

  afterAll(async () => {
    await sim?.close();
    await core?.close();
  });

  it('behavior: every field the service reads has the same type in both answers', async () => {
    const differences: string[] = [];
    const unread: string[] = [];
    for (const call of CALLS) {
      const read = readPaths(call.schema);
      const answers = await Promise.allSettled([coreSide, simSide].map((side) => side.rpc.raw(call.method, call.params(side), { fastJson: true })));
      const [coreAnswer, simAnswer] = answers.map((a) => (a.status === 'fulfilled' ? a.value : undefined));
      answers.forEach((a, i) => {
        if (a.status === 'rejected') differences.push(`${call.label}: ${i === 0 ? 'core' : 'simnet'} refused: ${String(a.reason)}`);
      });
      // Both parse with the service's schema: the service can read either node.
      for (const [name, answer] of [
        ['core', coreAnswer],
        ['simnet', simAnswer],
      ] as const) {
        const parsed = call.schema.safeParse(answer);
        if (!parsed.success)
          differences.push(
            `${call.label}: ${name}'s answer fails the service schema: ${parsed.error.issues[0]?.path.join('.')} ${parsed.error.issues[0]?.message}`,
          );
      }
      const coreTypes = typesByPath(coreAnswer, '', new Map(), call.record);
      const simTypes = typesByPath(simAnswer, '', new Map(), call.record);
      for (const path of new Set([...coreTypes.keys(), ...simTypes.keys()])) {
        const a = [...(coreTypes.get(path) ?? [])].sort().join('|') || 'absent';
        const b = [...(simTypes.get(path) ?? [])].sort().join('|') || 'absent';
        if (a === b) continue;
        // Absent on one side only because that side's array there is empty: nothing to compare.
        if (ALTERNATIVES[call.method]?.includes(path) && (a === 'absent' || b === 'absent')) continue;
        const arrayAt = path.indexOf('[]');
        const emptyArray = (types: Map<string, Set<string>>) => arrayAt >= 0 && ![...types.keys()].some((k) => k.startsWith(path.slice(0, arrayAt + 2)));
        if (emptyArray(coreTypes) || emptyArray(simTypes)) continue;
        const line = `${call.label} ${path}: core ${a}, simnet ${b}`;
        if (read.has(path)) differences.push(line);
        else unread.push(line);
      }
    }
    if (unread.length) console.log(`fields the service does not read that differ (${unread.length}):\n  ${unread.join('\n  ')}`);
    console.log(`compared ${CALLS.length} calls on both nodes; differences in fields the service reads: ${differences.length}`);
    expect(differences).toEqual([]);
  });

  it('error: refusals carry the same Core error code on both nodes', async () => {
    const codes = async (rpc: RpcTransport, method: string, params: unknown[]) => {
      try {
        await rpc.raw(method, params);
        return 'answered';
      } catch (error) {
        return error instanceof NodeRpcError ? error.rpcCode : String(error);
      }
    };
    for (const refusal of REFUSALS) {
      const [a, b] = await Promise.all([codes(coreSide.rpc, refusal.method, refusal.params), codes(simSide.rpc, refusal.method, refusal.params)]);
      expect({ refusal: refusal.label, simnet: b }).toEqual({ refusal: refusal.label, simnet: a });
    }
  });
});
