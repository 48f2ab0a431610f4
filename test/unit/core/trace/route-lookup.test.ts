// The kernel's route lookup over real `ip -d route show table all` captures from Calico nodes built in network
// namespaces (test/fixtures/checks/routes/*, made by scripts/make-route-dns-fixtures.ts; IP plan in
// test/support/calico-dns-builders.ts: node-a 192.168.0.11 block 10.244.1.0/26, node-b 192.168.0.12 block 10.244.2.0/26).
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {parseRoutes} from '../../../../src/core/parse/routes.js'
import {indexRoutes} from '../../../../src/core/trace/route-lookup.js'
import {readFixture} from '../../../support/golden.js'

const routesOf = (scenario: string) => indexRoutes(parseRoutes(readFixture(`checks/routes/${scenario}/nodes/node-a/ip-route.txt`)).routes)

describe('indexRoutes().lookup', () => {
  it('healthy IPIP node: pod /32 to its cali interface, the remote block through tunl0, own addresses local, else default', () => {
    const r = routesOf('healthy-ipip')
    const pod = r.lookup('10.244.1.5')
    assert.deepEqual([pod.kind, pod.devices, pod.route?.dst], ['unicast', ['cali1111111111a'], '10.244.1.5/32'])
    const remote = r.lookup('10.244.2.10')
    assert.deepEqual([remote.kind, remote.devices, remote.gateway, remote.route?.dst], ['unicast', ['tunl0'], '192.168.0.12', '10.244.2.0/26'])
    assert.equal(r.lookup('192.168.0.11').kind, 'local', 'the local table is consulted before main')
    assert.equal(r.lookup('10.244.1.0').kind, 'local')
    assert.deepEqual([r.lookup('192.168.0.12').route?.dst, r.lookup('192.168.0.12').devices], ['192.168.0.0/24', ['eth0']])
    const out = r.lookup('8.8.8.8')
    assert.deepEqual([out.route?.dst, out.gateway], ['0.0.0.0/0', '192.168.0.1'])
  })

  it('an address of the own block without a pod route hits the blackhole; a missing block route falls to the default', () => {
    assert.deepEqual([routesOf('healthy-ipip').lookup('10.244.1.9').kind, routesOf('healthy-ipip').lookup('10.244.1.9').route?.type], ['reject', 'blackhole'])
    assert.equal(routesOf('pod-route-missing').lookup('10.244.1.6').kind, 'reject')
    const lost = routesOf('missing-route').lookup('10.244.2.10')
    assert.deepEqual([lost.kind, lost.route?.dst, lost.devices], ['unicast', '0.0.0.0/0', ['eth0']])
  })

  it('VXLAN node: the remote block through vxlan.calico', () => {
    const v = routesOf('healthy-vxlan').lookup('10.244.2.10')
    assert.deepEqual([v.devices, v.gateway], [['vxlan.calico'], '10.244.2.0'])
  })

  it('lowest metric wins among equal prefixes; throw falls through to the next table; other tables are named, not used', () => {
    const r = indexRoutes(
      parseRoutes(
        [
          '10.1.0.0/16 via 192.168.0.2 dev eth1 metric 200',
          '10.1.0.0/16 via 192.168.0.1 dev eth0 metric 100',
          'throw 10.9.0.0/16 table local',
          '10.9.0.0/16 dev eth2 scope link',
          '10.5.0.0/16 dev wg0 table 200 scope link',
        ].join('\n') + '\n',
      ).routes,
    )
    assert.equal(r.lookup('10.1.2.3').gateway, '192.168.0.1')
    assert.deepEqual(r.lookup('10.9.1.1').devices, ['eth2'])
    const none = r.lookup('10.5.0.1')
    assert.equal(none.kind, 'none')
    assert.match(none.notes.join(), /table 200 are not consulted/)
  })
})
