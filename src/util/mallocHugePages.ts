/**
 * Whether this process's C heap is backed by transparent huge pages, said once at start-up. The
 * optimizer's tables are tens of MB; on the VMs we measure on, the first touch of a 4 KiB page costs
 * 12-17 us and a fresh cycle pays thousands of them (docs/performance-log.md, eighth session).
 * `npm start` and the `btc-template` command start Node through scripts/with-malloc-hugepages.sh,
 * which sets glibc's tunable; a process started otherwise is told how.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';

export type HugePages = { on: true; how: string } | { on: false; why: string; hint?: string };

const Tunables = z.string().max(4096).optional();

/** The kernel's THP mode from /sys/kernel/mm/transparent_hugepage/enabled ("always [madvise] never"). */
export function thpMode(enabledFile: string | undefined): string | undefined {
  return enabledFile === undefined ? undefined : /\[(\w+)\]/.exec(enabledFile)?.[1];
}

/**
 * @param env the process environment (GLIBC_TUNABLES is read)
 * @param enabledFile the text of /sys/kernel/mm/transparent_hugepage/enabled, undefined where absent
 * @param glibc whether the C library is glibc (the tunable is glibc's)
 */
export function mallocHugePages(env: Record<string, string | undefined>, enabledFile: string | undefined, glibc: boolean): HugePages {
  const mode = thpMode(enabledFile);
  if (mode === undefined) return { on: false, why: 'the kernel offers no transparent huge pages' };
  if (mode === 'never') return { on: false, why: 'the kernel\'s transparent huge pages are off ("never")' };
  if (mode === 'always') return { on: true, how: 'the kernel backs large mappings with huge pages ("always")' };
  if (!glibc) return { on: false, why: `the kernel's mode is "${mode}" and the C library is not glibc` };
  const parsed = Tunables.safeParse(env.GLIBC_TUNABLES);
  const tunables = parsed.success ? (parsed.data ?? '') : '';
  const setting = /(?:^|:)glibc\.malloc\.hugetlb=([^:]*)/.exec(tunables)?.[1];
  if (setting === '1' || setting === '2') return { on: true, how: `GLIBC_TUNABLES glibc.malloc.hugetlb=${setting}` };
  return {
    on: false,
    why: setting === undefined ? 'GLIBC_TUNABLES does not set glibc.malloc.hugetlb' : `GLIBC_TUNABLES sets glibc.malloc.hugetlb=${setting}`,
    hint:
      setting === undefined
        ? 'start through scripts/with-malloc-hugepages.sh (as npm start does): the first optimizer cycles then cost 24-36 % less'
        : undefined,
  };
}

/** This process's state: the kernel's mode read from sysfs, glibc from Node's report header. */
export function mallocHugePagesHere(env: Record<string, string | undefined>): HugePages {
  let enabledFile: string | undefined;
  try {
    enabledFile = readFileSync('/sys/kernel/mm/transparent_hugepage/enabled', 'utf8');
  } catch {
    enabledFile = undefined;
  }
  const header = (process.report.getReport() as { header?: { glibcVersionRuntime?: unknown } }).header;
  return mallocHugePages(env, enabledFile, typeof header?.glibcVersionRuntime === 'string');
}
