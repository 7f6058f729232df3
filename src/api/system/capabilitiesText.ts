/**
 * The fixed words of capabilities: what the service is, what a bot can ask, what is and is not
 * exposed, and a few example calls. Everything else in the answer is read from running state.
 */
import type { z } from 'zod';
import type { CapabilitiesResponse } from './capabilitiesSchema.js';

type Capabilities = z.input<typeof CapabilitiesResponse>;

export const SERVICE_NAME = 'Bitcoin fee intelligence';
export const TAGLINE = 'Bitcoin data, fee estimates and block-template intelligence over REST and EVM-style JSON-RPC, paid per request with x402.';
export const OPTIMIZER_DATA = 'native C++ cluster linearization (spanning-forest) and block-template optimizer over the whole mempool, every cycle';
export const OPTIMIZER_ROLE = 'builds the highest-fee template under consensus limits and compares it with the node getblocktemplate baseline';

export const WHAT_BOTS_CAN_ASK: Capabilities['whatBotsCanAsk'] = [
  'What is the Bitcoin block height?',
  'What fee rate confirms within N blocks?',
  'What is the balance and what are the UTXOs of this address?',
  'Decode this transaction: fee, fee rate, status.',
  'How congested is the mempool, and what does the fee histogram look like?',
  'Where is my transaction in the mempool, what is its effective (CPFP) fee rate, and how many blocks away is it?',
  'Was this transaction replaced (RBF), and by what?',
  'Is my transaction in the optimized next-block template, and in the node baseline?',
  'Urgent / normal / cheap fee rates right now.',
  'The optimized template txid list with a signed receipt (miners, Stratum v2 job declaration).',
];

export const EXPOSED_SAFELY: Capabilities['exposedSafely'] = [
  'block height, fee estimates, fee histograms and mempool statistics',
  'per-transaction mempool analysis for a txid you name',
  'template membership and projected block for a txid you name',
  'the optimized template txid list (no raw transaction hex), with an Ed25519 receipt',
];

export const NOT_EXPOSED: Capabilities['notExposed'] = [
  'a raw mempool dump',
  'raw transaction hex in template responses',
  'cluster internals beyond the requested transaction',
  'server-side signing, custody or key storage (the service never holds keys or funds)',
];

export const RPC_REQUEST_EXAMPLE: Capabilities['jsonRpc']['requestExample'] = { jsonrpc: '2.0', id: 1, method: 'svc_feeLadder', params: [{ targetBlocks: 6 }] };

export const EXAMPLE_CALLS: Capabilities['examples'] = [
  { title: 'Block height', request: 'GET /v1/block-height', response: { success: true, height: 850000, hex: '0xcf850' } },
  {
    title: 'Template check',
    request: 'POST /v1/template/check {"txid":"<64 hex>","targetBlocks":6}',
    response: 'inOptimizedTemplate, inBaselineTemplate, comparison',
  },
  {
    title: 'Fee ladder over JSON-RPC',
    request: { jsonrpc: '2.0', id: 1, method: 'svc_feeLadder', params: [{ targetBlocks: 3 }] },
    response: 'ladder.urgent/normal/cheap.satVb',
  },
];
