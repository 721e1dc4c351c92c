// The redirects file format: CSV with a header row or JSON lines, every field checked, every
// problem reported with its line number, defaults applied, and a file with any problem
// refused as a whole.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { formatOf, parseRedirects, RedirectsFileError, redirectsText } from '../../src/providers/redirects/redirect-rules.js'

const MTIME = new Date('2025-03-04T05:06:07.000Z')

const problems = async (text: string, format: 'csv' | 'jsonl') => {
  try {
    await parseRedirects(text, format, MTIME)
  } catch (err) {
    assert.ok(err instanceof RedirectsFileError, String(err))
    return err.problems
  }
  assert.fail('the file was accepted')
}

test('CSV: quoting, a byte-order mark, blank lines and defaults', async () => {
  const text = '\uFEFFid,from,to,statusCode,enabled,updatedAt\n'
    + 'r1,/old,/new,308,no,2024-01-02T03:04:05+02:00\n\n'
    + 'r2,"/a,b",https://example.com/x?y=1,,,\n'
  assert.deepEqual(await parseRedirects(text, 'csv', MTIME), [
    { id: 'r1', from: '/old', to: '/new', statusCode: 308, enabled: false, updatedAt: '2024-01-02T01:04:05.000Z' },
    { id: 'r2', from: '/a,b', to: 'https://example.com/x?y=1', statusCode: 301, enabled: true, updatedAt: MTIME.toISOString() },
  ])
  // Only the required columns; any column order.
  assert.deepEqual((await parseRedirects('to,id,from\n/b,x,/a\n', 'csv', MTIME)).map((r) => [r.id, r.from, r.to]), [['x', '/a', '/b']])
  assert.deepEqual(await parseRedirects('', 'csv', MTIME), [])
})

test('CSV: each bad value is named with its line', async () => {
  const text = 'id,from,to,statusCode,enabled,updatedAt\n'
    + 'ok,/a,/b,301,true,\n'
    + 'bad id,/c,/d,300,maybe,yesterday\n'
    + 'r3,c,//evil.example,,,\n'
    + 'ok,/e,/e,,,\n'
    + 'r5,/a,/z,,,\n'
    + 'r6,,,,,\n'
  assert.deepEqual(await problems(text, 'csv'), [
    'line 3: id "bad id" must be 1 to 128 letters, digits or . _ ~ -',
    'line 3: statusCode must be one of 301, 302, 307, 308, got "300"',
    'line 3: enabled must be one of true, false, 1, 0, yes, no, on, off, got "maybe"',
    'line 3: updatedAt "yesterday" must be an ISO 8601 date or date-time with a time zone',
    'line 4: from "c" must be a path starting with / without spaces',
    'line 4: to "//evil.example" must be a path starting with / or an absolute http(s) URL, without spaces, backslashes or control characters',
    'line 5: to redirects to itself',
    'line 6: from "/a" is already redirected on line 2',
    'line 7: from is required',
    'line 7: to is required',
  ])
  // A disabled duplicate source is allowed; a duplicate id never.
  assert.deepEqual(await problems('id,from,to,enabled\nr1,/a,/b,true\nr2,/a,/c,false\nr1,/d,/e,true\n', 'csv'), ['line 4: id "r1" is already used on line 2'])
})

test('CSV: the header row and the record shape are checked', async () => {
  assert.deepEqual(await problems('id,from,target,stauts\n', 'csv'), [
    'line 1: unknown columns "target", "stauts"; columns are id, from, to, statusCode, enabled, updatedAt',
    'line 1: the header row has no to column',
  ])
  assert.deepEqual(await problems('id,from,to\nr1,/a,/b\nr2,/c\n', 'csv'), ['line 3: Invalid Record Length: expect 3, got 2'])
  assert.match((await problems('id,from,to\nr1,"/a,/b\n', 'csv'))[0], /^line 2: Quote Not Closed/)
})

