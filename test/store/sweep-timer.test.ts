// A sweep timer meets every deadline armed in its process, not only the earliest: a workflow
// run whose lease was renewed past its first end was abandoned up to 5 s late (the interval's
// next tick), because the timer for the first end fired, found nothing due, and no timer was
// left for the renewed end.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { pino } from 'pino'
import { SweepTimer } from '../../src/store/sweep-timer.js'

test('each armed deadline gets its sweep on time, however they were armed', async (t) => {
  const start = Date.now()
  const sweeps: number[] = []
  const timer = new SweepTimer(async () => { sweeps.push(Date.now() - start); return 0 }, pino({ level: 'silent' }), 'test sweep', 60_000)
  timer.start()
  t.after(() => timer.stop())
  // The first end, then the renewed one (later), then one between them.
  timer.arm(start + 100)
  timer.arm(start + 400)
  timer.arm(start + 250)
  await new Promise((r) => setTimeout(r, 700))
  assert.equal(sweeps.length, 3, `sweeps at ${sweeps.join(', ')} ms`)
  for (const [i, due] of [100, 250, 400].entries()) assert.ok(sweeps[i] >= due && sweeps[i] < due + 150, `sweep ${i} at ${sweeps[i]} ms, due at ${due}`)
})
