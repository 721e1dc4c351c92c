// LIKE patterns tested in JavaScript (provider items): the grammar's results, ignoring case, and
// runs of wildcards that a regular expression backtracked on for seconds (a provider filter of
// nine `*` held the event loop; with ten, minutes) answered at once.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { likeMatches } from '../../src/kernel/like-match.js'
import { likePattern } from '../../src/kernel/path-test.js'

test('the LIKE grammar: % any run, _ one character, \\ escapes, case ignored', () => {
  const cases: [string, string, boolean][] = [
    ['abc', 'abc', true], ['abc', 'ABC', true], ['abc', 'abcd', false], ['a%', 'abc', true], ['%c', 'abc', true],
    ['%b%', 'abc', true], ['%x%', 'abc', false], ['a_c', 'abc', true], ['a_c', 'ac', false], ['%', '', true], ['_', '', false],
    ['a%b%c', 'a-b-b-c', true], ['a%b%c', 'a-c-b', false], ['%%%a', 'bba', true], ['\\%', '%', true], ['\\%', 'a', false],
    ['\\_', '_', true], ['\\_', 'a', false], ['\\\\', '\\', true], ['%é%', 'CAFÉ', true], ['_', '😀', true], ['ΟΔΟΣ%', 'οδος μεγαλη', true],
  ]
  for (const [pattern, text, expected] of cases) assert.equal(likeMatches(pattern, text), expected, `${pattern} ~ ${text}`)
  // As filters write them: `*` wildcards, `~` contains, the rest literal.
  assert.equal(likeMatches(likePattern('50%_off*', { contains: false, wildcard: true }), '50%_OFF today'), true)
  assert.equal(likeMatches(likePattern('50%_off*', { contains: false, wildcard: true }), '50x_off today'), false)
  assert.equal(likeMatches(likePattern('b*d', { contains: true, wildcard: false }), 'a b*d c'), true)
})

test('runs of wildcards that fail to match end at once (no backtracking blow-up)', () => {
  const text = 'x'.repeat(5_000)
  for (const stars of [9, 12, 40]) {
    assert.equal(likeMatches(likePattern(`${'*'.repeat(stars)}Z`, { contains: false, wildcard: true }), text), false)
    assert.equal(likeMatches(likePattern(`${'*x'.repeat(stars)}Z`, { contains: false, wildcard: true }), text), false)
  }
  assert.equal(likeMatches(likePattern('*x*x*x*', { contains: false, wildcard: true }), text), true)
})
