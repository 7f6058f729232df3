/**
 * The simulator's keys and addresses, derived deterministically from the seed. Every standard
 * address type appears: P2WPKH (bcrt1q…), P2TR key-path (bcrt1p…), P2SH-P2WPKH (2…), P2PKH (m…/n…)
 * and P2WSH (`<pubkey> OP_CHECKSIG` witness script, bcrt1q… of 62 chars). Everything a signer needs
 * (script code, tweaked Taproot key) is computed once here.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hash160, sha256, taggedHash, toHex } from '../tx/hash.js';
import { at } from '../../util/at.js';
import type { Rng } from '../util/random.js';
import { scriptAddress } from '../tx/script.js';
import { bigIntToBytes, bytesToBigInt, publicKey33, schnorrKey, type SchnorrKey } from '../tx/signer.js';

const N = secp256k1.Point.CURVE().n;

export const ADDRESS_TYPES = ['p2wpkh', 'p2tr', 'p2sh-p2wpkh', 'p2pkh', 'p2wsh'] as const;
export type AddressType = (typeof ADDRESS_TYPES)[number];

/** Roughly today's mainnet output mix (share of new outputs by type). */
const TYPE_WEIGHTS: Record<AddressType, number> = { p2wpkh: 45, p2tr: 22, 'p2sh-p2wpkh': 12, p2pkh: 11, p2wsh: 10 };

interface AddressKeys {
  /** Position in the wallet's address list. */
  id: number;
  address: string;
  /** scriptPubKey. */
  script: Uint8Array;
  scriptHex: string;
  secret: Uint8Array;
  publicKey: Uint8Array;
}

/** Script code signed by legacy/BIP143 sighashes (the P2PKH script of the key, or the witness script). */
interface EcdsaSpend {
  scriptCode: Uint8Array;
}

/** A wallet address with what its type needs to sign a spend. */
export type SimAddress = AddressKeys &
  (
    | ({ type: 'p2wpkh' | 'p2pkh' } & EcdsaSpend)
    /** `redeemScript`: the `0014<keyhash>` pushed by the scriptSig. */
    | ({ type: 'p2sh-p2wpkh'; redeemScript: Uint8Array } & EcdsaSpend)
    /** `witnessScript`: `<pubkey> OP_CHECKSIG`. */
    | ({ type: 'p2wsh'; witnessScript: Uint8Array } & EcdsaSpend)
    /** `taprootKey`: the BIP341-tweaked key in BIP340 form. */
    | { type: 'p2tr'; taprootKey: SchnorrKey }
  );

/**
 * Derives `count` addresses for `seed`; types are drawn with mainnet-like weights, but the first
 * five cover every type so that small wallets still have all of them.
 * Complexity: O(count) key derivations (one point multiplication each, two for P2TR).
 */
export function deriveAddresses(seed: number, count: number, rng: Rng): SimAddress[] {
  const weights = ADDRESS_TYPES.map((t) => TYPE_WEIGHTS[t]);
  const addresses: SimAddress[] = [];
  for (let id = 0; id < count; id++) {
    const type = at(ADDRESS_TYPES, id < ADDRESS_TYPES.length ? id : rng.weighted(weights));
    addresses.push(makeAddress(id, type, deriveSecret(seed, id)));
  }
  return addresses;
}

/** 32-byte secret `sha256("simnet key <seed> <id>[ <retry>]")`, retried in the ~2^-128 case it is not a valid scalar. */
function deriveSecret(seed: number, id: number): Uint8Array {
  for (let retry = 0; ; retry++) {
    const secret = sha256(new TextEncoder().encode(`simnet key ${seed} ${id}${retry ? ` ${retry}` : ''}`));
    if (secp256k1.utils.isValidSecretKey(secret)) return secret;
  }
}

/**
 * Scripts are assembled from their templates (the unit tests compare them with
 * @scure/btc-signer's payments): btc-signer validates every public key by decompressing it in pure
 * JS, which would cost seconds for a thousand addresses.
 */
function makeAddress(id: number, type: AddressType, secret: Uint8Array): SimAddress {
  const publicKey = publicKey33(secret);
  const keyHash = hash160(publicKey);
  const p2pkhScript = Uint8Array.from([0x76, 0xa9, 20, ...keyHash, 0x88, 0xac]);
  const p2wpkhScript = Uint8Array.from([0x00, 20, ...keyHash]);
  const keys = (script: Uint8Array): AddressKeys => {
    const address = scriptAddress(script);
    if (!address) throw new Error(`no address for ${type}`);
    return { id, address, script, scriptHex: toHex(script), secret, publicKey };
  };
  switch (type) {
    case 'p2wpkh':
      return { ...keys(p2wpkhScript), type, scriptCode: p2pkhScript };
    case 'p2sh-p2wpkh':
      return { ...keys(Uint8Array.from([0xa9, 20, ...hash160(p2wpkhScript), 0x87])), type, redeemScript: p2wpkhScript, scriptCode: p2pkhScript };
    case 'p2pkh':
      return { ...keys(p2pkhScript), type, scriptCode: p2pkhScript };
    case 'p2wsh': {
      const witnessScript = Uint8Array.from([33, ...publicKey, 0xac]);
      return { ...keys(Uint8Array.from([0x00, 32, ...sha256(witnessScript)])), type, witnessScript, scriptCode: witnessScript };
    }
    case 'p2tr': {
      // BIP86 key path: Q = P_even + H_TapTweak(P.x)·G, computed on scalars so that the one point
      // multiplication runs in libsecp256k1.
      const d = bytesToBigInt(secret);
      const dEven = publicKey[0] === 0x02 ? d : N - d;
      const tweak = bytesToBigInt(taggedHash('TapTweak', publicKey.subarray(1)));
      const taprootKey = schnorrKey(bigIntToBytes((dEven + tweak) % N));
      return { ...keys(Uint8Array.from([0x51, 32, ...taprootKey.px])), type, taprootKey };
    }
  }
}
