/**
 * Bitcoin address validation for the node's network, through @scure/btc-signer (no hand-written
 * base58/bech32). Every standard type is accepted: P2PKH, P2SH, P2WPKH, P2WSH, P2TR (and future
 * witness versions as `witness_unknown`). An address of another network is refused with a message
 * naming both networks.
 */
import { Address, NETWORK, OutScript, TEST_NETWORK } from '@scure/btc-signer';
import { hex } from '@scure/base';
import { Errors } from '../errors.js';
import type { NetworkName } from './network.js';

type BtcNetwork = typeof NETWORK;

const REGTEST: BtcNetwork = { ...TEST_NETWORK, bech32: 'bcrt' };

/** Address parameters per Core chain name (`getblockchaininfo.chain`). */
const PARAMS: Record<NetworkName, BtcNetwork> = {
  main: NETWORK,
  test: TEST_NETWORK,
  testnet4: TEST_NETWORK,
  signet: TEST_NETWORK,
  regtest: REGTEST,
};

/** Human names of the address families, for error messages. */
const FAMILY: Array<{ label: string; params: BtcNetwork }> = [
  { label: 'mainnet', params: NETWORK },
  { label: 'testnet/signet', params: TEST_NETWORK },
  { label: 'regtest', params: REGTEST },
];

export const ADDRESS_TYPES = ['p2pkh', 'p2sh', 'p2wpkh', 'p2wsh', 'p2tr', 'witness_unknown'] as const;

export type AddressType = (typeof ADDRESS_TYPES)[number];

export interface ParsedAddress {
  address: string;
  type: AddressType;
  /** The output script the address pays to, hex. */
  scriptPubKeyHex: string;
}

const TYPE_NAMES: Record<string, AddressType> = {
  pkh: 'p2pkh',
  sh: 'p2sh',
  wpkh: 'p2wpkh',
  wsh: 'p2wsh',
  tr: 'p2tr',
  unknown: 'witness_unknown',
};

function tryDecode(address: string, params: BtcNetwork): ParsedAddress | undefined {
  try {
    const decoded = Address(params).decode(address);
    const type = TYPE_NAMES[decoded.type];
    if (!type) return undefined;
    return { address, type, scriptPubKeyHex: hex.encode(OutScript.encode(decoded)) };
  } catch {
    return undefined;
  }
}

/**
 * Validates `address` for `network`.
 * @throws INVALID_ADDRESS (400) if it is no Bitcoin address; WRONG_NETWORK_ADDRESS (400) if it is one of another network.
 * @example parseAddress('bcrt1q…', 'regtest') // { type: 'p2wpkh', scriptPubKeyHex: '0014…' }
 */
export function parseAddress(address: string, network: NetworkName): ParsedAddress {
  if (address.length < 14 || address.length > 100) throw new Errors.INVALID_ADDRESS(`${truncate(address)} has an impossible length`);
  if (/^0x[0-9a-fA-F]{40}$/.test(address)) {
    throw new Errors.INVALID_ADDRESS(`${address} is an EVM address; send a Bitcoin address (bc1…, 1…, 3…)`);
  }
  const own = tryDecode(address, PARAMS[network]);
  if (own) return own;
  for (const family of FAMILY) {
    if (family.params === PARAMS[network]) continue;
    if (tryDecode(address, family.params)) throw new Errors.WRONG_NETWORK_ADDRESS(address, family.label, network);
  }
  throw new Errors.INVALID_ADDRESS(`${truncate(address)} (bad checksum, encoding or length)`);
}

function truncate(value: string): string {
  return value.length > 100 ? `${value.slice(0, 100)}…` : value;
}
