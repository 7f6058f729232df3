/**
 * What the service knows about the chain it serves: the network name (learned once from
 * `getblockchaininfo`; it never changes) and a briefly cached blockchain info for health and reads.
 */
import { Errors } from '../errors.js';
import { isNetworkName, type NetworkName } from '../bitcoin/network.js';
import type { BitcoinNode } from './bitcoinNode.js';
import type { BlockchainInfo } from './schemas.js';

export class ChainState {
  private networkName: NetworkName | undefined;
  private cached: { at: number; info: Promise<BlockchainInfo> } | undefined;

  constructor(
    private readonly node: BitcoinNode,
    private readonly now: () => number = Date.now,
  ) {}

  /** The node's network (`main`, `test`, `testnet4`, `signet`, `regtest`). */
  async network(): Promise<NetworkName> {
    if (this.networkName) return this.networkName;
    const info = await this.info();
    if (!isNetworkName(info.chain)) throw new Errors.NODE_BAD_RESPONSE('getblockchaininfo', `unknown chain "${info.chain}"`);
    this.networkName = info.chain;
    return info.chain;
  }

  /**
   * `getblockchaininfo`, shared by callers within `maxAgeMs`.
   * @param timeoutMs of a fresh call (default: the node timeout); `/health` uses a shorter one
   */
  info(maxAgeMs = 1000, timeoutMs?: number): Promise<BlockchainInfo> {
    const now = this.now();
    if (!this.cached || now - this.cached.at > maxAgeMs) {
      const info = this.node.getBlockchainInfo(timeoutMs === undefined ? {} : { timeoutMs });
      this.cached = { at: now, info };
      info.catch(() => {
        if (this.cached?.info === info) this.cached = undefined;
      });
    }
    return this.cached.info;
  }
}
