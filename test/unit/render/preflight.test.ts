// preflight's one-screen summary: its verdict follows --fail-on, as the exit code beside it does.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {buildReport} from '../../../src/core/model/report.js'
import {exitCodeForReport} from '../../../src/exit-codes.js'
import {renderPreflightSummary} from '../../../src/render/preflight.js'
import {SAMPLE_METADATA} from '../../support/sample-reports.js'

const warningsOnly = buildReport({
  metadata: SAMPLE_METADATA,
  nodes: [{name: 'n1'}],
  findings: [{id: 'KUBELET-012', node: 'n1', area: 'kubelet', severity: 'warning', message: 'm', subject: {kind: 'field', name: 'x'}, evidence: [], remedy: 'r'}],
})

describe('preflight summary', () => {
  it('a warnings-only run: WARNINGS with exit 0 by default, UNHEALTHY with exit 1 under --fail-on warning', () => {
    for (const [failOn, line] of [
      ['error', 'node-doctor preflight: WARNINGS (exit 0, --fail-on error)'],
      ['warning', 'node-doctor preflight: UNHEALTHY (exit 1, --fail-on warning)'],
    ] as const) {
      const text = renderPreflightSummary(warningsOnly, {exitCode: exitCodeForReport(warningsOnly, failOn), failOn, written: []})
      assert.equal(text.split('\n')[0], line)
    }
  })
})
