/**
 * A validating JSON reader over bytes that reads only what its caller asks for: the caller walks
 * the structure it expects (`expect`, `key`, `number`) and skips the rest (`skipValue`), which is
 * still checked to be valid JSON (RFC 8259: strings without raw control characters and with valid
 * escapes, number grammar, literals, nesting up to 64). Anything else throws `GIVE_UP`, the
 * caller's cue to take the general path (JSON.parse). Numbers come out exactly as JSON.parse reads
 * them. Used by coreMempoolScan.ts.
 */
import { at } from '../../util/at.js';

/** Thrown inside the scan to give up; never escapes `scanCoreMempool`. */
export class GiveUp extends Error {}
export const GIVE_UP = new GiveUp('not plain getrawmempool JSON');

export const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MAX_DEPTH = 64;
/** 10^k, exact as doubles for k <= 22 (Clinger's fast path: m / 10^k is then correctly rounded). */
const POW10 = Array.from({ length: 23 }, (_, k) => 10 ** k);

/** Per byte: 0 = not hex, 1 = digit or lowercase hex, 2 = uppercase hex. */
export const HEX = (() => {
  const t = new Uint8Array(256);
  for (let c = 48; c < 58; c++) t[c] = 1;
  for (let c = 97; c < 103; c++) t[c] = 1;
  for (let c = 65; c < 71; c++) t[c] = 2;
  return t;
})();

export const NULL = Buffer.from('null', 'latin1');
const LITERALS = [Buffer.from('true', 'latin1'), Buffer.from('false', 'latin1'), NULL];

export class Scanner {
  p = 0;
  /** Whether the last string read had an escape. */
  escaped = false;
  constructor(readonly b: Buffer) {}

  ws(): void {
    const b = this.b;
    let p = this.p;
    for (let c = b[p]; c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09; c = b[++p]);
    this.p = p;
  }

  /** Skip whitespace, then require byte c. */
  expect(c: number): void {
    this.ws();
    if (this.b[this.p] !== c) throw GIVE_UP;
    this.p++;
  }

  /** After an opening quote: moves past the closing one and returns its position. */
  stringEnd(): number {
    const b = this.b;
    let p = this.p;
    this.escaped = false;
    for (;;) {
      const c = b[p];
      if (c === undefined || c < 0x20) throw GIVE_UP;
      if (c === QUOTE) break;
      if (c === BACKSLASH) {
        this.escaped = true;
        const e = b[p + 1];
        if (e === 0x75) {
          for (let k = 2; k < 6; k++) if (!HEX[b[p + k] ?? 0]) throw GIVE_UP;
          p += 6;
        } else if (e === QUOTE || e === BACKSLASH || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) p += 2;
        else throw GIVE_UP;
      } else p++;
    }
    this.p = p + 1;
    return p;
  }

  /**
   * An object key (whitespace, the quoted key, the colon): its name when it is one of `names`
   * (indexed by byte length), else 'other'.
   */
  key<K extends string>(names: readonly (readonly { name: K; bytes: Uint8Array }[] | undefined)[]): K | 'other' {
    this.expect(QUOTE);
    const start = this.p;
    const end = this.stringEnd();
    if (this.escaped) throw GIVE_UP; // could spell one of our keys
    this.expect(0x3a);
    const len = end - start;
    const candidates = names[len];
    if (candidates) for (const { name, bytes } of candidates) if (this.bytesAre(bytes, start, len)) return name;
    return 'other';
  }

  /** A JSON number, read exactly as JSON.parse reads it. */
  number(): number {
    const b = this.b;
    const start = this.p;
    let p = start;
    const negative = b[p] === 0x2d;
    if (negative) p++;
    let m = 0;
    let digits = 0;
    let fraction = 0;
    let c = b[p] ?? 0;
    if (c === 0x30) {
      c = b[++p] ?? 0;
      if (c >= 0x30 && c <= 0x39) throw GIVE_UP;
    } else if (c > 0x30 && c <= 0x39) {
      for (; c >= 0x30 && c <= 0x39; c = b[++p] ?? 0, digits++) m = m * 10 + (c - 0x30);
    } else throw GIVE_UP;
    if (c === 0x2e) {
      c = b[++p] ?? 0;
      if (!(c >= 0x30 && c <= 0x39)) throw GIVE_UP;
      for (; c >= 0x30 && c <= 0x39; c = b[++p] ?? 0, digits++, fraction++) m = m * 10 + (c - 0x30);
    }
    let exponent = false;
    if (c === 0x65 || c === 0x45) {
      exponent = true;
      c = b[++p] ?? 0;
      if (c === 0x2b || c === 0x2d) c = b[++p] ?? 0;
      if (!(c >= 0x30 && c <= 0x39)) throw GIVE_UP;
      while (c >= 0x30 && c <= 0x39) c = b[++p] ?? 0;
    }
    this.p = p;
    if (exponent || digits > 15 || fraction > 22) return Number(b.toString('latin1', start, p));
    const v = fraction === 0 ? m : m / at(POW10, fraction);
    return negative ? -v : v;
  }

  /** A number, or NaN for any other value (skipped). */
  numberOrNaN(): number {
    this.ws();
    const c = this.b[this.p] ?? 0;
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return this.number();
    this.skipValue(0);
    return NaN;
  }

  /** Any JSON value, checked and skipped. */
  skipValue(depth: number): void {
    if (depth > MAX_DEPTH) throw GIVE_UP;
    this.ws();
    const b = this.b;
    const c = b[this.p];
    if (c === QUOTE) {
      this.p++;
      this.stringEnd();
    } else if (c === 0x7b || c === 0x5b) {
      const close = c + 2; // '}' or ']'
      this.p++;
      this.ws();
      if (b[this.p] === close) {
        this.p++;
        return;
      }
      for (;;) {
        if (c === 0x7b) {
          this.expect(QUOTE);
          this.stringEnd();
          this.expect(0x3a);
        }
        this.skipValue(depth + 1);
        this.ws();
        const d = b[this.p++];
        if (d === close) return;
        if (d !== 0x2c) throw GIVE_UP;
      }
    } else if (c === 0x2d || (c !== undefined && c >= 0x30 && c <= 0x39)) this.number();
    else this.literal();
  }

  /** Whether the `len` bytes at `start` are `word` (a JS loop: Buffer.compare is a native call, too slow per key). */
  bytesAre(word: Uint8Array, start: number, len: number): boolean {
    if (word.length !== len) return false;
    const b = this.b;
    for (let k = 0; k < len; k++) if (b[start + k] !== word[k]) return false;
    return true;
  }

  /** Whether `word` is next; if so, moves past it. */
  take(word: Uint8Array): boolean {
    if (!this.bytesAre(word, this.p, word.length)) return false;
    this.p += word.length;
    return true;
  }

  literal(): void {
    if (!LITERALS.some((word) => this.take(word))) throw GIVE_UP;
  }
}
