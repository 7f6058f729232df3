/**
 * Signatures are checked by the simulated node as by real Core: for each address type both can
 * sign (P2PKH, P2SH-P2WPKH, P2WPKH, P2TR), a spend whose signature was broken, and the same spend
 * unsigned, are refused by `testmempoolaccept` with the same reject reason and the same form of
 * details on both nodes (Core's wallet signs on regtest, the simulator's wallet on the simnet).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimnet, type SimnetHandle } from '../../src/simnet/index.js';
import { RpcTransport } from '../../src/node/rpcTransport.js';
import { CORE_V31_POLICY_MODULE } from '../helpers/policyModule.js';
import { withBadSignature, withoutSignatures } from '../helpers/tamperTx.js';
import { coreAvailability, startRegtest, type Regtest } from './regtest.js';

const available = coreAvailability();

type SpendType = 'p2pkh' | 'p2sh-p2wpkh' | 'p2wpkh' | 'p2tr';
const TYPES: SpendType[] = ['p2pkh', 'p2sh-p2wpkh', 'p2wpkh', 'p2tr'];
const CORE_ADDRESS_TYPE: Record<SpendType, string> = { p2pkh: 'legacy', 'p2sh-p2wpkh': 'p2sh-segwit', p2wpkh: 'bech32', p2tr: 'bech32m' };

interface Verdict {
  txid: string;
  wtxid: string;
  allowed: boolean;
  'reject-reason'?: string;
  'reject-details'?: string;
}

interface DecodedVin {
  txid: string;
  vout: number;
  scriptSig: { hex: string };
  txinwitness?: string[];
}

/** The type of a signed input, read from its shape. */
function inputType(vin: DecodedVin): SpendType | undefined {
  const witness = vin.txinwitness ?? [];
  if (witness.length === 0) return vin.scriptSig.hex.length > 0 ? 'p2pkh' : undefined;
  if (witness.length === 1 && witness[0]!.length === 128) return 'p2tr';
  if (witness.length === 2 && witness[1]!.length === 66) return vin.scriptSig.hex.length === 46 ? 'p2sh-p2wpkh' : 'p2wpkh';
  return undefined; // P2WSH: Core's wallet makes no <pubkey> OP_CHECKSIG script
}

/** Reason and details with the transaction's own ids replaced, so both nodes' answers compare. */
function shape(v: Verdict | undefined, spent: DecodedVin): { allowed: boolean | undefined; reason: string | undefined; details: string | undefined } {
  const details = v?.['reject-details']?.replaceAll(v.txid, '<txid>').replaceAll(v.wtxid, '<wtxid>').replaceAll(`${spent.txid}:${spent.vout}`, '<outpoint>');
  return { allowed: v?.allowed, reason: v?.['reject-reason'], details };
}

describe.runIf(available.run)('signature checks: simulated node and real Core agree', () => {
  let core: Regtest;
  let sim: SimnetHandle;
  let simRpc: RpcTransport;
  const coreSpends = new Map<SpendType, string>();
  const simSpends = new Map<SpendType, string>();

  beforeAll(async () => {
    if (!available.run) return;
    [core, sim] = await Promise.all([
      startRegtest(available.path, { blocks: 101 }),
      startSimnet({ seed: 5, blockIntervalSec: 0, txPerSec: 0, initialTxs: 300, fundingUtxos: 500, policyModule: CORE_V31_POLICY_MODULE }),
    ]);
    simRpc = new RpcTransport({ url: sim.rpcUrl, timeoutMs: 60_000 });
    // Core: one coin of each type, then a spend of it signed by the wallet.
    const coins = new Map<SpendType, string>();
    for (const type of TYPES) coins.set(type, await core.rpc<string>('sendtoaddress', await core.rpc<string>('getnewaddress', '', CORE_ADDRESS_TYPE[type]), 1));
    await core.mine(1);
    const payee = await core.rpc<string>('getnewaddress', '', 'bech32');
    for (const type of TYPES) {
      const funding = await core.rpc<{ vout: Array<{ n: number; value: number }> }>('getrawtransaction', coins.get(type), 1);
      const out = funding.vout.find((o) => o.value === 1)!;
      const raw = await core.rpc<string>('createrawtransaction', [{ txid: coins.get(type), vout: out.n }], [{ [payee]: 0.9999 }]);
      coreSpends.set(type, (await core.rpc<{ hex: string }>('signrawtransactionwithwallet', raw)).hex);
    }
    // Simnet: children of mempool transactions, signed by the simulator, until every type is seen.
    const pool = (await simRpc.raw('getrawmempool', [false])) as string[];
    for (const txid of pool) {
      if (simSpends.size === TYPES.length) break;
      const created = await sim.control.createSpend({ fromTxid: txid, feeRateSatVb: 20, kind: 'child', vout: 0 }).catch(() => undefined);
      if (!created) continue;
      const vin = ((await simRpc.raw('decoderawtransaction', [created.hex])) as { vin: DecodedVin[] }).vin[0]!;
      const type = inputType(vin);
      if (!type || simSpends.has(type)) continue;
      const [test] = (await simRpc.raw('testmempoolaccept', [[created.hex]])) as Verdict[];
      if (test?.allowed) simSpends.set(type, created.hex);
    }
  }, 300_000);

  afterAll(async () => {
    await sim?.close();
    await core?.close();
  });

  const verdict = async (rpc: (m: string, p: unknown[]) => Promise<unknown>, hex: string) => {
    const [v] = (await rpc('testmempoolaccept', [[hex]])) as Verdict[];
    const { vin } = (await rpc('decoderawtransaction', [hex])) as { vin: DecodedVin[] };
    return shape(v, vin[0]!);
  };

  it('default: both nodes accept their own wallet’s signed spends of every type', async () => {
    expect([...simSpends.keys()].sort()).toEqual([...TYPES].sort());
    for (const type of TYPES) {
      expect((await verdict((m, p) => core.rpc(m, ...p), coreSpends.get(type)!)).allowed, `core ${type}`).toBe(true);
      expect((await verdict((m, p) => simRpc.raw(m, p), simSpends.get(type)!)).allowed, `simnet ${type}`).toBe(true);
    }
  });

  it('error: a broken signature and a missing one are refused with the same reason and details on both nodes', async () => {
    for (const type of TYPES) {
      for (const [label, tamper] of [
        ['bad signature', withBadSignature],
        ['unsigned', withoutSignatures],
      ] as const) {
        const onCore = await verdict((m, p) => core.rpc(m, ...p), tamper(coreSpends.get(type)!));
        const onSim = await verdict((m, p) => simRpc.raw(m, p), tamper(simSpends.get(type)!));
        expect(onCore.allowed, `core ${type} ${label}`).toBe(false);
        expect(onSim, `${type} ${label}`).toEqual(onCore);
      }
    }
  });
});
