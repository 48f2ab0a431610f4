// Input generators and the invariant shared by the parser fuzz tests: a parser either returns a model or throws a
// ParseError with a usable line number and message, quickly, for any input.
import assert from 'node:assert/strict'
import fc from 'fast-check'
import {ParseError} from '../../../../src/errors.js'

const NASTY = ['', ' ', '\t', '\r', '\r\n', '\n', '\x00', '\x1b[31m', '\ufffd', '\ufeff', '{', '}', '[', ']', '"', ':', '.', '/', '-', ',', ';', '#', '\\', '@', '0', '-1', '4294967296', '99999999999999999999', 'NaN', 'null']

/** Any string, biased toward characters and tokens that matter to line-oriented parsers. */
export function anyText(tokens: readonly string[]): fc.Arbitrary<string> {
  const piece = fc.oneof(
    {weight: 3, arbitrary: fc.constantFrom(...tokens)},
    {weight: 2, arbitrary: fc.constantFrom(...NASTY)},
    {weight: 1, arbitrary: fc.string({maxLength: 12})},
    {weight: 1, arbitrary: fc.string({unit: 'binary', maxLength: 6})},
  )
  const line = fc.array(piece, {maxLength: 14}).map((p) => p.join(' '))
  return fc.array(line, {maxLength: 30}).map((ls) => ls.join('\n'))
}

type Mutation =
  | {kind: 'truncate'; at: number}
  | {kind: 'dropLine'; at: number}
  | {kind: 'dupLine'; at: number}
  | {kind: 'swapLines'; a: number; b: number}
  | {kind: 'insert'; at: number; text: string}
  | {kind: 'replaceToken'; at: number; text: string}
  | {kind: 'crlf'}
  | {kind: 'deleteRange'; at: number; len: number}

function applyMutation(text: string, m: Mutation): string {
  const lines = text.split('\n')
  const li = (k: number): number => (lines.length === 0 ? 0 : k % lines.length)
  switch (m.kind) {
    case 'truncate':
      return text.slice(0, m.at % (text.length + 1))
    case 'dropLine':
      lines.splice(li(m.at), 1)
      return lines.join('\n')
    case 'dupLine':
      lines.splice(li(m.at), 0, lines[li(m.at)] ?? '')
      return lines.join('\n')
    case 'swapLines': {
      const [a, b] = [li(m.a), li(m.b)]
      ;[lines[a], lines[b]] = [lines[b] ?? '', lines[a] ?? '']
      return lines.join('\n')
    }
    case 'insert': {
      const at = m.at % (text.length + 1)
      return text.slice(0, at) + m.text + text.slice(at)
    }
    case 'replaceToken': {
      const toks = text.split(/(\s+)/)
      const words = toks.map((t, i) => [t, i] as const).filter(([t]) => t.trim() !== '')
      if (words.length === 0) return text
      toks[words[m.at % words.length]![1]] = m.text
      return toks.join('')
    }
    case 'crlf':
      return text.replaceAll('\n', '\r\n')
    case 'deleteRange': {
      const at = m.at % (text.length + 1)
      return text.slice(0, at) + text.slice(at + m.len)
    }
  }
}

/** A real fixture damaged by 1–4 random edits: truncation, dropped/duplicated/swapped lines, junk, token swaps. */
export function mutated(seeds: readonly string[], tokens: readonly string[]): fc.Arbitrary<string> {
  const nat = fc.nat({max: 1_000_000})
  const junk = fc.oneof(fc.constantFrom(...tokens, ...NASTY), fc.string({maxLength: 10}), fc.string({unit: 'binary', maxLength: 4}))
  const mutation: fc.Arbitrary<Mutation> = fc.oneof(
    nat.map((at) => ({kind: 'truncate' as const, at})),
    nat.map((at) => ({kind: 'dropLine' as const, at})),
    nat.map((at) => ({kind: 'dupLine' as const, at})),
    fc.tuple(nat, nat).map(([a, b]) => ({kind: 'swapLines' as const, a, b})),
    fc.tuple(nat, junk).map(([at, text]) => ({kind: 'insert' as const, at, text})),
    fc.tuple(nat, junk).map(([at, text]) => ({kind: 'replaceToken' as const, at, text})),
    fc.constant({kind: 'crlf' as const}),
    fc.tuple(nat, fc.nat({max: 40})).map(([at, len]) => ({kind: 'deleteRange' as const, at, len})),
  )
  return fc.tuple(fc.constantFrom(...seeds), fc.array(mutation, {minLength: 1, maxLength: 4})).map(([seed, ms]) => ms.reduce(applyMutation, seed))
}

/**
 * Runs `parse` on `text`: success is fine (then `check` may assert invariants on the result); a throw must be a
 * ParseError whose line is within the input and whose message is a non-empty sentence. Anything slower than a
 * second is treated as a hang.
 */
export function parsesOrFailsCleanly<T>(parse: (text: string) => T, text: string, check?: (result: T) => void): void {
  const started = performance.now()
  let result: T | undefined
  try {
    result = parse(text)
  } catch (err) {
    if (!(err instanceof ParseError)) {
      assert.fail(`threw ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)} instead of a ParseError for input ${JSON.stringify(text.slice(0, 300))}`)
    }
    const lines = text.split(/\r\n|\n|\r/).length
    assert.ok(err.line !== undefined && Number.isInteger(err.line) && err.line >= 1 && err.line <= lines + 1, `line ${err.line} outside 1..${lines + 1}: ${err.message}`)
    assert.ok(err.message.length > 5 && !err.message.includes('undefined'), `unhelpful message: ${err.message}`)
  }
  const ms = performance.now() - started
  assert.ok(ms < 1000, `took ${ms.toFixed(0)} ms on input ${JSON.stringify(text.slice(0, 200))}`)
  if (result !== undefined && check) check(result)
}

/** Runs per property; several properties per parser make thousands of inputs in all. */
export const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? 1500)

/** Runs `fn` and returns the ParseError it throws; fails the test if it returns or throws anything else. */
export function parseError(fn: () => unknown): ParseError {
  try {
    fn()
  } catch (err) {
    if (err instanceof ParseError) return err
    throw err
  }
  assert.fail('expected a ParseError')
}
