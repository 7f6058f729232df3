/**
 * The `btc-template` CLI on a 150k-tx Core `getrawmempool true` file (issue 25; `npm run bench -- cli`):
 * the whole process (spawn to exit, the compiled CLI in dist/, as a user runs it) beside the native
 * cycle the same process reports, and their ratio (goal ≤ 2). Then, in this process on the same
 * file, the snapshot read four ways: the native reader on the mapped file (what the CLI uses), the
 * native reader on the file's bytes, the TypeScript scan (the fallback without the addon) and
 * JSON.parse + parseCoreMempool (the general path). `CLI_COMPARE_ROOT=/path/to/other/checkout`
 * also runs that checkout's compiled CLI on the same file in the same run (e.g. main's, for a
 * before/after). Also printed: the load average, Node's own start-up (`node -e 0`) and, where the
 * environment sets NODE_EXTRA_CA_CERTS (Node parses those certificates at start-up, before any of
 * our code), the CLI without it; the CPU time of start-up, module loading and the run (without
 * NODE_EXTRA_CA_CERTS), which a busy machine leaves readable; and the native read in one reader
 * beside the two-halves read. The CLI runs as a command, so its launcher puts glibc's malloc on huge
 * pages (scripts/with-malloc-hugepages.sh); one line runs it on 4 KiB pages beside.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { scanCoreMempool } from '../src/optimizer/snapshot/coreMempoolScan.js';
import { scanCoreMempoolFileNative, scanCoreMempoolNative } from '../src/optimizer/snapshot/nativeScan.js';
import { parseCoreMempool } from '../src/optimizer/snapshot/snapshot.js';
import { generateMempool, toCoreJson } from '../src/optimizer/snapshot/syntheticMempool.js';
import { median } from './stats.js';

const TX_COUNT = 150_000;
const RUNS = 3;
const root = fileURLToPath(new URL('..', import.meta.url));

const r1 = (x: number) => Math.round(x * 10) / 10;

/** The compiled files the CLI runs must not be older than their sources. */
function staleBuild(): string | undefined {
  for (const f of ['cli/template', 'optimizer/snapshot/snapshot', 'optimizer/snapshot/coreMempoolScan', 'optimizer/snapshot/nativeScan']) {
    const js = join(root, 'dist', `${f}.js`);
    if (!existsSync(js) || statSync(js).mtimeMs < statSync(join(root, 'src', `${f}.ts`)).mtimeMs) return js;
  }
  return undefined;
}

interface CliRun {
  wallMs: number;
  nativeMs: number;
  readMs: number;
  parseMs: number;
}

/** The environment without NODE_EXTRA_CA_CERTS. */
function withoutExtraCerts(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.NODE_EXTRA_CA_CERTS;
  return env;
}

/** Wall time of one process from spawn to exit (stdout ignored). */
async function wallOf(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const t0 = performance.now();
  const child = spawn(process.execPath, args, { stdio: 'ignore', env });
  await new Promise((resolve) => child.on('close', resolve));
  return performance.now() - t0;
}

/** The environment with glibc's malloc told to use 4 KiB pages only (the launcher keeps an explicit setting). */
function withSmallPages(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const others = (env.GLIBC_TUNABLES ?? '').split(':').filter((t) => t !== '' && !t.startsWith('glibc.malloc.hugetlb='));
  return { ...env, GLIBC_TUNABLES: [...others, 'glibc.malloc.hugetlb=0'].join(':') };
}

/** One run of a checkout's compiled CLI, run as a command as a user runs it (its launcher lines
 *  included): wall time from spawn to exit, and the timings it reports. */
async function runCli(checkout: string, file: string, env: NodeJS.ProcessEnv = process.env): Promise<CliRun> {
  const t0 = performance.now();
  const child = spawn(join(checkout, 'bin/btc-template.mjs'), ['template', file], { stdio: ['ignore', 'pipe', 'inherit'], env });
  const chunks: Buffer[] = [];
  child.stdout.on('data', (c: Buffer) => chunks.push(c));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const wallMs = performance.now() - t0;
  if (code !== 0) throw new Error(`btc-template exited with ${code}`);
  const report = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { timingsMs: Record<string, number> };
  const t = report.timingsMs;
  return { wallMs, nativeMs: t.native_total ?? NaN, readMs: t.read ?? NaN, parseMs: t.parse ?? NaN };
}

async function series(checkout: string, file: string, env: NodeJS.ProcessEnv = process.env): Promise<CliRun> {
  const runs: CliRun[] = [];
  for (let k = 0; k < RUNS; k++) runs.push(await runCli(checkout, file, env));
  const med = (f: (r: CliRun) => number) => median(runs.map(f));
  return { wallMs: med((r) => r.wallMs), nativeMs: med((r) => r.nativeMs), readMs: med((r) => r.readMs), parseMs: med((r) => r.parseMs) };
}

/** CPU time (user + system) of a fresh process running a checkout's CLI in-process: its start-up,
 *  the CLI's module loading, and the run (parse, cycle, report); robust where wall time is not (a
 *  busy machine). */
const CPU_SCRIPT = `const c0 = process.cpuUsage();
const ms = (c) => (c.user + c.system) / 1000;
const { runCli } = await import(process.argv[1] + '/dist/cli/template.js');
const c1 = process.cpuUsage();
await runCli(['template', process.argv[2]], { stdout: () => {}, stderr: (t) => process.stderr.write(t) });
const c2 = process.cpuUsage();
process.stdout.write(JSON.stringify([ms(c0), ms(c1) - ms(c0), ms(c2) - ms(c1)]));`;

