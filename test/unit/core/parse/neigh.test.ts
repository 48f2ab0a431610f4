// Neighbour-table parser. ip-j-neigh.json / ip-neigh.txt were captured from iproute2 6.1 in the flannel VXLAN netns
// of scripts/make-flannel-fixtures.ts (flanneld-style PERMANENT entries on flannel.1).
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {isResolved, neighboursOf, parseNeigh} from '../../../../src/core/parse/neigh.js'
import {expectGolden, readFixture} from '../../../support/golden.js'
import {parseError} from './fuzz-support.js'

describe('parseNeigh', () => {
  for (const file of ['ip-j-neigh.json', 'ip-neigh.txt']) {
    it(`${file} golden`, () => {
      expectGolden(`parse/neigh/${file.replace(/\.(txt|json)$/, '')}.golden.json`, JSON.stringify(parseNeigh(readFixture(`parse/neigh/${file}`)), null, 2) + '\n')
    })
  }

  it('reads the JSON and the text form into the same entries', () => {
    const json = parseNeigh(readFixture('parse/neigh/ip-j-neigh.json'))
    const text = parseNeigh(readFixture('parse/neigh/ip-neigh.txt'))
    assert.equal(json.format, 'ip-json')
    assert.equal(text.format, 'ip-text')
    assert.deepEqual(json.entries, text.entries)
    assert.deepEqual(neighboursOf(json, 'flannel.1', '10.244.2.0'), [{family: 'inet', dst: '10.244.2.0', dev: 'flannel.1', lladdr: '02:fa:00:00:00:12', state: ['PERMANENT']}])
  })

  it('unresolved entries, router flags and IPv6', () => {
    const t = parseNeigh('192.168.0.1 dev eth0 lladdr 52:54:00:AA:bb:01 REACHABLE\n10.0.0.9 dev eth0 FAILED\nfe80::1 dev eth0 lladdr 52:54:00:aa:bb:02 router STALE\n')
    assert.deepEqual(
      t.entries.map((e) => [e.family, e.lladdr, e.state, e.router ?? false, isResolved(e)]),
      [
        ['inet', '52:54:00:aa:bb:01', ['REACHABLE'], false, true],
        ['inet', undefined, ['FAILED'], false, false],
        ['inet6', '52:54:00:aa:bb:02', ['STALE'], true, true],
      ],
    )
    assert.deepEqual(parseNeigh('[{"dst":"fe80::1","dev":"eth0","lladdr":"52:54:00:aa:bb:02","router":null,"state":["STALE"]}]').entries[0]?.router, true)
  })

  it('names the line and what the input looks like when it is something else', () => {
    assert.match(parseError(() => parseNeigh('unicast default via 192.168.0.1 dev eth0 table main\n')).message, /looks like `ip route` output; expected a neighbour table/)
    const e = parseError(() => parseNeigh('192.168.0.1 dev eth0 lladdr 52:54:00:aa:bb:01 REACHABLE\n192.168.0.2 dev eth0 lladdr nonsense\n'))
    assert.equal(e.line, 2)
    assert.match(parseError(() => parseNeigh('')).message, /^empty input/)
    assert.match(parseError(() => parseNeigh('[{"mac":"02:00:00:00:00:01","ifname":"eth0"}]')).message, /not a neighbour entry/)
  })
})
