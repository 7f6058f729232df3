#!/usr/bin/env node
// The package's install step (npm ci / npm install): builds the native optimizer with node-gyp,
// quietly. Its ~50 lines of `gyp info` and compiler progress are kept and printed only when the
// build fails, with node-gyp's exit code, so a failed build still stops `npm ci` loudly.
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';

const started = Date.now();
// OPTIMIZER_NATIVE_STRICT=1 (CI) builds with warnings as errors. The flag goes to this build only:
// CXXFLAGS set around `npm ci` would reach every dependency's native build too (better-sqlite3's
// fails with -Werror).
const strict = process.env.OPTIMIZER_NATIVE_STRICT === '1';
const env = strict ? { ...process.env, CXXFLAGS: `${process.env.CXXFLAGS ?? ''} -Werror`.trim() } : process.env;
const child = spawn('node-gyp', ['rebuild'], { stdio: ['ignore', 'pipe', 'pipe'], shell: process.platform === 'win32', env });
const output = [];
child.stdout.on('data', (chunk) => output.push(chunk));
child.stderr.on('data', (chunk) => output.push(chunk));
child.on('error', (error) => {
  process.stderr.write(`native optimizer: cannot run node-gyp (${error.message}); install it or run npm through a Node.js that ships it\n`);
  process.exit(1);
});
child.on('close', (code, signal) => {
  if (code === 0) {
    process.stdout.write(
      `native optimizer built (build/Release/optimizer.node${strict ? ', warnings as errors' : ''}, ${Math.round((Date.now() - started) / 1000)} s)\n`,
    );
    return;
  }
  process.stderr.write(Buffer.concat(output).toString());
  process.stderr.write(
    `\nnative optimizer: node-gyp rebuild failed (${signal ?? `exit code ${code}`}); the output above says why. It needs a C++20 compiler (g++ 10+), Python 3 and the Node.js headers (npm_config_nodedir=/usr when they come with the system's Node).\n`,
  );
  process.exit(code ?? 1);
});
