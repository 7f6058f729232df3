/**
 * What signature checks cost the simulated node's traffic: per wallet address type, the time to
 * sign a one-input spend (what the traffic generator paid before) and to verify it (what mempool
 * acceptance now adds, `checkInputScripts` without its cache), median of 5 runs of 400 spends;
 * then the same for the mix of types the wallet draws. `npm run bench -- simnetSignatures`.
 */
import { ADDRESS_TYPES, deriveAddresses, type SimAddress } from '../src/simnet/wallet/keys.js';
import { Rng } from '../src/simnet/util/random.js';
import { signSpend, type SpendInput } from '../src/simnet/wallet/txSigner.js';
import { displayHex, sha256d } from '../src/simnet/tx/hash.js';
import { checkInputScripts } from '../src/simnet/mempool/scriptCheck.js';
import { SIGNING_BACKEND } from '../src/simnet/tx/signer.js';
import type { SimTx } from '../src/simnet/tx/txCodec.js';
import { median } from './stats.js';

const SPENDS = 400;
const RUNS = 5;

interface Built {
  tx: SimTx;
  prevouts: Array<{ valueSat: number; script: Uint8Array; txid: string; vout: number }>;
}

function buildSpends(owners: SimAddress[], to: Uint8Array): { unsigned: Array<{ inputs: SpendInput[] }>; sign: () => Built[] } {
  const unsigned = owners.map((owner, i) => ({
    inputs: [
      {
        txid: displayHex(sha256d(Uint8Array.of(i & 0xff, i >> 8))),
        vout: i,
        sequence: 0xfffffffd,
        prevout: { valueSat: 100_000, script: owner.script },
        owner,
      },
    ],
  }));
  const sign = () =>
    unsigned.map(({ inputs }) => ({
      tx: signSpend({ version: 2, lockTime: 0, inputs, outputs: [{ valueSat: 99_000, script: to }] }),
      prevouts: inputs.map((i) => ({ ...i.prevout, txid: i.txid, vout: i.vout })),
    }));
  return { unsigned, sign };
}

function measure(owners: SimAddress[], to: Uint8Array): { signUs: number; verifyUs: number } {
  const { sign } = buildSpends(owners, to);
  const signTimes: number[] = [];
  const verifyTimes: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    let t0 = performance.now();
    const built = sign();
    signTimes.push(((performance.now() - t0) * 1000) / owners.length);
    t0 = performance.now();
    for (const b of built) if (checkInputScripts(b.tx, b.prevouts) !== undefined) throw new Error('a spend signed by the simulator was refused');
    verifyTimes.push(((performance.now() - t0) * 1000) / owners.length);
  }
  return { signUs: Math.round(median(signTimes)), verifyUs: Math.round(median(verifyTimes)) };
}

export async function run(): Promise<void> {
  console.log(`\n## simulated node: signing vs verifying one-input spends (${SIGNING_BACKEND}), µs per spend, median of ${RUNS} × ${SPENDS}\n`);
  const addresses = deriveAddresses(3, SPENDS, new Rng(3, 'keys'));
  const to = addresses[0]?.script ?? new Uint8Array(22);
  const rows: string[] = ['| input type | sign µs | verify µs |', '|---|---|---|'];
  for (const type of ADDRESS_TYPES) {
    const ofType = addresses.filter((a) => a.type === type);
    const owners = Array.from({ length: SPENDS }, (_, i) => ofType[i % ofType.length]).filter((a): a is SimAddress => a !== undefined);
    const { signUs, verifyUs } = measure(owners, to);
    rows.push(`| ${type} | ${signUs} | ${verifyUs} |`);
  }
  const mix = measure(addresses, to);
  rows.push(`| wallet mix | ${mix.signUs} | ${mix.verifyUs} |`);
  console.log(rows.join('\n'));
  await Promise.resolve();
}
