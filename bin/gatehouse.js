#!/usr/bin/env node
// Launcher for `npx gatehouse …` and `npm start`: runs the built CLI (built by `npm install`'s
// prepare step, or `npm run build`): the bundle, which starts on about half the CPU
// (scripts/bundle.mjs), or the compiled modules in dist/ when it was built without esbuild. A
// checkout that has not been built, or a run with GATEHOUSE_RUN_SOURCE=1 (the tests, which must
// exercise the sources as they are), runs the TypeScript sources through tsx instead.
import { existsSync } from 'node:fs'
import { setFlagsFromString } from 'node:v8'

// A server's start-up (loading modules, compiling route schemas) makes short-lived garbage in
// bursts, which grows V8's young generation to its maximum; those pages then stay resident in
// an idle server (about 25 MB). Growth is off until the server listens (serve() turns it back
// on: src/cli/serve.ts), so the young generation grows under load only.
if (process.argv[2] === 'serve' || process.argv[2] === 'start') setFlagsFromString('--semi-space-growth-factor=1')

const built = [new URL('../dist/bundle/gatehouse.js', import.meta.url), new URL('../dist/cli/main.js', import.meta.url)]
const compiled = built.find((url) => existsSync(url))
if (process.env.GATEHOUSE_RUN_SOURCE !== '1' && compiled) {
  const { runCli } = await import(compiled.href)
  await runCli(process.argv)
} else {
  const { register } = await import('tsx/esm/api')
  register()
  const { runCli } = await import('../src/cli/main.ts')
  await runCli(process.argv)
}
