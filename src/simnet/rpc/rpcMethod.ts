/**
 * Shape of one RPC method of the simulated node: its parameters (checked before `run`), a one-line
 * description (used in Core-style usage errors) and a synchronous handler over the simulator.
 */
import type { ParamSpec } from './params.js';
import type { Simulator } from '../node/simulator.js';

export interface RpcMethod {
  params: ParamSpec[];
  description: string;
  /** Returns plain JSON data, `Btc` amounts and `RawJson` fragments; throws `RpcError`. */
  run(args: unknown[], sim: Simulator): unknown;
}

export type MethodTable = Record<string, RpcMethod>;
