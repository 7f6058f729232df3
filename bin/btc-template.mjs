#!/usr/bin/env node
// Entry point of the `btc-template` command: runs the compiled CLI (dist/cli/template.js).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/cli/template.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write('btc-template: the CLI is not built yet; run `npm run build` (and `npm run build:native`) in the package first\n');
  process.exitCode = 2;
} else {
  const { runCli } = await import(entry.href);
  process.exitCode = await runCli(process.argv.slice(2));
}
