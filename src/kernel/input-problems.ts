// The problems of one request's input, gathered so that one 400 names every bad parameter
// (DESIGN §4: `details[]` names each parameter and what is wrong). An operation runs each of
// its independent checks even when an earlier one failed, and throws once before it reads
// anything. The machine API seeds it with the schema's problems for routes that gather
// (MachineRoute.gathersProblems), so the schema's and the operation's come in one answer.
import { ApiError, invalidEach, type ErrorDetail } from './errors.js'

export class InputProblems {
  private readonly details: ErrorDetail[]

  constructor(seed: readonly ErrorDetail[] = []) {
    this.details = [...seed]
  }

  /**
   * Whether a problem names `param` (a check that reads it then has nothing to judge). Query
   * parameters are flat: `filter.x` is a parameter of its own (an unknown one), not `filter`'s.
   */
  has(param: string): boolean {
    return this.details.some((d) => d.param === param)
  }

  add(param: string, problem: string): void {
    this.details.push({ param, problem })
  }

  /** Runs `check`; a 400 it throws is recorded (undefined is returned), any other error passes. */
  attempt<T>(check: () => T): T | undefined {
    try {
      return check()
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== 'INVALID_REQUEST' || err.details === undefined) throw err
      this.details.push(...err.details)
      return undefined
    }
  }

  /** One 400 naming every problem recorded; nothing when there is none. */
  throwIfAny(): void {
    if (this.details.length > 0) throw invalidEach(this.details)
  }
}
