import { describe, expect, it } from 'vitest';
import { parseAddress } from '../../src/bitcoin/address.js';

describe('parseAddress', () => {
  it.each([
    ['1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2', 'p2pkh', '76a914'],
    ['3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', 'p2sh', 'a914'],
    ['bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', 'p2wpkh', '0014'],
    ['bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3', 'p2wsh', '0020'],
    ['bc1p5d7rjq7g6rdk2yhzks9smlaqtedr4dekq08ge8ztwac72sfr9rusxg3297', 'p2tr', '5120'],
  ])('default: mainnet %s is %s', (address, type, prefix) => {
    const parsed = parseAddress(address, 'main');
    expect(parsed.type).toBe(type);
    expect(parsed.scriptPubKeyHex.startsWith(prefix)).toBe(true);
  });

  it('args: testnet and regtest forms on their networks', () => {
    expect(parseAddress('tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx', 'test').type).toBe('p2wpkh');
    expect(parseAddress('tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx', 'signet').type).toBe('p2wpkh');
    expect(parseAddress('mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn', 'regtest').type).toBe('p2pkh');
    expect(parseAddress('bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080', 'regtest').type).toBe('p2wpkh');
  });

  it('error: WRONG_NETWORK_ADDRESS names both networks', () => {
    expect(() => parseAddress('bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', 'regtest')).toThrowError(/belongs to mainnet, but the node is on regtest/);
    expect(() => parseAddress('tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx', 'main')).toThrowError(/testnet\/signet/);
    try {
      parseAddress('bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080', 'main');
    } catch (error) {
      expect(error).toMatchObject({ code: 'WRONG_NETWORK_ADDRESS', statusCode: 400 });
    }
  });

  it.each(['bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdX', '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN3', 'hello', '0x' + 'ab'.repeat(20), 'x'.repeat(300)])(
    'error: INVALID_ADDRESS for %s',
    (address) => {
      expect(() => parseAddress(address, 'main')).toThrowError(expect.objectContaining({ code: 'INVALID_ADDRESS', statusCode: 400 }));
    },
  );
});