async function cpuOf(checkout: string, file: string, env: NodeJS.ProcessEnv): Promise<number[]> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', CPU_SCRIPT, checkout, file], { stdio: ['ignore', 'pipe', 'inherit'], env });
  const chunks: Buffer[] = [];
  child.stdout.on('data', (c: Buffer) => chunks.push(c));
  await new Promise((resolve) => child.on('close', resolve));
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as number[];
}

async function cpuLine(label: string, checkout: string, file: string, env: NodeJS.ProcessEnv): Promise<string> {
  const runs: number[][] = [];
  for (let k = 0; k < RUNS; k++) runs.push(await cpuOf(checkout, file, env));
  const min = (i: number) => r1(Math.min(...runs.map((r) => r[i] ?? NaN)));
  return `${label}: CPU time (min of ${RUNS}) start-up ${min(0)} ms | CLI modules ${min(1)} ms | parse + cycle + report ${min(2)} ms`;
}

function line(label: string, r: CliRun): string {
  return (
    `${label}: whole process ${r1(r.wallMs)} ms | native cycle ${r1(r.nativeMs)} ms | ratio ${(r.wallMs / r.nativeMs).toFixed(2)} (goal ≤ 2) | ` +
    `in the CLI: read ${r1(r.readMs)} ms, parse ${r1(r.parseMs)} ms`
  );
}

export async function run(): Promise<void> {
  console.log(`\n## cli (btc-template template FILE, whole process vs its native cycle), ${TX_COUNT.toLocaleString('en-US')} txs, medians of ${RUNS}\n`);
  const stale = staleBuild();
  if (stale) {
    console.log(`skipped: ${stale} is missing or older than its source; run \`npm run build\` first`);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'cli-bench-'));
  try {
    const file = join(dir, 'getrawmempool.json');
    writeFileSync(file, toCoreJson(generateMempool({ txCount: TX_COUNT, seed: 1 })));
    const mb = (statSync(file).size / 1e6).toFixed(1);
    console.log(`file: ${mb} MB Core getrawmempool JSON (seed 1)`);
    const load = loadavg().map((x) => x.toFixed(2));
    console.log(`load average (1, 5, 15 min): ${load.join(', ')} on ${availableParallelism()} cores`);
    const startups: number[] = [];
    for (let k = 0; k < RUNS; k++) startups.push(await wallOf(['-e', '0']));
    console.log(`Node start-up alone (node -e 0): ${r1(median(startups))} ms`);
    const compare = process.env.CLI_COMPARE_ROOT;
    if (compare) console.log(line(`compared (${compare})`, await series(compare, file)));
    console.log(line('this checkout', await series(root, file)));
    if (process.env.NODE_EXTRA_CA_CERTS !== undefined) {
      const bare: number[] = [];
      for (let k = 0; k < RUNS; k++) bare.push(await wallOf(['-e', '0'], withoutExtraCerts()));
      console.log(`without NODE_EXTRA_CA_CERTS (set here; Node parses its certificates at start-up): Node start-up alone ${r1(median(bare))} ms`);
      if (compare) console.log(line(`  compared (${compare})`, await series(compare, file, withoutExtraCerts())));
      console.log(line('  this checkout', await series(root, file, withoutExtraCerts())));
    }
    // Side by side: the C heap on 4 KiB pages, as before the launcher (docs/operations.md).
    console.log(
      line(
        'this checkout, malloc on 4 KiB pages (glibc.malloc.hugetlb=0; without NODE_EXTRA_CA_CERTS)',
        await series(root, file, withSmallPages(withoutExtraCerts())),
      ),
    );
    const cpuEnv = withoutExtraCerts();
    if (compare) console.log(await cpuLine(`compared (${compare})`, compare, file, cpuEnv));
    console.log(await cpuLine('this checkout', root, file, cpuEnv));

    // The read itself, in this process, on the same file.
    const ways: Record<'mapped' | 'oneReader' | 'bytes' | 'ts' | 'general', number[]> = { mapped: [], oneReader: [], bytes: [], ts: [], general: [] };
    const time = (list: number[], read: () => unknown) => {
      const t0 = performance.now();
      const got = read();
      list.push(performance.now() - t0);
      if (got === undefined || typeof got === 'string') throw new Error(`a reader gave up on a generated file (${String(got)})`);
    };
    for (let k = 0; k < RUNS; k++) {
      time(ways.mapped, () => scanCoreMempoolFileNative(file));
      time(ways.oneReader, () => scanCoreMempoolFileNative(file, { splitFromBytes: Infinity }));
      time(ways.bytes, () => scanCoreMempoolNative(readFileSync(file)));
      time(ways.ts, () => scanCoreMempool(readFileSync(file)));
      time(ways.general, () => parseCoreMempool(JSON.parse(readFileSync(file, 'utf8'))));
    }
    const m = (list: number[]) => r1(median(list));
    console.log(
      `snapshot read in-process (file to columns, read included): native on the mapped file ${m(ways.mapped)} ms (in one reader instead of two halves: ${m(ways.oneReader)} ms) | ` +
        `native on its bytes ${m(ways.bytes)} ms | TypeScript scan (txid rank not included) ${m(ways.ts)} ms | JSON.parse + parseCoreMempool ${m(ways.general)} ms ` +
        `(mapped: ${(median(ways.general) / median(ways.mapped)).toFixed(1)}× faster than JSON.parse, ${(median(ways.ts) / median(ways.mapped)).toFixed(1)}× than the TypeScript scan)`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
