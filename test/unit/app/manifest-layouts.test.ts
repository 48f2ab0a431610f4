// `agent manifests --layout` values (src/app/manifest-layouts.ts): as a run's layout scope lists its layouts.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {LAYOUT_NAMES, manifestLayouts} from '../../../src/app/manifest-layouts.js'
import {KNOWN_LAYOUTS} from '../../../src/core/layout/known-layouts.js'

describe('manifestLayouts', () => {
  it('distinct and sorted; none given is every layout (undefined)', () => {
    assert.deepEqual(manifestLayouts(['kubeadm', 'k3s', 'kubeadm']), ['k3s', 'kubeadm'])
    assert.equal(manifestLayouts(undefined), undefined)
    assert.equal(manifestLayouts([]), undefined)
    assert.deepEqual(LAYOUT_NAMES, KNOWN_LAYOUTS.map((l) => l.distribution))
  })

  it('an unknown name is a usage error listing the known ones', () => {
    assert.throws(() => manifestLayouts(['k3s', 'openshift']), {name: 'UsageError', message: 'unknown layout "openshift"'})
  })
})
