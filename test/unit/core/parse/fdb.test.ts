// Forwarding-database parser. bridge-j-fdb.json / bridge-fdb.txt were captured from iproute2 6.1 (`bridge`) in the
// flannel VXLAN netns of scripts/make-flannel-fixtures.ts: flannel.1 VTEP entries, cni0 and its ports, multicast.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {fdbEntriesOf, parseFdb} from '../../../../src/core/parse/fdb.js'
import {expectGolden, readFixture} from '../../../support/golden.js'
import {parseError} from './fuzz-support.js'

describe('parseFdb', () => {
  for (const file of ['bridge-j-fdb.json', 'bridge-fdb.txt']) {
    it(`${file} golden`, () => {
      expectGolden(`parse/fdb/${file.replace(/\.(txt|json)$/, '')}.golden.json`, JSON.stringify(parseFdb(readFixture(`parse/fdb/${file}`)), null, 2) + '\n')
    })
  }

  it('reads the JSON and the text form into the same entries', () => {
    const json = parseFdb(readFixture('parse/fdb/bridge-j-fdb.json'))
    const text = parseFdb(readFixture('parse/fdb/bridge-fdb.txt'))
    assert.deepEqual([json.format, text.format], ['bridge-json', 'bridge-text'])
    assert.deepEqual(json.entries, text.entries)
    assert.deepEqual(fdbEntriesOf(json, 'flannel.1', '02:FA:00:00:00:12'), [{mac: '02:fa:00:00:00:12', dev: 'flannel.1', dst: '192.168.0.12', flags: ['self'], state: 'permanent'}])
  })

  it('vlan, vni and port numbers; a learned entry has no state', () => {
    const t = parseFdb('00:00:00:00:00:00 dev vxlan0 dst 10.0.0.2 vni 42 port 4789 self permanent\naa:bb:cc:dd:ee:ff dev br0 vlan 10 master br0\n')
    assert.deepEqual(t.entries, [
      {mac: '00:00:00:00:00:00', dev: 'vxlan0', dst: '10.0.0.2', vni: 42, port: 4789, flags: ['self'], state: 'permanent'},
      {mac: 'aa:bb:cc:dd:ee:ff', dev: 'br0', vlan: 10, master: 'br0', flags: []},
    ])
  })

  it('names the line and what the input looks like when it is something else', () => {
    assert.match(parseError(() => parseFdb('10.244.2.0 dev flannel.1 lladdr 02:fa:00:00:00:12 PERMANENT\n')).message, /expected a bridge forwarding database/)
    assert.equal(parseError(() => parseFdb('aa:bb:cc:dd:ee:ff dev br0 master br0\naa:bb:cc:dd:ee:ff dev br0 bogus\n')).line, 2)
    assert.match(parseError(() => parseFdb('[{"dst":"10.0.0.1","dev":"eth0"}]')).message, /not a forwarding database entry/)
  })
})
