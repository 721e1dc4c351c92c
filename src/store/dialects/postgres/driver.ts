// The pg driver, loaded when a PostgreSQL database is opened: a process needs one of the
// two drivers, and each costs a few MB of memory.
import { createRequire } from 'node:module'
import type pg from 'pg'

const load = createRequire(import.meta.url)
let pgModule: typeof pg | undefined

export function loadPg(): typeof pg {
  if (!pgModule) {
    pgModule = load('pg') as typeof pg
    // pg returns BIGINT as strings by default; ids and millisecond timestamps fit in a double.
    pgModule.types.setTypeParser(20, (v: string) => Number(v))
  }
  return pgModule
}
