#!/bin/sh
':' //; case ":${GLIBC_TUNABLES:-}:" in *:glibc.malloc.hugetlb=*) ;; *) GLIBC_TUNABLES="${GLIBC_TUNABLES:+$GLIBC_TUNABLES:}glibc.malloc.hugetlb=1"; export GLIBC_TUNABLES ;; esac; exec node "$0" "$@"
// Entry point of the `btc-template` command: runs the compiled CLI (dist/cli/template.js).
// The line above is shell and JavaScript at once. Run as a command, /bin/sh runs it: glibc's malloc
// on huge pages, as scripts/with-malloc-hugepages.sh sets them (same rule, inline: no process more),
// then Node. Node reads a string and a comment. `node bin/btc-template.mjs` also works, without them.
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
