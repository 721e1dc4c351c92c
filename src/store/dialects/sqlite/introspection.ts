// SQLite's tables, columns and indexes, read from sqlite_master and the table pragmas.
import { sql } from 'kysely'
import type { Db } from '../db.js'
import { assembleTables, onlyTables, type TableInfo } from '../table-info.js'

export async function describeSqliteTables(db: Db, only?: readonly string[]): Promise<TableInfo[]> {
  const { rows: cols } = await sql<{ tbl: string; name: string; type: string; nn: number; dflt: string | null; pk: number; ddl: string }>`
    SELECT m.name AS tbl, p.name, p.type, p."notnull" AS nn, p.dflt_value AS dflt, p.pk, m.sql AS ddl
    FROM sqlite_master m JOIN pragma_table_info(m.name) p
    WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%'${onlyTables('m.name', only)} ORDER BY m.name, p.cid`.execute(db)
  const { rows: idx } = await sql<{ tbl: string; idx: string; uniq: number; col: string | null; ddl: string | null }>`
    SELECT m.name AS tbl, il.name AS idx, il."unique" AS uniq, ii.name AS col, s.sql AS ddl
    FROM sqlite_master m JOIN pragma_index_list(m.name) il JOIN pragma_index_info(il.name) ii
    LEFT JOIN sqlite_master s ON s.type = 'index' AND s.name = il.name
    WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%'${onlyTables('m.name', only)} ORDER BY m.name, il.name, ii.seqno`.execute(db)
  return assembleTables(
    cols.map((c) => ({ table: c.tbl, column: { name: c.name, type: c.type.toLowerCase(), notNull: c.nn === 1, defaultValue: c.dflt, primaryKey: c.pk > 0, autoIncrement: c.pk > 0 && /\bautoincrement\b/i.test(c.ddl) } })),
    idx.map((i) => ({ table: i.tbl, index: i.idx, unique: i.uniq === 1, method: 'btree', column: i.col ?? '', where: /\sWHERE\s([\s\S]*)$/i.exec(i.ddl ?? '')?.[1] ?? null })),
  )
}
