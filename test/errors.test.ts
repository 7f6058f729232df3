import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Errors } from '../src/errors.js';

const doc = readFileSync(new URL('../docs/errors.md', import.meta.url), 'utf8');
const documented = new Set([...doc.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \| (\d{3}) \|/gm)].map((m) => `${m[1]} ${m[2]}`));

describe('error catalogue', () => {
  it('default: every code is documented in docs/errors.md with its status', () => {
    for (const [key, make] of Object.entries(Errors)) {
      const error = new make('x', 'y', 'z');
      expect(error.code).toBe(key);
      expect(documented, `${key} ${error.statusCode} missing from docs/errors.md`).toContain(`${key} ${error.statusCode}`);
    }
  });

  it('behavior: each code in docs/errors.md says what to do, not only what happened', () => {
    const rows = [...doc.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \| \d{3} \|(.*)$/gm)];
    expect(rows.length).toBeGreaterThanOrEqual(Object.keys(Errors).length);
    for (const [, code, rest] of rows) {
      const cells = (rest ?? '').split(' | ').map((c) => c.replace(/\|\s*$/, '').trim());
      expect(cells.length, `${code}: when | what to do`).toBe(2);
      expect(cells[1]?.length, `${code} has no "what to do"`).toBeGreaterThan(10);
    }
  });

  it('behavior: docs/errors.md lists no code the catalogue lacks', () => {
    for (const entry of documented) expect(Object.keys(Errors)).toContain(entry.split(' ')[0]);
  });
});
