// How tests start the `gatehouse` CLI as a child process. `npm test` (scripts/run-tests.mjs)
// first builds dist/ from the sources as they are and sets GATEHOUSE_TEST_CLI=dist: the
// built CLI, the bundle bin/gatehouse.js runs, starts on about 0.5 s of CPU against 2.3 s
// through tsx, and the suite starts it a few hundred times. A test file run on its own
// (node --import tsx --test …) runs the sources through tsx.
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = fileURLToPath(new URL('../../', import.meta.url))

const compiled = process.env.GATEHOUSE_TEST_CLI === 'dist'
// As bin/gatehouse.js chooses: the bundle, or the compiled modules when esbuild was missing.
const built = [join(ROOT, 'dist/bundle/gatehouse.js'), join(ROOT, 'dist/cli/main.js')].find((file) => existsSync(file))

/**
 * The V8 tiering budget this test process runs with (scripts/run-tests.mjs sets it: a
 * short-lived process spends less CPU compiling), for the node processes a test starts.
 */
export const NODE_TIERING = process.execArgv.filter((arg) => arg.startsWith('--interrupt-budget'))

/** Node's arguments for `gatehouse <args>`. */
export function cliArgs(args: readonly string[]): string[] {
  return [...NODE_TIERING, ...(compiled && built ? [built, ...args] : ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), ...args])]
}

/** The `bin/gatehouse.js` launcher, and what tells it to run the same build as cliArgs. */
export const LAUNCHER = join(ROOT, 'bin/gatehouse.js')
export const launcherEnv = { GATEHOUSE_RUN_SOURCE: compiled ? '0' : '1' } as const
