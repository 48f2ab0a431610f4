// The IPVS diff's real-server rules: a weight-0 real server kube-proxy no longer uses is draining (GracefulDeleteRS,
// pkg/proxy/ipvs/graceful_termination.go) and accepted; an expected one is required at weight 1. The node's state is
// a real `ipvsadm -Sn` text (test/fixtures/proxier/ipvs/categorize/node-ipvsadm.txt).
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {diffIpvs} from '../../../../src/core/diff/ipvs.js'
import {parseIpvsadm} from '../../../../src/core/parse/ipvsadm.js'
import {formatIpvsadmSave} from '../../../../src/core/proxier/ipvs/generate.js'
import {readFixture} from '../../../support/golden.js'
import {renderIpvsCase} from '../proxier/ipvs/helpers.js'

describe('IPVS diff: real servers', () => {
  const state = renderIpvsCase('categorize')

  it('a node showing exactly the rendered real servers has no difference', () => {
    assert.deepEqual(diffIpvs(state, {ipvs: parseIpvsadm(formatIpvsadmSave(state))}), [])
  })

  it('accepts draining weight-0 real servers, and reports missing, extra (weight > 0) and stuck-at-0 ones', () => {
    const diff = diffIpvs(state, {ipvs: parseIpvsadm(readFixture('proxier/ipvs/categorize/node-ipvsadm.txt'))})
    assert.deepEqual(
      diff.map((d) => ({...d})),
      [
        {kind: 'wrong-weight', vs: 'TCP 172.30.12.3:80', rs: '10.0.2.5:8080', expected: 1, actual: 0, group: 'cat/no-local:http'},
        {kind: 'extra-real-server', vs: 'TCP 172.30.12.6:80', rs: '10.0.2.11:8080', weight: 1, group: 'cat/none-usable:http'},
        {kind: 'missing-real-server', vs: 'TCP 192.168.0.2:30121', rs: '10.0.1.1:8080', group: 'cat/mixed:http'},
      ],
    )
    // The three weight-0 real servers kube-proxy does not use (10.0.2.3, 10.0.2.9, 10.0.2.6) are not differences.
    assert.ok(!diff.some((d) => 'rs' in d && ['10.0.2.3:8080', '10.0.2.9:8080', '10.0.2.6:8080'].includes(d.rs)))
  })
})
