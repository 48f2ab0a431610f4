// Fuzzing the interface-listing parser (text, one-line and JSON forms).
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import fc from 'fast-check'
import {type LinkTable, parseLinks} from '../../../../src/core/parse/links.js'
import {readFixture} from '../../../support/golden.js'
import {anyText, FUZZ_RUNS, mutated, parsesOrFailsCleanly} from './fuzz-support.js'

const SEEDS = ['ip-addr.txt', 'ip-d-addr.txt', 'ip-link.txt', 'ip-o-addr.txt', 'ip-o-link.txt', 'ip-j-addr.json', 'ip-j-d-link.json', 'ip-addr-calico-ipip.txt'].map((f) =>
  readFixture(`parse/links/${f}`),
)
const TOKENS = [
  '1:', '2:', 'lo:', 'eth0:', 'tunl0@NONE:', 'cali1234567890a@if3:', '<BROADCAST,MULTICAST,UP,LOWER_UP>', '<>', 'mtu', '1500', 'qdisc', 'state', 'UP', 'master',
  '    link/ether', 'aa:bb:cc:dd:ee:ff', 'brd', 'link-netnsid', 'link-netns', '    inet', '    inet6', '10.0.0.5/24', 'fd00::1/64', '10.0.0.5/99', 'scope', 'global',
  'secondary', 'dynamic', 'peer', '       valid_lft forever preferred_lft forever', '    vxlan id 4096 dstport 4789', '    veth', 'altname', '\\    link/ether',
  '[{"ifindex":1', '"ifname":"lo"', '"addr_info":[', '"linkinfo":{"info_kind":"vxlan"', '"flags":["UP"]', '}]',
]

function invariants(t: LinkTable): void {
  for (const i of t.interfaces) {
    assert.ok(Number.isInteger(i.index) && i.name.length > 0)
    for (const a of i.addresses) assert.ok(a.prefixlen >= 0 && a.prefixlen <= (a.family === 'inet6' ? 128 : 32))
  }
}

describe('interface parser fuzz', () => {
  it('token soup: returns a model or a ParseError with a line', () => {
    fc.assert(fc.property(anyText(TOKENS), (text) => parsesOrFailsCleanly(parseLinks, text, invariants)), {numRuns: FUZZ_RUNS})
  })

  it('damaged real listings: returns a model or a ParseError with a line', () => {
    fc.assert(fc.property(mutated(SEEDS, TOKENS), (text) => parsesOrFailsCleanly(parseLinks, text, invariants)), {numRuns: FUZZ_RUNS})
  })

  it('arbitrary JSON values', () => {
    fc.assert(fc.property(fc.json({maxDepth: 4}), (text) => parsesOrFailsCleanly(parseLinks, text, invariants)), {numRuns: FUZZ_RUNS / 3})
  })
})
