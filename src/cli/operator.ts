// The operator at the command line, as the audit log names them.
import { userInfo } from 'node:os'

export interface CliOperator {
  readonly type: 'cli'
  readonly id: string
}

export function cliOperator(): CliOperator {
  try {
    return { type: 'cli', id: userInfo().username }
  } catch {
    // No account entry for the uid (some containers): say so rather than fail the command.
    return { type: 'cli', id: process.env.USER ?? 'unknown-operator' }
  }
}
