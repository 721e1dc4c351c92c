// Which job run a credential is working in now (DESIGN §16: a change made during a run has
// the origin `job` with the run's id). Named here, answered by the job runtime, so the
// control plane never imports jobs/.

export interface LiveRuns {
  /** The id of the credential's open run with a live lease (the latest started), or null. */
  liveRunOf(credentialId: string): Promise<string | null>
}

/** For control planes built without a job runtime (tools, some tests): no run is ever open. */
export const NO_LIVE_RUNS: LiveRuns = { liveRunOf: async () => null }
