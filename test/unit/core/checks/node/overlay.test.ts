// The overlay/underlay lookups NODE-005 and NODE-007 share, on the real `ip -j -d link` / `ip -j addr` captures of
// test/fixtures/checks/node/rp-mtu-ok (scripts/make-node-prereq-fixtures.ts; tunl0 is a veth stand-in there).
import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, it} from 'node:test'
import {interfaceWithAddress, overlayDevices} from '../../../../../src/core/checks/node/overlay.js'
import {parseLinks} from '../../../../../src/core/parse/links.js'
import {FIXTURES} from '../../../../support/golden.js'

const read = (id: string) => parseLinks(readFileSync(join(FIXTURES, 'checks', 'node', 'rp-mtu-ok', 'nodes', 'node-a', `${id}.txt`), 'utf8'))

describe('overlay devices and the underlay address', () => {
  it('finds tunl0 by name (whatever its kind) and vxlan.calico, with their overheads; plain veths are not overlays', () => {
    const found = overlayDevices(read('ip-link')).map((o) => [o.iface.name, o.encapsulation, o.overhead, o.iface.vxlan?.dev ?? ''])
    assert.deepEqual(found, [
      ['tunl0', 'ipip', 20, ''],
      ['vxlan.calico', 'vxlan', 50, 'eth0'],
    ])
  })

  it('matches an address in any spelling (IPv6 compared in RFC 5952 form)', () => {
    const addrs = read('ip-addr')
    assert.equal(interfaceWithAddress(addrs, '192.168.0.2')?.name, 'eth0')
    assert.equal(interfaceWithAddress(addrs, 'FE80:0:0:0:0:FF:FE00:101')?.name, 'eth0')
    assert.equal(interfaceWithAddress(addrs, '192.168.0.9'), undefined)
  })
})
