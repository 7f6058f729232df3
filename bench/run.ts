/**
 * `npm run bench`: runs every `bench/*.bench.ts` module's exported `run()` in turn, in file-name
 * order. A new benchmark needs no registration: add `bench/<subject>.bench.ts` exporting
 * `async function run(): Promise<void>`. Pass names to run a subset:
 * `npm run bench -- optimizer payments`.
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { mallocHugePagesHere } from '../src/util/mallocHugePages.js';

interface BenchModule {
  run?: () => Promise<void> | void;
}

const dir = fileURLToPath(new URL('.', import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.includes(f.replace(/\.bench\.ts$/, '')))
  .sort();
if (files.length === 0) {
  console.error(
    `no bench modules match ${only.join(', ')} (available: ${readdirSync(dir)
      .filter((f) => f.endsWith('.bench.ts'))
      .join(', ')})`,
  );
  process.exitCode = 2;
}
// `npm run bench` starts through scripts/with-malloc-hugepages.sh, as `npm start` does: say so.
const heap = mallocHugePagesHere(process.env);
if (files.length > 0) console.log(`C heap on huge pages: ${heap.on ? `yes (${heap.how})` : `no (${heap.why})`}`);
for (const f of files) {
  const mod = (await import(pathToFileURL(`${dir}${f}`).href)) as BenchModule;
  if (typeof mod.run !== 'function') {
    console.error(`bench/${f} exports no run(); skipped`);
    continue;
  }
  const started = performance.now();
  await mod.run();
  console.log(`(bench/${f}: ${((performance.now() - started) / 1000).toFixed(1)} s)`);
}
