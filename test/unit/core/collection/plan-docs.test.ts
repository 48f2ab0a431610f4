// docs/bundle.md documents every artifact the collection plan collects, so a bundle's files can be read without the code.
import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, it} from 'node:test'
import {COLLECTION_PLAN} from '../../../../src/core/collection/plan.js'
import {REPO_ROOT} from '../../../support/golden.js'

describe('docs/bundle.md', () => {
  it('lists every collection plan artifact in its artifact table', () => {
    const doc = readFileSync(join(REPO_ROOT, 'docs/bundle.md'), 'utf8')
    const listed = new Set([...doc.matchAll(/^\| `([a-z0-9-]+)` \|/gm)].map((m) => m[1]))
    assert.deepEqual(COLLECTION_PLAN.map((p) => p.id).filter((id) => !listed.has(id)), [], 'plan artifacts missing from docs/bundle.md')
    assert.deepEqual([...listed].filter((id) => !COLLECTION_PLAN.some((p) => p.id === id)), [], 'artifacts in docs/bundle.md that the plan does not collect')
  })
})
