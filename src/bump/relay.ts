/**
 * Relay of a caller-signed bump. We relay bumps, never arbitrary transactions: the signed
 * transaction must spend an input of the named one (an RBF replacement) or one of its outputs (a
 * CPFP child), checked on the decoded bytes before anything reaches the node. Then
 * `testmempoolaccept` (the node's verdict, verbatim), then `sendrawtransaction`. The same
 * transaction sent twice is accepted (already in the mempool), not an error.
 */
import { RawTx, Transaction } from '@scure/btc-signer';
import { hex } from '@scure/base';
import type { BitcoinNode } from '../node/bitcoinNode.js';

/** 100 kB serialized: far above any bump (a TRUC tx is ≤ 10 kvB) and what we are willing to decode. */
export const MAX_SIGNED_TX_HEX_CHARS = 200_000;

/** The outpoints (`txid:vout`) a serialized transaction spends, or null when it is not one transaction exactly. */
export function signedTxInputs(rawHex: string): string[] | null {
  if (rawHex.length === 0 || rawHex.length % 2 !== 0 || !/^[0-9a-fA-F]+$/.test(rawHex)) return null;
  try {
    const tx = RawTx.decode(hex.decode(rawHex.toLowerCase()));
    const inputs: ReadonlyArray<{ txid: Uint8Array; index: number }> = tx.inputs;
    if (inputs.length === 0 || tx.outputs.length === 0) return null;
    return inputs.map((input) => `${hex.encode(input.txid)}:${input.index}`);
  } catch {
    return null;
  }
}

/** The txid of a serialized transaction that `signedTxInputs` accepted. */
export function signedTxid(rawHex: string): string {
  return Transaction.fromRaw(hex.decode(rawHex.toLowerCase()), { allowUnknownOutputs: true, allowUnknownInputs: true, disableScriptCheck: true }).id;
}

export type BumpKind = 'replacement' | 'cpfp_child';

/** How the signed tx relates to the named one: spends one of its inputs, one of its outputs, or neither (null). */
export function bumpKind(signedInputs: readonly string[], named: { txid: string; inputs: readonly string[] }): BumpKind | null {
  const original = new Set(named.inputs);
  if (signedInputs.some((o) => original.has(o))) return 'replacement';
  if (signedInputs.some((o) => o.startsWith(`${named.txid}:`))) return 'cpfp_child';
  return null;
}

export interface BroadcastResult {
  accepted: boolean;
  txid: string | null;
  wtxid: string | null;
  kind: BumpKind;
  /** Transactions the replacement evicted (the named tx and its descendants); empty for a child. */
  replaced: string[];
  alreadyInMempool: boolean;
  /** The node's reject reason and details, verbatim; null when accepted. */
  rejectReason: string | null;
  rejectDetails: string | null;
}

const ALREADY = new Set(['txn-already-in-mempool', 'txn-same-nonwitness-data-in-mempool']);

/** testmempoolaccept, then sendrawtransaction. A node refusal is an answer (`accepted: false`), not an error. */
export async function relaySignedBump(node: BitcoinNode, rawHex: string, kind: BumpKind, namedTxid: string): Promise<BroadcastResult> {
  const [verdict] = await node.testMempoolAccept(rawHex);
  const txid = verdict?.txid ?? null;
  const wtxid = verdict?.wtxid ?? null;
  const base = { txid, wtxid, kind };
  const reason = verdict?.['reject-reason'] ?? null;
  if (verdict?.allowed !== true) {
    if (reason !== null && ALREADY.has(reason))
      return { ...base, accepted: true, replaced: [], alreadyInMempool: true, rejectReason: null, rejectDetails: null };
    return {
      ...base,
      accepted: false,
      replaced: [],
      alreadyInMempool: false,
      rejectReason: reason ?? 'rejected',
      rejectDetails: verdict?.['reject-details'] ?? null,
    };
  }
  const evicted = kind === 'replacement' ? [namedTxid, ...Object.keys(await node.getMempoolDescendants(namedTxid).catch(() => ({})))] : [];
  const sent = await node.sendRawTransaction(rawHex);
  return { ...base, txid: sent, accepted: true, replaced: evicted, alreadyInMempool: false, rejectReason: null, rejectDetails: null };
}
