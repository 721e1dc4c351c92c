// Who runs a CLI command, as audit records and probe ledgers name them: the OS account.
import { userInfo } from 'node:os'

export interface CliOperator {
  readonly type: 'cli'
  readonly id: string
}

export function cliOperator(): CliOperator {
  return { type: 'cli', id: operatorName() }
}

/** The operator's login name; some containers have no account entry for the uid. */
export function operatorName(): string {
  try {
    return userInfo().username
  } catch {
    return process.env.USER ?? 'unknown-operator'
  }
}

/** The operator at the command line, as an actor of the audit log. */
export const operator = cliOperator
