/**
 * The size of a CPFP child by the script type of the output it spends, and the dust threshold of
 * its output. Assumption (stated in every plan): the child has one input (the output it spends)
 * and one output of the same script type back to the owner, signatures at their largest standard
 * size (72-byte DER ECDSA with the sighash byte, 64-byte Schnorr with SIGHASH_DEFAULT). An upper
 * bound on the weight is what makes the child fee sufficient: a smaller child pays a higher rate.
 *
 * Weights (WU): header 10 bytes × 4 (version, locktime, one-byte counts) + 2 for the segwit
 * marker/flag; an input's outpoint + sequence 40 bytes plus its scriptSig; outputs 8 + script.
 */
import { WITNESS_SCALE_FACTOR } from '../bitcoin/consensus.js';

/** Core's `scriptPubKey.type` names the planner can size a one-input child for. */
export type SpendableType = 'witness_v0_keyhash' | 'witness_v1_taproot' | 'pubkeyhash' | 'scripthash' | 'anchor';

interface TypeShape {
  /** Non-witness bytes of the input (outpoint, scriptSig with its length, sequence). */
  inputBytes: number;
  /** Witness bytes of the input (item count and items); 0 for a legacy input. */
  witnessBytes: number;
  /** Bytes of an output of this type (value, script length, script). */
  outputBytes: number;
  /** What is assumed about how it is spent. */
  assumption: string;
}

const SHAPES: Readonly<Record<Exclude<SpendableType, 'anchor'>, TypeShape>> = {
  witness_v0_keyhash: { inputBytes: 41, witnessBytes: 1 + 1 + 72 + 1 + 33, outputBytes: 31, assumption: 'P2WPKH key spend, 72-byte signature' },
  witness_v1_taproot: { inputBytes: 41, witnessBytes: 1 + 1 + 64, outputBytes: 43, assumption: 'P2TR key-path spend, 64-byte Schnorr signature' },
  pubkeyhash: { inputBytes: 41 + 1 + 72 + 1 + 33, witnessBytes: 0, outputBytes: 34, assumption: 'P2PKH, 72-byte signature, compressed key' },
  scripthash: { inputBytes: 41 + 23, witnessBytes: 1 + 1 + 72 + 1 + 33, outputBytes: 32, assumption: 'P2SH-wrapped P2WPKH (other redeem scripts are larger)' },
};

const HEADER_BYTES = 10;
const SEGWIT_MARKER_WU = 2;

/** Dust threshold at Core's 3 sat/vB dust relay fee (`GetDustThreshold`) of an output of this type. */
const DUST_SAT: Readonly<Record<string, number>> = {
  witness_v0_keyhash: 294,
  witness_v1_taproot: 330,
  witness_v0_scripthash: 330,
  pubkeyhash: 546,
  scripthash: 540,
};

export interface ChildShape {
  /** Upper bound on the child's BIP141 weight, WU. */
  weightWu: number;
  /** ceil(weight / 4). */
  vsize: number;
  /** Smallest value its one output may keep (3 sat/vB dust rule). */
  dustSat: number;
  /** True when the child needs a second input from the owner (an anchor's value cannot pay). */
  extraInput: boolean;
  assumption: string;
}

function isSpendable(type: string): type is SpendableType {
  return type in SHAPES || type === 'anchor';
}

/** The one-input one-output child of an output of `type`, or undefined when the type cannot be sized (P2WSH, bare scripts, OP_RETURN). */
export function childShape(type: string): ChildShape | undefined {
  if (!isSpendable(type)) return undefined;
  if (type === 'anchor') {
    // P2A carries a few hundred sats at most: the child adds a P2WPKH input and pays to P2WPKH.
    const p2wpkh = SHAPES.witness_v0_keyhash;
    const nonWitness = HEADER_BYTES + 41 + p2wpkh.inputBytes + p2wpkh.outputBytes;
    const weightWu = nonWitness * WITNESS_SCALE_FACTOR + SEGWIT_MARKER_WU + 1 + p2wpkh.witnessBytes;
    return {
      weightWu,
      vsize: Math.ceil(weightWu / WITNESS_SCALE_FACTOR),
      dustSat: 294,
      extraInput: true,
      assumption: 'P2A anchor spend plus one P2WPKH funding input (72-byte signature), one P2WPKH output',
    };
  }
  const s = SHAPES[type];
  const nonWitness = HEADER_BYTES + s.inputBytes + s.outputBytes;
  const weightWu = nonWitness * WITNESS_SCALE_FACTOR + (s.witnessBytes > 0 ? SEGWIT_MARKER_WU + s.witnessBytes : 0);
  return {
    weightWu,
    vsize: Math.ceil(weightWu / WITNESS_SCALE_FACTOR),
    dustSat: DUST_SAT[type] ?? 546,
    extraInput: false,
    assumption: `one input (${s.assumption}), one output of the same type`,
  };
}
