// The query builder over an open store, in its own file: the adapter and the store's face
// (dialect.ts) both name it without importing each other.
import type { Kysely } from 'kysely'

// Kysely<any>: tables are derived from resource declarations at run time, so a static
// database interface would be written twice. Row shapes are typed where they are read.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Db = Kysely<any>
