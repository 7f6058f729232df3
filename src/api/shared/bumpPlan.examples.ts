/**
 * A real plan from the simulated node (seed 7, 300 transactions, targetSatVb 5): the example of
 * the bump-plan route and method, and the worked example of docs/bump.md.
 */
import type { z } from 'zod';
import type { BumpPlanAnswer } from './bumpPlan.js';

/** The P2WPKH output's child: the best CPFP option, listed first among the options. */
const BEST_CHILD = {
  vout: 0,
  valueSat: 389293,
  scriptType: 'witness_v0_keyhash',
  address: 'bcrt1qmkl70nxf2u7cfg2zqvq9wvpyst3y3kr4y7l472',
  childVersion: 2 as const,
  usable: true,
  reason: null,
  childVsize: 110,
  childWeightWu: 438,
  assumption: 'one input (P2WPKH key spend, 72-byte signature), one output of the same type',
  childFeeSat: 1118,
  childOutputSat: 388175,
  minimumFeeSat: {
    v31: 1116,
    v30: 1118,
    minRelay: 11,
    siblingEviction: 0,
    siblingDiagram: 0,
  },
};

export const EXAMPLE_BUMP_PLAN: z.input<typeof BumpPlanAnswer> = {
  success: true,
  txid: '141511143178d62ae70065911763b6d28957b77e285cefbdb2316801a4e290ac',
  target: {
    feeRateSatVb: 5,
    source: 'caller',
    targetBlocks: 6,
    derivation: 'targetSatVb 5 from the request',
    floorFeeRateSatVb: 0.1,
  },
  state: {
    status: 'mempool',
    replacedBy: null,
    confirmations: null,
    feeSat: 142,
    vsize: 142,
    vsizeBip141: 142,
    weightWu: 568,
    ownFeeRateSatVb: 1,
    effectiveFeeRateSatVb: 1,
    effectiveFeeRateSource: 'node_chunk',
    version: 1,
    cluster: {
      txCount: 1,
      vsize: 142,
    },
    ancestors: [],
    descendants: [],
    projectedBlock: 1,
  },
  signsOrCustodiesFunds: false,
  landing: {
    rbf: {
      block: 1,
      earliestBlock: 1,
      beyondProjection: false,
    },
    cpfp: {
      block: 1,
      earliestBlock: 1,
      beyondProjection: false,
    },
  },
  recommended: 'rbf_signed_replacement',
  reason: null,
  additionalFeeSats: 568,
  rbf: {
    method: 'rbf_signed_replacement',
    possible: true,
    reason: null,
    vsize: 142,
    feeSat: 710,
    feeRateSatVb: 5,
    additionalFeeSats: 568,
    nodeMinimumFeeSat: 157,
    minimumFeeSat: {
      v31: 157,
      v30: 157,
      v29AndOlder: 284,
      target: 710,
    },
    satisfies: {
      v31: true,
      v30: true,
      v29AndOlder: true,
      target: true,
    },
    requiredFeeSat: {
      thisNode: {
        baseSat: 142,
        perVbSat: 0.1,
        minFeeRateSatVb: 0.1,
        formula: 'max(baseSat + ceil(perVbSat × vsize), ceil(minFeeRateSatVb × vsize))',
      },
      allGenerations: {
        baseSat: 142,
        perVbSat: 1,
        minFeeRateSatVb: 5,
        formula: 'max(baseSat + ceil(perVbSat × vsize), ceil(minFeeRateSatVb × vsize))',
      },
    },
    evicted: [
      {
        txid: '141511143178d62ae70065911763b6d28957b77e285cefbdb2316801a4e290ac',
        feeSat: 142,
        vsize: 142,
      },
    ],
    evictedFeeSat: 142,
    mustSpendOneOf: ['71795cf4ea0131b2d1b44454f3de63956ae7411cabba9521d40bfdceba468d94:29'],
    diagram: {
      checked: true,
      note: 'v31 rule 6 checked with our linearizer on the 1-transaction cluster at vsize 142; another size changes the diagram: re-plan if the size changes much',
    },
  },
  cpfp: {
    method: 'cpfp_child',
    possible: true,
    reason: null,
    best: BEST_CHILD,
    options: [
      BEST_CHILD,
      {
        vout: 1,
        valueSat: 112565,
        scriptType: 'witness_v1_taproot',
        address: 'bcrt1p47tka6jlj0a2wxy6f56evqgac8zk2nxaqj7zlexddcv6c90jnyqsukh060',
        childVersion: 2,
        usable: true,
        reason: null,
        childVsize: 111,
        childWeightWu: 444,
        assumption: 'one input (P2TR key-path spend, 64-byte Schnorr signature), one output of the same type',
        childFeeSat: 1123,
        childOutputSat: 111442,
        minimumFeeSat: {
          v31: 1123,
          v30: 1123,
          minRelay: 12,
          siblingEviction: 0,
          siblingDiagram: 0,
        },
      },
    ],
    package: {
      txids: ['141511143178d62ae70065911763b6d28957b77e285cefbdb2316801a4e290ac'],
      feeSat: 142,
      vsize: 142,
      weightWu: 568,
    },
    childFeeFormula: {
      packageVsize: 142,
      packageFeeSat: 142,
      feeRateSatVb: 5,
      formula: 'max(ceil(feeRateSatVb × (packageVsize + childVsize)) − packageFeeSat, min relay fee of the child)',
    },
    truc: false,
  },
  effect: {
    method: 'rbf_signed_replacement',
    feeRateSatVb: 5,
    projectedBlockAfter: 1,
    earliestBlock: 1,
    beyondProjection: false,
    how: "the new chunk rate against the cutoffs of the cached projected blocks: certain above cutoff × 1.1 (the optimizer's tail-search window), possibly from earliestBlock",
  },
  cachedAt: '2026-11-25T19:32:53.131Z',
  note: 'A plan, not a promise: fees are exact for the node as of now (rules 3-6, cluster limits); the service never signs, holds or spends funds. Sign the replacement or child yourself and relay it with POST /v1/bitcoin/insight (action broadcast_signed_replacement) or any node.',
};
