// Reading a large redirects file without stalling the server: decoding and CSV parsing run
// in slices with a turn of the event loop between them, so requests keep being answered
// while a 100,000-row file is reloaded (test/providers/redirects-reload.test.ts measures it).
// A synchronous parse of such a file held the process for 0.85 s and more.
import { setImmediate as nextTurn } from 'node:timers/promises'
import { parse as csvParser, type CsvError } from 'csv-parse'

/** Characters (or bytes) handled between two turns of the event loop. */
const SLICE = 8 * 1024
/** Rows checked between two turns of the event loop. */
export const ROWS_PER_TURN = 500

export { nextTurn }

/**
 * The file's text; a file that is not UTF-8 is refused with the number of every line holding
 * an invalid sequence (decoding it anyway would serve U+FFFD in place of the bytes).
 */
export async function decodeUtf8(bytes: Uint8Array): Promise<{ text: string } | { badLines: number[] }> {
  const decoder = new TextDecoder('utf-8', { fatal: true })
  let text = ''
  try {
    for (let i = 0; i < bytes.length; i += SLICE) {
      text += decoder.decode(bytes.subarray(i, i + SLICE), { stream: i + SLICE < bytes.length })
      await nextTurn()
    }
    if (bytes.length === 0) text = decoder.decode(bytes)
    return { text }
  } catch {
    return { badLines: await invalidLines(bytes) }
  }
}

/** Lines (from 1) with a byte sequence that is not UTF-8. Only read for a refused file. */
async function invalidLines(bytes: Uint8Array): Promise<number[]> {
  const lines: number[] = []
  const check = new TextDecoder('utf-8', { fatal: true })
  let start = 0
  let line = 1
  while (start <= bytes.length) {
    let end = bytes.indexOf(0x0a, start)
    if (end < 0) end = bytes.length
    try {
      check.decode(bytes.subarray(start, end))
    } catch {
      lines.push(line)
    }
    start = end + 1
    line++
    if (line % ROWS_PER_TURN === 0) await nextTurn()
  }
  return lines
}

export interface CsvRecord {
  readonly record: string[]
  readonly info: { readonly lines: number }
}

/** csv-parse's streaming parser, fed a slice per turn of the event loop. */
export async function csvRecords(text: string): Promise<CsvRecord[]> {
  const records: CsvRecord[] = []
  let failure: CsvError | undefined
  const parser = csvParser({ bom: true, info: true, skip_empty_lines: true, trim: true, relax_column_count: false })
  parser.on('readable', () => {
    let r: CsvRecord | null
    while ((r = parser.read() as CsvRecord | null) !== null) records.push(r)
  })
  const ended = new Promise<void>((resolve) => {
    parser.on('end', resolve)
    parser.on('error', (err: CsvError) => { failure = err; resolve() })
  })
  for (let i = 0; i < text.length && failure === undefined;) {
    // Never between the halves of a surrogate pair: the parser encodes each slice on its own.
    let end = Math.min(text.length, i + SLICE)
    if (end < text.length && /[\uD800-\uDBFF]/.test(text[end - 1])) end--
    parser.write(text.slice(i, end))
    i = end
    await nextTurn()
  }
  if (failure === undefined) parser.end()
  await ended
  if (failure !== undefined) throw failure
  return records
}
