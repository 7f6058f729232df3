/**
 * "The node does not know it" versus "the node did not answer". Only the first may become `null`
 * in an answer; an outage (503) or a refusal (502) propagates, so a node that is down is a 503
 * with `Retry-After`, never `null` in a 200.
 */

/** Catalogue codes that mean the node answered "no such thing". */
const ABSENT_CODES: ReadonlySet<string> = new Set(['TX_NOT_FOUND', 'TX_NOT_IN_MEMPOOL', 'BLOCK_NOT_FOUND']);

/** True when `error` is a catalogue "not found" from the node. */
export function isAbsent(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && ABSENT_CODES.has(code);
}

/**
 * The value, or null when the node says the thing does not exist; any other failure rejects.
 * @example const entry = await nullIfAbsent(node.getMempoolEntry(txid)); // null: not in the mempool
 */
export async function nullIfAbsent<T>(promise: Promise<T>): Promise<T | null> {
  try {
    return await promise;
  } catch (error) {
    if (isAbsent(error)) return null;
    throw error;
  }
}
