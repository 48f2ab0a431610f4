// `routes show` renderer: grouping by device, reject routes and Calico devices called out; JSON/YAML = model.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {parse as parseYaml} from 'yaml'
import {parseRoutes} from '../../../src/core/parse/routes.js'
import {calicoDeviceRole, renderRoutesShow} from '../../../src/render/routes-show.js'
import {expectGolden, readFixture} from '../../support/golden.js'

const table = (file: string) => parseRoutes(readFixture(`parse/routes/${file}`))

describe('renderRoutesShow', () => {
  for (const file of ['ip-route.txt', 'ip-6-route-calico.txt', 'route-n.txt', 'ip-j-d-route-all.json']) {
    it(`table: ${file}`, () => {
      expectGolden(`render/routes-show/${file.replace(/\.(txt|json)$/, '')}.golden.txt`, renderRoutesShow(table(file), 'table', {color: false, source: file}))
    })
  }

  it('groups by device, splits multipath routes over their next hops, marks reject routes and Calico devices', () => {
    const out = renderRoutesShow(table('ip-route.txt'), 'table', {color: false})
    assert.match(out, /^Reject routes: 1 prohibit, 1 unreachable, 1 blackhole$/m)
    assert.match(out, /^Calico: tunl0 3 routes, vxlan\.calico 3 routes, 2 workload routes on 2 cali\* devices$/m)
    assert.match(out, /^- \(no device\) +10\.98\.0\.0\/16 +PROHIBIT/m)
    assert.match(out, /^ +10\.244\.120\.64\/26 +BLACKHOLE +bird/m)
    assert.match(out, /^tunl0 \[Calico IPIP\] +10\.244\.5\.0\/26 +unicast +10\.0\.1\.6 +bird +global +onlink$/m)
    assert.match(out, /^ +10\.244\.8\.0\/26 +unicast +10\.0\.0\.8 +bird +global +nexthop 2\/2 weight 2$/m)
    assert.match(out, /^cali0fedcba9876 \[Calico workload\] +10\.244\.120\.67\/32 .* linkdown$/m)
  })

  it('colours reject routes only when asked', () => {
    assert.match(renderRoutesShow(table('ip-route.txt'), 'table', {color: true}), /\x1b\[31mBLACKHOLE\x1b\[39m/)
    assert.doesNotMatch(renderRoutesShow(table('ip-route.txt'), 'table', {color: false}), /\x1b\[/)
  })

  it('knows Calico device names', () => {
    assert.deepEqual(['tunl0', 'vxlan.calico', 'vxlan-v6.calico', 'wireguard.cali', 'cali0123456789a', 'eth0', 'calico'].map(calicoDeviceRole), [
      'Calico IPIP',
      'Calico VXLAN',
      'Calico VXLAN v6',
      'Calico WireGuard',
      'Calico workload',
      undefined,
      undefined,
    ])
  })

  it('json and yaml are the parsed model in a versioned envelope', () => {
    const t = table('ip-j-route.json')
    const json = JSON.parse(renderRoutesShow(t, 'json', {color: false, source: 'r.json'})) as Record<string, unknown>
    assert.deepEqual(json, {apiVersion: 'node-doctor.io/v1alpha1', kind: 'RouteTable', source: 'r.json', ...JSON.parse(JSON.stringify(t))})
    assert.deepEqual(parseYaml(renderRoutesShow(t, 'yaml', {color: false, source: 'r.json'})), json)
  })
})
