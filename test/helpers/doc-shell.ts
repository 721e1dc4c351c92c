// Runs a shell block of a docs page with bash, as a reader pasting it would, with the
// environment given (on top of this process's) and its output returned.
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'

const run = promisify(execFile)

/**
 * `--norc`: bash whose stdin is a socket (Node's pipes to a child are socket pairs) and whose
 * SHLVL is below 2 takes itself for a command run over ssh and reads ~/.bashrc; on this
 * machine that ran `pyenv init` and about sixty other programs, a second of CPU per block.
 */
export async function runShellBlock(script: string, env: Record<string, string>, cwd?: string): Promise<{ stdout: string }> {
  // (BASH_ENV names a file every non-interactive bash reads, --norc or not.)
  const { stdout } = await run('bash', ['--norc', '-c', script], { cwd, env: { ...process.env, BASH_ENV: '', ...env } })
  return { stdout }
}
