// What a migration is. Its own file, so migrations and the list of them do not import each other.
import type { Db } from '../database.js'
import type { DialectAdapter } from '../database.js'
export interface Migration {
  readonly name: string
  up(db: Db, adapter: DialectAdapter): Promise<void>
}
