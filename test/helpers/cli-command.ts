// How tests start the `gatehouse` CLI as a child process. `npm test` (scripts/run-tests.mjs)
// first builds dist/ from the sources as they are and sets GATEHOUSE_TEST_CLI=dist: the
// compiled CLI starts on about 0.7 s of CPU against 2.3 s through tsx, and the suite starts it
// a few hundred times. A test file run on its own (node --import tsx --test …) runs the
// sources through tsx.
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = fileURLToPath(new URL('../../', import.meta.url))

const compiled = process.env.GATEHOUSE_TEST_CLI === 'dist'

/** Node's arguments for `gatehouse <args>`. */
export function cliArgs(args: readonly string[]): string[] {
  return compiled ? [join(ROOT, 'dist/cli/main.js'), ...args] : ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), ...args]
}

/** The `bin/gatehouse.js` launcher, and what tells it to run the same build as cliArgs. */
export const LAUNCHER = join(ROOT, 'bin/gatehouse.js')
export const launcherEnv = { GATEHOUSE_RUN_SOURCE: compiled ? '0' : '1' } as const
