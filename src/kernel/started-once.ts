// A service started at its first use and kept once it is up. A start that fails (the database
// away at the first request) is not kept: the next use starts it again, instead of every later
// use failing until a restart. Uses while a start is under way share it.
export class StartedOnce<T> {
  private started: Promise<T> | undefined

  constructor(private readonly start: () => Promise<T>) {}

  get(): Promise<T> {
    return (this.started ??= this.start().catch((err: unknown) => {
      this.started = undefined
      throw err
    }))
  }

  /** The start under way or done, if any: what a close has to wait for. */
  get current(): Promise<T> | undefined {
    return this.started
  }
}
