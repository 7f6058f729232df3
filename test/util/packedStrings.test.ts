import { describe, expect, it } from 'vitest';
import { packStrings } from '../../src/util/packedStrings.js';

describe('packStrings', () => {
  it('default: the bytes of the strings joined by the separator, as Buffer.from(join) gives them', () => {
    const cases: Array<[string[], string]> = [
      [[], ''],
      [['ab'], '\n'],
      [['ab', 'cd', 'ef'], ''],
      [['ab', 'cd', 'ef'], '\n'],
      [['é', '€', '𝄞', 'plain'], ', '], // 2-, 3- and 4-byte UTF-8
    ];
    for (const [strings, sep] of cases) expect(Buffer.from(packStrings(strings, sep))).toEqual(Buffer.from(strings.join(sep)));
  });

  it('behavior: a longer list grows the kept buffer, a shorter one after it is not padded with the old bytes', () => {
    const long = Array.from({ length: 5_000 }, (_, i) => `${i}`.padStart(64, 'f'));
    expect(packStrings(long, '\n').toString()).toBe(long.join('\n'));
    expect(packStrings(['x', 'y'], '\n').toString()).toBe('x\ny');
    expect(packStrings(long).length).toBe(64 * long.length);
  });
});
