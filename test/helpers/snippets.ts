// Runs starter-pack snippets as their users would: `sh` for curl, plain `node`, `python3`,
// with only PATH and the variables given, in the folder they were saved to.
import { spawn, spawnSync } from 'node:child_process'
import { join } from 'node:path'

export const SNIPPET_COMMAND = { curl: 'sh', node: process.execPath, python: 'python3' } as const
export type SnippetLanguage = keyof typeof SNIPPET_COMMAND

export const hasPython = spawnSync('python3', ['--version']).status === 0

export interface SnippetResult {
  readonly status: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs a snippet to its end. Asynchronously: the server answering it lives in this process. */
export function runSnippet(dir: string, language: SnippetLanguage, filename: string, env: Record<string, string>, timeoutMs = 30_000): Promise<SnippetResult> {
  const child = spawn(SNIPPET_COMMAND[language], [join(dir, filename)], { cwd: dir, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d) => { stdout += String(d) })
  child.stderr.on('data', (d) => { stderr += String(d) })
  // SIGKILL: a snippet past its time may be stuck where SIGTERM does not end it.
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
  return new Promise((resolve) => child.once('close', (status) => { clearTimeout(timer); resolve({ status, stdout, stderr }) }))
}
