#!/bin/sh
//bin/sh -c :; exec sh "$(dirname "$(readlink -f "$0")")/../scripts/with-malloc-hugepages.sh" node "$0" "$@"
// Entry point of the `btc-template` command: runs the compiled CLI (dist/cli/template.js).
// The line above is shell and JavaScript at once: run as a command, /bin/sh runs it (a no-op, then
// Node started through scripts/with-malloc-hugepages.sh: glibc's malloc on huge pages, set before
// Node starts); Node reads it as a comment. `node bin/btc-template.mjs` also works, without them.
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
