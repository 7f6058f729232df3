/** The shape of one JSON-RPC method: a zod schema of its `params` array and the function that answers. */
import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import type { RouteContext } from '../context.js';

export interface RpcContext extends RouteContext {
  app: FastifyInstance;
  /** `eth_chainId` value for this node's network. */
  chainId(): Promise<number>;
}

export interface RpcMethod<P extends z.ZodType = z.ZodType> {
  name: string;
  /** Schema of the `params` array (a missing `params` is `[]`). */
  params: P;
  /**
   * Optional checks that need the node (e.g. an address's network), run while the request is
   * planned, before payment is asked: a call that cannot succeed is refused for free.
   */
  precheck?(ctx: RpcContext, params: z.output<P>): Promise<void>;
  run(ctx: RpcContext, params: z.output<P>): Promise<unknown>;
}

/** Declares a method with its params type inferred from the schema. */
export function defineRpcMethod<P extends z.ZodType>(method: RpcMethod<P>): RpcMethod<P> {
  return method;
}

/** `0x`-prefixed hex quantity, as Ethereum encodes numbers (no leading zeros). */
export function hexQuantity(n: number | bigint): `0x${string}` {
  return `0x${n.toString(16)}`;
}

/** `0x`-prefixed 32-byte hash from a Bitcoin hash in display order. */
export function hexHash(hash: string): `0x${string}` {
  return `0x${hash}`;
}
