// Which better-sqlite3 errors mean what.
import type { DialectErrors } from '../dialect-adapter.js'
import { DESTROYED, errorCode as code, errorMessage as message } from '../error-fields.js'

// SQLITE_FULL (the disk or the file's page limit is full) is not an outage: reads go on,
// so it has a classifier of its own (isStorageFull).
const UNAVAILABLE = /^SQLITE_(CANTOPEN|NOTADB|IOERR|BUSY$|BUSY_RECOVERY|BUSY_TIMEOUT|CORRUPT|READONLY_DBMOVED)/

export const sqliteErrors: DialectErrors = {
  uniqueViolation(err) {
    const e = err as { code?: string; message?: string } | null
    if (e?.code !== 'SQLITE_CONSTRAINT_UNIQUE' && e?.code !== 'SQLITE_CONSTRAINT_PRIMARYKEY') return undefined
    // "UNIQUE constraint failed: entries.section, entries.slug"
    return String(e.message).replace(/^.*failed: /, '').split(',').map((c) => c.trim().split('.')[1] ?? c.trim())
  },
  isUnavailable: (err) => UNAVAILABLE.test(String(code(err) ?? '')) || DESTROYED.test(message(err)) || /database connection is not open/i.test(message(err)),
  isStorageFull: (err) => code(err) === 'SQLITE_FULL',
  isWriteConflict: (err) => code(err) === 'SQLITE_BUSY_SNAPSHOT',
  isUniqueViolation: (err) => code(err) === 'SQLITE_CONSTRAINT_UNIQUE' || code(err) === 'SQLITE_CONSTRAINT_PRIMARYKEY',
  isMissingTable: (err) => /no such table/i.test(message(err)),
}
