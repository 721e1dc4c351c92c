// What a worker can grow a run by. Reports merge their metadata into the run's and add
// outcome references, and the admin API serves a run whole, so both are capped: each report's
// metadata, and what the run holds after merging (a report that would pass a cap is a 400
// naming the member and the limit; nothing of it is stored). docs/jobs.md lists the limits.
import { invalid } from '../kernel/errors.js'

export const RUN_LIMITS = Object.freeze({
  /** JSON bytes of one report's `metadata`. */
  reportMetadataBytes: 16_384,
  /** JSON bytes of a run's merged `metadata`. */
  runMetadataBytes: 65_536,
  /** Distinct outcome references a run keeps. */
  runOutcomeRefs: 1_000,
})

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value))

/** A report's own metadata within its limit, checked before anything is read or locked. */
export function checkReportMetadata(metadata: Readonly<Record<string, unknown>> | undefined): void {
  const size = metadata === undefined ? 0 : bytes(metadata)
  if (size > RUN_LIMITS.reportMetadataBytes) {
    throw invalid('metadata', `is ${size} bytes of JSON; a report's metadata may be at most ${RUN_LIMITS.reportMetadataBytes} bytes`)
  }
}

/** The run after merging a report within its limits. */
export function checkMergedRun(runId: string, metadata: Readonly<Record<string, unknown>>, outcomeRefs: number): void {
  const size = bytes(metadata)
  if (size > RUN_LIMITS.runMetadataBytes) {
    throw invalid('metadata', `merged into run ${runId}'s metadata it would make ${size} bytes of JSON; a run's metadata may be at most ${RUN_LIMITS.runMetadataBytes} bytes (replace keys instead of adding new ones)`)
  }
  if (outcomeRefs > RUN_LIMITS.runOutcomeRefs) {
    throw invalid('outcomeRefs', `run ${runId} would hold ${outcomeRefs} outcome references; a run may hold at most ${RUN_LIMITS.runOutcomeRefs}`)
  }
}
