// The redirects file format: CSV with a header row or JSON lines, every field checked, every
// problem reported with its line number, defaults applied, and a file with any problem
// refused as a whole.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { formatOf, parseRedirects, RedirectsFileError } from '../../src/providers/redirects/redirect-rules.js'

const MTIME = new Date('2025-03-04T05:06:07.000Z')

const problems = (text: string, format: 'csv' | 'jsonl') => {
  try {
    parseRedirects(text, format, MTIME)
  } catch (err) {
    assert.ok(err instanceof RedirectsFileError, String(err))
    return err.problems
  }
  assert.fail('the file was accepted')
}

test('CSV: quoting, a byte-order mark, blank lines and defaults', () => {
  const text = '\uFEFFid,from,to,statusCode,enabled,updatedAt\n'
    + 'r1,/old,/new,308,no,2024-01-02T03:04:05+02:00\n\n'
    + 'r2,"/a,b",https://example.com/x?y=1,,,\n'
  assert.deepEqual(parseRedirects(text, 'csv', MTIME), [
    { id: 'r1', from: '/old', to: '/new', statusCode: 308, enabled: false, updatedAt: '2024-01-02T01:04:05.000Z' },
    { id: 'r2', from: '/a,b', to: 'https://example.com/x?y=1', statusCode: 301, enabled: true, updatedAt: MTIME.toISOString() },
  ])
  // Only the required columns; any column order.
  assert.deepEqual(parseRedirects('to,id,from\n/b,x,/a\n', 'csv', MTIME).map((r) => [r.id, r.from, r.to]), [['x', '/a', '/b']])
  assert.deepEqual(parseRedirects('', 'csv', MTIME), [])
})

test('CSV: each bad value is named with its line', () => {
  const text = 'id,from,to,statusCode,enabled,updatedAt\n'
    + 'ok,/a,/b,301,true,\n'
    + 'bad id,/c,/d,300,maybe,yesterday\n'
    + 'r3,c,//evil.example,,,\n'
    + 'ok,/e,/e,,,\n'
    + 'r5,/a,/z,,,\n'
    + 'r6,,,,,\n'
  assert.deepEqual(problems(text, 'csv'), [
    'line 3: id "bad id" must be 1 to 128 letters, digits or . _ ~ -',
    'line 3: statusCode must be one of 301, 302, 307, 308, got "300"',
    'line 3: enabled must be one of true, false, 1, 0, yes, no, on, off, got "maybe"',
    'line 3: updatedAt "yesterday" must be an ISO 8601 date or date-time with a time zone',
    'line 4: from "c" must be a path starting with / without spaces',
    'line 4: to "//evil.example" must be a path starting with / or an absolute http(s) URL, without spaces',
    'line 5: to redirects to itself',
    'line 6: from "/a" is already redirected on line 2',
    'line 7: from is required',
    'line 7: to is required',
  ])
  // A disabled duplicate source is allowed; a duplicate id never.
  assert.deepEqual(problems('id,from,to,enabled\nr1,/a,/b,true\nr2,/a,/c,false\nr1,/d,/e,true\n', 'csv'), ['line 4: id "r1" is already used on line 2'])
})

test('CSV: the header row and the record shape are checked', () => {
  assert.deepEqual(problems('id,from,target,stauts\n', 'csv'), [
    'line 1: unknown columns "target", "stauts"; columns are id, from, to, statusCode, enabled, updatedAt',
    'line 1: the header row has no to column',
  ])
  assert.deepEqual(problems('id,from,to\nr1,/a,/b\nr2,/c\n', 'csv'), ['line 3: Invalid Record Length: expect 3, got 2'])
  assert.match(problems('id,from,to\nr1,"/a,/b\n', 'csv')[0], /^line 2: Quote Not Closed/)
})

test('JSON lines: types are kept, never coerced; unknown fields are refused', () => {
  const text = '{"id":"r1","from":"/a","to":"/b","statusCode":302,"enabled":false,"updatedAt":"2024-05-06T07:08:09Z"}\n\n{"id":"r2","from":"/c","to":"/d"}\n'
  assert.deepEqual(parseRedirects(text, 'jsonl', MTIME), [
    { id: 'r1', from: '/a', to: '/b', statusCode: 302, enabled: false, updatedAt: '2024-05-06T07:08:09.000Z' },
    { id: 'r2', from: '/c', to: '/d', statusCode: 301, enabled: true, updatedAt: MTIME.toISOString() },
  ])
  const bad = '{"id":"r1","from":"/a","to":"/b","statusCode":"301","enabled":"yes"}\n[1]\n{"id":"r3",\n{"id":7,"from":"/x","to":"/y","code":1}\n'
  assert.deepEqual(problems(bad, 'jsonl'), [
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
