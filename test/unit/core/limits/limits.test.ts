// Core reads no environment: the limits in force are the defaults until the command layer says where they come
// from (src/cli/base-command.ts passes NODE_DOCTOR_MAX_* through configureLimits); test/e2e/hostile-bundles.test.ts
// shows the CLI honouring a variable end to end.
import assert from 'node:assert/strict'
import {afterEach, describe, it} from 'node:test'
import {configureLimits, DEFAULT_LIMITS, limitMessage, limits, limitsFromEnv, resetLimits} from '../../../../src/core/limits/limits.js'

const MiB = 1024 * 1024

describe('limits in force', () => {
  afterEach(() => resetLimits())

  it('are the defaults while nothing is configured, whatever process.env holds', () => {
    process.env.NODE_DOCTOR_MAX_ARTIFACT_BYTES = '1Mi'
    try {
      resetLimits()
      assert.deepEqual(limits(), DEFAULT_LIMITS)
    } finally {
      delete process.env.NODE_DOCTOR_MAX_ARTIFACT_BYTES
    }
  })

  it('come from the configured source, read once at the first use', () => {
    let reads = 0
    configureLimits(() => (reads++, limitsFromEnv({NODE_DOCTOR_MAX_NODE_BYTES: '3Mi'})))
    assert.equal(reads, 0, 'not read before use')
    assert.equal(limits().nodeBytes, 3 * MiB)
    assert.equal(limits().artifactBytes, DEFAULT_LIMITS.artifactBytes)
    assert.equal(reads, 1)
    assert.equal(limitMessage('the output', 'nodeBytes'), 'the output exceeds the limit of 3 MiB (NODE_DOCTOR_MAX_NODE_BYTES)')
  })

  it('a bad variable fails at the first use, not when configured', () => {
    configureLimits(() => limitsFromEnv({NODE_DOCTOR_MAX_DOCUMENT_DEPTH: 'deep'}))
    assert.throws(() => limits(), /NODE_DOCTOR_MAX_DOCUMENT_DEPTH="deep" is not a size/)
  })
})
