import { z } from 'zod';
import { Errors } from '../../errors.js';
import { btcPerKvbToSatVb } from '../../fees/feeEstimate.js';
import { defineRpcMethod, hexQuantity } from './rpcMethod.js';

/**
 * `eth_gasPrice` → the fee rate for the next block in **sat/kvB** (= millisatoshi per vB) as a hex
 * quantity, so integer "gas price" units keep sub-sat/vB precision. From the mempool projection,
 * else `estimatesmartfee 1`.
 * @example "0x2710" = 10,000 sat/kvB = 10 sat/vB
 */
export const ethGasPrice = defineRpcMethod({
  name: 'eth_gasPrice',
  params: z.tuple([]),
  run: async (ctx) => {
    const projected = ctx.projection(1);
    let satVb = projected?.feeRateSatVb;
    if (satVb === undefined) {
      const smart = await ctx.deps.node.estimateSmartFee(1, 'conservative');
      if (smart.feerate === undefined) throw new Errors.MEMPOOL_NOT_READY('no fee data yet');
      satVb = btcPerKvbToSatVb(smart.feerate);
    }
    return hexQuantity(Math.ceil(satVb * 1000));
  },
});