test('JSON lines: types are kept, never coerced; unknown fields are refused', async () => {
  const text = '{"id":"r1","from":"/a","to":"/b","statusCode":302,"enabled":false,"updatedAt":"2024-05-06T07:08:09Z"}\n\n{"id":"r2","from":"/c","to":"/d"}\n'
  assert.deepEqual(await parseRedirects(text, 'jsonl', MTIME), [
    { id: 'r1', from: '/a', to: '/b', statusCode: 302, enabled: false, updatedAt: '2024-05-06T07:08:09.000Z' },
    { id: 'r2', from: '/c', to: '/d', statusCode: 301, enabled: true, updatedAt: MTIME.toISOString() },
  ])
  const bad = '{"id":"r1","from":"/a","to":"/b","statusCode":"301","enabled":"yes"}\n[1]\n{"id":"r3",\n{"id":7,"from":"/x","to":"/y","code":1}\n'
  assert.deepEqual(await problems(bad, 'jsonl'), [
    'line 1: statusCode must be one of 301, 302, 307, 308, got "301"',
    'line 1: enabled must be true or false, got "yes"',
    'line 2: expected a JSON object',
    'line 3: not valid JSON',
    'line 4: unknown field "code"; fields are id, from, to, statusCode, enabled, updatedAt',
    'line 4: id must be a string, got 7',
  ])
})

test('the format follows the extension, else the first character', () => {
  assert.equal(formatOf('/x/redirects.csv', '{'), 'csv')
  assert.equal(formatOf('/x/redirects.jsonl', 'id,from'), 'jsonl')
  assert.equal(formatOf('/x/redirects.ndjson', ''), 'jsonl')
  assert.equal(formatOf('/x/redirects.txt', '\uFEFF  {"id":"a"}'), 'jsonl')
  assert.equal(formatOf('/x/redirects', 'id,from,to'), 'csv')
})

test('targets a browser reads as another host are refused: a backslash after the slash, tabs and line breaks', async () => {
  const rows = ['/\\evil.example/', '/\\/evil.example', '/ok\\path', 'https://shop.example\\@evil.example/', '/\t/evil.example']
  const text = ['id,from,to', ...rows.map((to, i) => `r${i},/from/${i},"${to}"`)].join('\n') + '\n'
  assert.deepEqual(await problems(text, 'csv'), rows.map((to, i) =>
    `line ${i + 2}: to "${to}" must be a path starting with / or an absolute http(s) URL, without spaces, backslashes or control characters`))
  // JSON lines likewise, and a plain local path is still accepted.
  assert.deepEqual(await problems('{"id":"a","from":"/a","to":"/\\\\evil.example/"}\n', 'jsonl'), [
    'line 1: to "/\\evil.example/" must be a path starting with / or an absolute http(s) URL, without spaces, backslashes or control characters',
  ])
  assert.equal((await parseRedirects('id,from,to\na,/a,/b/c\n', 'csv', MTIME)).length, 1)
})

test('a file that is not UTF-8 is refused naming each line with an invalid sequence', async () => {
  const bytes = Buffer.concat([
    Buffer.from('id,from,to\nr1,/a,/b\nr2,/c,/caf'), Buffer.from([0xe9]), Buffer.from('\nr3,/d,/\u00e9t\u00e9\nr4,/e,/'), Buffer.from([0xc3, 0x28]), Buffer.from('\n'),
  ])
  await assert.rejects(redirectsText(bytes), (err: unknown) => err instanceof RedirectsFileError
    && assert.deepEqual(err.problems, ['line 3: not valid UTF-8', 'line 5: not valid UTF-8']) === undefined
    && err.summary === 'the file is refused: 2 problems, on lines 3, 5 (the server log names each)')
  // Valid multi-byte text (and a byte-order mark) passes, also across the decoder's slices.
  const long = '\uFEFFid,from,to\n' + Array.from({ length: 3000 }, (_, i) => `r${i},/\u00e9${i},/\u{1F600}${i}`).join('\n') + '\n'
  const text = await redirectsText(Buffer.from(long))
  const rules = await parseRedirects(text, 'csv', MTIME)
  assert.equal(rules.length, 3000)
  assert.deepEqual([rules[2999].from, rules[2999].to], ['/\u00e92999', '/\u{1F600}2999'])
})
