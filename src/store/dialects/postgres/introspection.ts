// PostgreSQL's tables, columns and indexes in the current schema, read from the catalogue.
import { sql } from 'kysely'
import type { Db } from '../db.js'
import { assembleTables, onlyTables, type TableInfo } from '../table-info.js'

export async function describePostgresTables(db: Db, only?: readonly string[]): Promise<TableInfo[]> {
  const { rows: cols } = await sql<{ tbl: string; name: string; type: string; notnull: boolean; dflt: string | null }>`
    SELECT c.relname AS tbl, a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS notnull,
      pg_get_expr(d.adbin, d.adrelid) AS dflt
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
    LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
    WHERE n.nspname = current_schema() AND c.relkind = 'r'${onlyTables('c.relname', only)} ORDER BY c.relname, a.attnum`.execute(db)
  const { rows: idx } = await sql<{ tbl: string; idx: string; uniq: boolean; pk: boolean; col: string; pred: string | null; method: string }>`
    SELECT t.relname AS tbl, i.relname AS idx, x.indisunique AS uniq, x.indisprimary AS pk,
      pg_get_indexdef(x.indexrelid, k.n, true) AS col, pg_get_expr(x.indpred, x.indrelid) AS pred, am.amname AS method
    FROM pg_index x JOIN pg_class t ON t.oid = x.indrelid JOIN pg_class i ON i.oid = x.indexrelid
    JOIN pg_am am ON am.oid = i.relam
    JOIN pg_namespace n ON n.oid = t.relnamespace
    CROSS JOIN LATERAL generate_series(1, x.indnkeyatts) AS k(n)
    WHERE n.nspname = current_schema() AND t.relkind = 'r'${onlyTables('t.relname', only)} ORDER BY t.relname, i.relname, k.n`.execute(db)
  const primary = new Set(idx.filter((i) => i.pk).map((i) => `${i.tbl}.${i.col}`))
  return assembleTables(
    cols.map((c) => ({ table: c.tbl, column: { name: c.name, type: c.type.toLowerCase(), notNull: c.notnull, defaultValue: c.dflt, primaryKey: primary.has(`${c.tbl}.${c.name}`), autoIncrement: (c.dflt ?? '').startsWith('nextval(') } })),
    idx.map((i) => ({ table: i.tbl, index: i.idx, unique: i.uniq, method: i.method, column: i.col.replace(/^"(.*)"$/, '$1'), where: i.pred })),
  )
}
