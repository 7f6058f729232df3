/**
 * The start-up line about the C heap's huge pages (src/util/mallocHugePages.ts) and the launchers
 * that set them: scripts/with-malloc-hugepages.sh (`npm start`, `npm run bench`, the systemd unit)
 * and the shell line of bin/btc-template.mjs (the same rule inline).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { mallocHugePages, thpMode } from '../../src/util/mallocHugePages.js';

const MADVISE = 'always [madvise] never\n';
const launcher = fileURLToPath(new URL('../../scripts/with-malloc-hugepages.sh', import.meta.url));

const cli = fileURLToPath(new URL('../../bin/btc-template.mjs', import.meta.url));
// A `node` first on PATH that prints what it was started with, to read the CLI's shell line's work.
const fakeBin = mkdtempSync(join(tmpdir(), 'fake-node-'));
writeFileSync(join(fakeBin, 'node'), '#!/bin/sh\nprintf \'%s|%s\' "$GLIBC_TUNABLES" "$*"\n');
chmodSync(join(fakeBin, 'node'), 0o755);
afterAll(() => rmSync(fakeBin, { recursive: true, force: true }));

function envWith(tunables: string | undefined, path = process.env.PATH): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: path };
  if (tunables !== undefined) env.GLIBC_TUNABLES = tunables;
  return env;
}

/** GLIBC_TUNABLES as the launcher leaves it for the command it starts. */
function launched(tunables: string | undefined): string {
  return execFileSync('sh', [launcher, 'sh', '-c', 'printf %s "$GLIBC_TUNABLES"'], { env: envWith(tunables), encoding: 'utf8' });
}

/** GLIBC_TUNABLES and the arguments `node` gets when bin/btc-template.mjs runs as a command. */
function cliLaunched(tunables: string | undefined): string {
  return execFileSync(cli, ['template', 'x y.json'], { env: envWith(tunables, `${fakeBin}:${process.env.PATH ?? ''}`), encoding: 'utf8' });
}

describe('mallocHugePages', () => {
  it('reads the kernel mode from the bracketed word', () => {
    expect(thpMode(MADVISE)).toBe('madvise');
    expect(thpMode('[always] madvise never')).toBe('always');
    expect(thpMode(undefined)).toBeUndefined();
  });

  it('is on in madvise mode only when glibc is told, and says how to turn it on otherwise', () => {
    expect(mallocHugePages({ GLIBC_TUNABLES: 'glibc.malloc.hugetlb=1' }, MADVISE, true)).toMatchObject({ on: true });
    expect(mallocHugePages({ GLIBC_TUNABLES: 'glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1' }, MADVISE, true).on).toBe(true);
    const off = mallocHugePages({}, MADVISE, true);
    expect(off).toMatchObject({ on: false, why: 'GLIBC_TUNABLES does not set glibc.malloc.hugetlb' });
    expect(off.on === false && off.hint).toContain('scripts/with-malloc-hugepages.sh');
    // An operator's explicit choice is reported, not argued with.
    expect(mallocHugePages({ GLIBC_TUNABLES: 'glibc.malloc.hugetlb=0' }, MADVISE, true)).toEqual({
      on: false,
      why: 'GLIBC_TUNABLES sets glibc.malloc.hugetlb=0',
      hint: undefined,
    });
    // Not a substring match: another tunable's name ending the same way does not count.
    expect(mallocHugePages({ GLIBC_TUNABLES: 'x.glibc.malloc.hugetlb=1' }, MADVISE, true).on).toBe(false);
  });

  it('follows the kernel and the C library', () => {
    expect(mallocHugePages({}, '[always] madvise never', true).on).toBe(true);
    expect(mallocHugePages({ GLIBC_TUNABLES: 'glibc.malloc.hugetlb=1' }, 'always madvise [never]', true).on).toBe(false);
    expect(mallocHugePages({ GLIBC_TUNABLES: 'glibc.malloc.hugetlb=1' }, undefined, true).on).toBe(false);
    expect(mallocHugePages({ GLIBC_TUNABLES: 'glibc.malloc.hugetlb=1' }, MADVISE, false).on).toBe(false);
  });
});

describe('scripts/with-malloc-hugepages.sh', () => {
  it('adds the tunable, keeps the others, and leaves an explicit setting alone', () => {
    expect(launched(undefined)).toBe('glibc.malloc.hugetlb=1');
    expect(launched('')).toBe('glibc.malloc.hugetlb=1');
    expect(launched('glibc.malloc.arena_max=2')).toBe('glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1');
    expect(launched('glibc.malloc.hugetlb=0')).toBe('glibc.malloc.hugetlb=0');
  });
});

describe('bin/btc-template.mjs run as a command', () => {
  it('starts node on itself with the launcher rule, the arguments kept', () => {
    expect(cliLaunched(undefined)).toBe(`glibc.malloc.hugetlb=1|${cli} template x y.json`);
    expect(cliLaunched('glibc.malloc.arena_max=2')).toBe(`glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1|${cli} template x y.json`);
    expect(cliLaunched('glibc.malloc.hugetlb=0')).toBe(`glibc.malloc.hugetlb=0|${cli} template x y.json`);
  });
});
