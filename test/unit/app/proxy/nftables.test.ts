// `proxy diff --mode nftables`'s rule diff: each kind of nftables difference as -/+ lines per Service port.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {nftRuleDiffByService} from '../../../../src/app/proxy/nftables.js'
import {renderRuleDiff} from '../../../../src/render/rule-diff.js'
import {expectGolden} from '../../../support/golden.js'

describe('proxy diff --mode nftables: the rule diff', () => {
  it('says each nftables difference as -/+ lines per Service port, table and chain, set or map named', () => {
    const diff = nftRuleDiffByService([
      {
        table: 'ip kube-proxy',
        differences: [
          {kind: 'missing-rule', chain: 'service-ULMVA6XW-ns1/svc1/tcp/p80', rule: 'ip daddr 172.30.0.41 tcp dport 80 jump mark-for-masquerade', group: 'ns1/svc1:p80'},
          {kind: 'extra-element', set: 'service-ips', element: '172.30.0.99 . tcp . 80 : goto service-OLD', group: 'ns9/gone:p80'},
          {kind: 'wrong-element', set: 'service-ips', key: '172.30.0.41 . tcp . 80', expected: 'goto service-ULMVA6XW-ns1/svc1/tcp/p80', actual: 'goto service-STALE', group: 'ns1/svc1:p80'},
          {kind: 'definition', object: 'chain filter-forward', detail: 'hook forward priority -110 (expected), -100 (found)'},
        ],
      },
    ])
    assert.deepEqual(diff.map((g) => g.service), [undefined, 'ns1/svc1:p80', 'ns9/gone:p80'])
    expectGolden('proxier/nftables/rule-diff.txt', renderRuleDiff(diff, {color: false, node: 'node-a'}))
  })
})
