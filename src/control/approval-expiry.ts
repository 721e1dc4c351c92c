// Expiry of approvals runs on a timer, never as a side effect of reading: an interval sweeps
// what is due (also approvals other processes created), and a one-off timer is armed for the
// earliest expiry this process knows of, so a short TTL expires on time. Started and stopped
// with the app, like the operations timers.
import type { Logger } from 'pino'
import { SweepTimer } from '../store/sweep-timer.js'
import type { ApprovalStore } from './approval-store.js'

export class ApprovalExpiry extends SweepTimer {
  constructor(approvals: ApprovalStore, logger: Logger, everyMs = 15_000) {
    super(() => approvals.expireDue(), logger, 'approval expiry sweep', everyMs)
  }
}
