/**
 * `/glossary.md`: the terms the answers use, each defined once, in the units the service reports.
 * The definitions are ours (they describe what the service computes); which routes use a term is
 * read from the registry, so the cross-references cannot go stale.
 */
import { routeKey, type Registry } from '../define.js';

interface Term {
  term: string;
  definition: string;
  /** Words that, found in a route's summary or description, mean the route uses the term. */
  seeAlso?: readonly string[];
}

export const GLOSSARY: readonly Term[] = [
  { term: 'sat', definition: 'Satoshi, 10⁻⁸ BTC: the unit of every amount and fee in our answers.' },
  {
    term: 'weight (WU)',
    definition: 'Size under BIP141: 4 × non-witness bytes + witness bytes. A block holds at most 4,000,000 WU, the coinbase included.',
    seeAlso: ['weight'],
  },
  {
    term: 'vsize (vB)',
    definition: 'Virtual size: weight ÷ 4, rounded up. Bitcoin Core may report a sigop-adjusted vsize, max(weight, 20 × sigop cost) ÷ 4.',
    seeAlso: ['vsize'],
  },
  {
    term: 'sat/vB',
    definition: 'Fee rate: fee in sat ÷ vsize in vB. 1 sat/vB = 0.00001 BTC/kvB, the unit Bitcoin Core uses.',
    seeAlso: ['sat/vB', 'fee rate'],
  },
  {
    term: 'sigop cost',
    definition:
      'Signature operations weighted as consensus counts them (legacy sigops × 4). A block may hold at most 80,000; transactions with many legacy sigops (bare multisig) can fill this limit before the weight limit.',
  },
  { term: 'mempool', definition: 'The node’s set of valid unconfirmed transactions waiting to be mined.', seeAlso: ['mempool'] },
  {
    term: 'cluster',
    definition:
      'A set of unconfirmed transactions connected by spending relations (parent/child, in either direction). Bitcoin Core 31 limits a cluster to 64 transactions and 101,000 vB and orders the mempool cluster by cluster.',
    seeAlso: ['cluster'],
  },
  {
    term: 'linearization',
    definition:
      'An order of a cluster’s transactions in which every parent comes before its children; a good linearization puts the highest-fee-rate groups first.',
  },
  {
    term: 'chunk',
    definition: 'A group of consecutive transactions of a linearization mined together: miners take whole chunks in decreasing chunk fee rate.',
    seeAlso: ['chunk'],
  },
  {
    term: 'effective fee rate',
    definition:
      'The rate at which a transaction is actually mined: its chunk’s fee rate (which includes the ancestors it must pull in and the descendants that pay for it), not its own fee ÷ vsize.',
    seeAlso: ['effective'],
  },
  {
    term: 'CPFP',
    definition:
      'Child pays for parent: spending an output of a stuck transaction with a child that pays enough fee for the pair (the package) to be mined together.',
    seeAlso: ['CPFP', 'bump'],
  },
  {
    term: 'RBF',
    definition:
      'Replace by fee: a new version of a transaction spending at least one of the same inputs with a higher fee replaces the old one (and its descendants) in the mempool, under the node’s replacement rules.',
    seeAlso: ['RBF', 'replacement'],
  },
  {
    term: 'TRUC (v3)',
    definition:
      'Topologically restricted until confirmation (BIP431): version-3 transactions with at most one unconfirmed parent or child, the child at most 1,000 vB; always replaceable.',
  },
  {
    term: 'block template',
    definition: 'The set and order of transactions a miner puts in the next block, under the consensus limits (weight, sigop cost).',
    seeAlso: ['template'],
  },
  {
    term: 'optimized template',
    definition:
      'Our native optimizer’s template: the whole mempool split into clusters, each linearized, then the most fee under the consensus limits. Each cycle is signed with Ed25519 (a receipt).',
    seeAlso: ['optimized'],
  },
  {
    term: 'wtxid',
    definition:
      'A transaction’s witness id (BIP141): the hash of its whole serialization, witnesses included; equal to the txid when it has no witness. Stratum v2 job declaration names a template’s transactions by wtxid; optimized-txids gives them in template order.',
  },
  {
    term: 'witness commitment',
    definition:
      'The coinbase output (OP_RETURN aa21a9ed …) committing to the merkle root of a block’s wtxids (BIP141), Core’s default_witness_commitment; optimized-txids gives the optimized template’s.',
  },
  {
    term: 'block audit',
    definition:
      'Each new block next to our last optimized template and its baseline for the same parent: the fees it left on the table beside them, the transactions in one and not the other, a match rate (GET /v1/template/block-audits).',
  },
  {
    term: 'baseline',
    definition:
      'The template Bitcoin Core itself would build (its getblocktemplate, or our exact re-implementation of Core’s v31 algorithm when the node cannot give one), shown next to ours for comparison.',
    seeAlso: ['baseline'],
  },
  {
    term: 'upper bound',
    definition:
      'A fee no valid template of this mempool can exceed, computed from the chunks: the gap between it and the optimized fee certifies how close to optimal the template is.',
    seeAlso: ['bound'],
  },
  {
    term: 'projected block',
    definition:
      'The n-th block the current mempool would fill if no new transaction arrived, in mining order. Numbered from 1: projected block 1 is the next block, on every surface (REST, JSON-RPC, stream frames, dashboard).',
    seeAlso: ['projected'],
  },
  { term: 'congestion', definition: 'Pending vsize ÷ 1,000,000 vB, i.e. how many blocks the backlog fills.', seeAlso: ['congestion'] },
  {
    term: 'x402',
    definition:
      'The HTTP 402 payment protocol (version 2): a paid route answers 402 with a challenge; the client signs a stablecoin authorization and repeats the request with it.',
    seeAlso: ['x402', 'pay'],
  },
  {
    term: 'EIP-3009',
    definition: 'transferWithAuthorization: a signed USDC transfer that a facilitator submits on the payer’s behalf; the payer signs, never hands over a key.',
  },
  { term: 'facilitator', definition: 'The x402 service that verifies and settles a payment on chain. Payments are settled only after a successful answer.' },
  {
    term: 'receipt',
    definition:
      'The Ed25519 signature over an optimizer cycle’s template (height, previous block hash, txids digest, fees), verifiable with the published key.',
    seeAlso: ['receipt'],
  },
];

export function glossaryMd(registry: Registry): string {
  const lines = ['# Glossary', '', 'Terms used by the answers of this service, in the units it reports.', ''];
  for (const term of GLOSSARY) {
    lines.push(`## ${term.term}`, '', term.definition, '');
    const words = term.seeAlso ?? [];
    const uses = registry.routes.filter((r) => words.some((w) => `${r.summary} ${r.description ?? ''}`.toLowerCase().includes(w.toLowerCase())));
    if (uses.length > 0) lines.push(`Used by: ${uses.map((r) => `\`${routeKey(r)}\``).join(', ')}.`, '');
  }
  return lines.join('\n');
}
