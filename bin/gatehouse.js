#!/usr/bin/env node
// Launcher for `npx gatehouse …` in a checkout: registers tsx's ESM loader and runs the
// TypeScript CLI directly, so there is no build step to forget.
import { register } from 'tsx/esm/api'

register()
const { runCli } = await import('../src/cli/main.ts')
await runCli(process.argv)
