/**
 * The node's mempool and chain changes as a stream of events, in the node's order: what Bitcoin
 * Core publishes on its ZMQ `sequence` topic (`zmqSequence.ts`), and what the embedded simulated
 * node publishes through the same shape. The mirror follows a source like this instead of polling.
 */

/**
 * One change. `mempoolSequence` numbers the change in the node's mempool; `getrawmempool false true`
 * reports the next number, so events numbered below it are already in that snapshot.
 */
export type MempoolEvent =
  | { kind: 'added'; txid: string; mempoolSequence: number }
  /** Left the mempool for any reason but block inclusion (replaced, conflict, expiry, size limit). */
  | { kind: 'removed'; txid: string; mempoolSequence: number }
  /** A block joined the active chain; its transactions left the mempool (no `removed` for them). */
  | { kind: 'connected'; hash: string }
  | { kind: 'disconnected'; hash: string };

export interface MempoolEventHandlers {
  event(event: MempoolEvent): void;
  /** Events were lost (dropped messages, a node restart): the follower must resynchronize. */
  gap(reason: string): void;
}

export interface MempoolEventSource {
  /** What the health report names: `zmq` (Core) or `simnet`. */
  readonly name: 'zmq' | 'simnet';
  /** Starts delivering events to `handlers`. Resolves once subscribed. */
  start(handlers: MempoolEventHandlers): Promise<void>;
  /** The serialized tx (hex) if the source saw it lately: rebuilds a version gone before it was fetched. */
  rawTransaction?(txid: string): string | undefined;
  /** Stops delivering; resolves once the subscription is closed. */
  stop(): Promise<void>;
}
