// Golden files: compare text with a committed file; UPDATE_GOLDEN=1 rewrites it (then review the git diff).
import assert from 'node:assert/strict'
import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {dirname, isAbsolute, join} from 'node:path'
import {fileURLToPath} from 'node:url'

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
export const FIXTURES = join(REPO_ROOT, 'test', 'fixtures')

/** Path of a fixture file: relative paths are under test/fixtures. */
export function fixturePath(path: string): string {
  return isAbsolute(path) ? path : join(FIXTURES, path)
}

export function readFixture(path: string): string {
  return readFileSync(fixturePath(path), 'utf8')
}

/**
 * Asserts `actual` equals the golden file at `path` (relative to test/fixtures). A missing golden file fails: only
 * UPDATE_GOLDEN=1 writes one (then review the git diff), so a test can never pass by writing its own expectation.
 */
export function expectGolden(path: string, actual: string): void {
  const file = fixturePath(path)
  if (process.env.UPDATE_GOLDEN === '1') {
    mkdirSync(dirname(file), {recursive: true})
    writeFileSync(file, actual)
    return
  }
  if (!existsSync(file)) assert.fail(`golden file ${file} is missing: run with UPDATE_GOLDEN=1 to write it, then review it`)
  assert.equal(actual, readFileSync(file, 'utf8'), `output differs from golden file ${path} (UPDATE_GOLDEN=1 to accept)`)
}
