// stillBroken: after a repair verified on a node, the other findings that still break a Service the repaired
// findings broke. Findings carry impact as core/impact attaches it.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import type {Finding, FindingImpact} from '../../../../src/core/model/report.js'
import {stillBroken, stillBrokenLines} from '../../../../src/core/why/remaining.js'

function finding(id: string, node: string, impact?: FindingImpact): Finding {
  return {id, node, area: 'routes', severity: 'error', message: `${id} message`, subject: {kind: 'route', name: 'x'}, evidence: [], remedy: 'r', ...(impact ? {impact} : {})}
}
const web = (lost: string[]): FindingImpact => ({summary: 's', services: [{service: 'shop/web', endpoints: lost, total: 3}]})
const dns = (lost: string[]): FindingImpact => ({summary: 's', services: [{service: 'kube-system/kube-dns', endpoints: lost, total: 2}]})

describe('stillBroken', () => {
  it('names the Services the repair touched that another finding on the node still breaks', () => {
    const repaired = [finding('IPT-003', 'node-a', web(['10.244.1.10']))]
    const now = [finding('RT-001', 'node-a', {summary: 's', services: [...web(['10.244.2.10']).services, ...dns(['10.244.2.2']).services]}), finding('RT-001', 'node-b', web(['10.244.1.10']))]
    const out = stillBroken(repaired, now, 'node-a')
    assert.deepEqual(out.map((b) => [b.service, b.findings.map((f) => `${f.id}@${f.node}`)]), [['shop/web', ['RT-001@node-a']]])
    assert.deepEqual(stillBrokenLines('node-a', out), [
      'node-a: shop/web is still broken from node-a after the repair: RT-001 RT-001 message (see `kubectl node-doctor why svc/shop/web --from node-a`)',
    ])
  })

  it('a repair of everything (a missing hook) makes every remaining Service count', () => {
    const repaired = [finding('IPT-008', 'node-a', {summary: 'every Service', services: [], all: true})]
    assert.deepEqual(stillBroken(repaired, [finding('RT-001', 'node-a', dns(['10.244.2.2']))], 'node-a').map((b) => b.service), ['kube-system/kube-dns'])
  })

  it('says nothing when nothing else breaks them, or the repair broke no Service', () => {
    assert.deepEqual(stillBroken([finding('IPT-003', 'node-a', web(['1']))], [finding('RT-004', 'node-a')], 'node-a'), [])
    assert.deepEqual(stillBroken([finding('PROXY-006', 'node-a')], [finding('RT-001', 'node-a', web(['1']))], 'node-a'), [])
  })
})
