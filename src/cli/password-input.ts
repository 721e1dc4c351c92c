// Reading an admin password: from stdin with --password-stdin (scripts), or typed at a
// terminal prompt without echo. Never from an argument, where it would land in shell history.
import { CliError } from './cli-error.js'

export async function readPasswordFromStdin(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  // One trailing newline is what `echo` and here-strings add; it is not part of the password.
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '')
}

/** Prompts on the terminal without echo; Ctrl+C aborts. */
export function promptHidden(question: string): Promise<string> {
  const stdin = process.stdin
  if (!stdin.isTTY) throw new CliError('no terminal to prompt for a password; pipe it in with --password-stdin')
  process.stderr.write(question)
  stdin.setRawMode(true)
  stdin.resume()
  stdin.setEncoding('utf8')
  return new Promise((resolve, reject) => {
    let value = ''
    const done = (err?: Error) => {
      stdin.off('data', onData)
      stdin.setRawMode(false)
      stdin.pause()
      process.stderr.write('\n')
      if (err) reject(err)
      else resolve(value)
    }
    const onData = (text: string) => {
      for (const ch of text) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') return done()
        if (ch === '\u0003') return done(new CliError('cancelled', 130))
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1)
        else if (ch >= ' ') value += ch
      }
    }
    stdin.on('data', onData)
  })
}

/** The new password, from stdin or typed twice at the terminal. */
export async function readNewPassword(fromStdin: boolean): Promise<string> {
  if (fromStdin) return readPasswordFromStdin()
  const first = await promptHidden('Password: ')
  const second = await promptHidden('Repeat password: ')
  if (first !== second) throw new CliError('the passwords do not match')
  return first
}
