/**
 * Mining and fee RPCs of the simulated node: `getblocktemplate` (Core v31's shape; the selection
 * is the node's mining policy, the same one that mines its blocks), `getmininginfo` and
 * `estimatesmartfee` (see `feeEstimator.ts` for how it estimates).
 */
import { Btc } from '../consensus/amount.js';
import { buildCoinbase, difficulty, targetFromBits, witnessCommitmentHex } from '../chain/block.js';
import { blockSubsidySat, BLOCK_VERSION, MAX_BLOCK_SIGOPS_COST, MAX_BLOCK_WEIGHT_WU } from '../consensus/params.js';
import { RawJson, stringifyCore } from './coreJson.js';
import type { EstimateMode } from '../mining/feeEstimator.js';
import { RPC_ERROR, RpcError } from './errors.js';
import { parseInt32 } from './params.js';
import type { Simulator } from '../node/simulator.js';
import { txHex } from '../tx/txCodec.js';
import type { MethodTable } from './rpcMethod.js';
import { at } from '../../util/at.js';

function blockTemplate(sim: Simulator, request: Record<string, unknown> | undefined): unknown {
  const mode = request?.mode ?? 'template';
  if (mode === 'proposal') throw new RpcError(RPC_ERROR.INVALID_PARAMETER, 'Block proposals are not supported by the simulated node');
  if (mode !== 'template') throw new RpcError(RPC_ERROR.INVALID_PARAMETER, 'Invalid mode');
  const rules = request?.rules;
  if (!Array.isArray(rules) || !rules.includes('segwit')) {
    throw new RpcError(RPC_ERROR.INVALID_PARAMETER, 'getblocktemplate must be called with the segwit rule set (call with {"rules": ["segwit"]})');
  }
  const view = sim.currentView();
  const tip = sim.chain.tip;
  const height = tip.height + 1;
  // The transaction list only depends on the mempool version and the tip: cache it as JSON.
  const body = view.cached(`gbt:${tip.hash}`, () => {
    const entries = Array.from(view.policy.templateIndices, (idx) => at(view.entries, idx));
    const position = new Map(entries.map((e, k) => [e.tx.txid, k + 1]));
    const positionOf = (parent: string): number => {
      const k = position.get(parent);
      if (k === undefined) throw new Error(`the template holds a child of ${parent} without it`); // the policy must return a topological, closed template
      return k;
    };
    let fees = 0;
    const transactions = entries.map((e) => {
      fees += e.feeSat;
      return {
        data: txHex(e.tx),
        txid: e.tx.txid,
        hash: e.tx.wtxid,
        depends: [...e.parents].map(positionOf).sort((a, b) => a - b),
        fee: e.feeSat,
        sigops: e.sigopCost,
        weight: e.tx.weight,
      };
    });
    const commitment = witnessCommitmentHex(
      buildCoinbase(
        height,
        0,
        new Uint8Array([0x51]),
        entries.map((e) => e.tx.wtxid),
      ),
    );
    return { transactions: new RawJson(stringifyCore(transactions)), coinbasevalue: blockSubsidySat(height) + fees, commitment };
  });
  return {
    capabilities: ['proposal'],
    version: BLOCK_VERSION,
    rules: ['csv', '!segwit', 'taproot'],
    vbavailable: {},
    vbrequired: 0,
    previousblockhash: tip.hash,
    transactions: body.transactions,
    coinbaseaux: {},
    coinbasevalue: body.coinbasevalue,
    longpollid: `${tip.hash}${sim.mempool.version}`,
    target: targetFromBits(tip.bits).toString(16).padStart(64, '0'),
    mintime: tip.medianTime + 1,
    mutable: ['time', 'transactions', 'prevblock'],
    noncerange: '00000000ffffffff',
    sigoplimit: MAX_BLOCK_SIGOPS_COST,
    sizelimit: MAX_BLOCK_WEIGHT_WU,
    weightlimit: MAX_BLOCK_WEIGHT_WU,
    curtime: Math.max(sim.clock.now(), tip.medianTime + 1),
    bits: (tip.bits >>> 0).toString(16).padStart(8, '0'),
    height,
    default_witness_commitment: body.commitment,
  };
}

export const miningMethods: MethodTable = {
  getblocktemplate: {
    params: [{ name: 'template_request', type: 'object' }],
    description: 'Returns data needed to construct a block to work on (call with {"rules": ["segwit"]}).',
    run: ([request], sim) => blockTemplate(sim, request as Record<string, unknown> | undefined),
  },
  getmininginfo: {
    params: [],
    description: 'Returns a json object containing mining-related information.',
    run: (_args, sim) => {
      const tip = sim.chain.tip;
      return {
        blocks: tip.height,
        currentblockweight: tip.weight,
        currentblocktx: tip.txs.length - 1,
        bits: (tip.bits >>> 0).toString(16).padStart(8, '0'),
        difficulty: difficulty(tip.bits),
        target: targetFromBits(tip.bits).toString(16).padStart(64, '0'),
        networkhashps: 0,
        pooledtx: sim.mempool.size,
        chain: 'regtest',
        warnings: [],
      };
    },
  },
  estimatesmartfee: {
    params: [
      { name: 'conf_target', type: 'number', required: true },
      { name: 'estimate_mode', type: 'string' },
    ],
    description: 'Estimates the approximate fee per kilobyte needed for a transaction to begin confirmation within conf_target blocks.',
    run: ([target, modeParam], sim) => {
      const t = parseInt32(target);
      if (t < 1 || t > 1008) throw new RpcError(RPC_ERROR.INVALID_PARAMETER, 'Invalid conf_target, must be between 1 and 1008');
      const m = (typeof modeParam === 'string' ? modeParam : 'economical').toLowerCase();
      if (!['unset', 'economical', 'conservative'].includes(m)) {
        throw new RpcError(RPC_ERROR.INVALID_PARAMETER, 'Invalid estimate_mode parameter, must be one of: "unset", "economical", "conservative"');
      }
      const mode: EstimateMode = m === 'conservative' ? 'conservative' : 'economical';
      const estimate = sim.estimator.estimate(t, mode, sim.currentView());
      return estimate.feeRateSatKvb === undefined
        ? { errors: estimate.errors, blocks: estimate.blocks }
        : { feerate: new Btc(estimate.feeRateSatKvb), blocks: estimate.blocks };
    },
  },
};
