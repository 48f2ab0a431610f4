// Fuzzing the route parser over all of its formats: never a crash or a hang, and parsed routes stay well formed.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import fc from 'fast-check'
import ipaddr from 'ipaddr.js'
import {parseRoutes, type RouteTable} from '../../../../src/core/parse/routes.js'
import {readFixture} from '../../../support/golden.js'
import {anyText, FUZZ_RUNS, mutated, parsesOrFailsCleanly} from './fuzz-support.js'

const SEEDS = [
  'ip-route.txt',
  'ip-d-route.txt',
  'ip-6-route.txt',
  'ip-route-table-all.txt',
  'ip-j-route.json',
  'ip-j-p-route.json',
  'route-n.txt',
  'route-n-inet6.txt',
  'ip-route-old-iproute2.txt',
  'ip-6-route-calico.txt',
].map((f) => readFixture(`parse/routes/${f}`))
const TOKENS = [
  'default', 'blackhole', 'unreachable', 'prohibit', 'local', 'broadcast', 'unicast', 'throw', 'via', 'inet6', 'dev', 'proto', 'bird', '80', 'kernel',
  'scope', 'link', 'host', 'src', 'metric', 'table', 'main', 'onlink', 'linkdown', 'nexthop', '\tnexthop', 'weight', 'mtu', 'lock', 'pref', 'medium',
  'error', '-22', 'expires', '10.244.0.0/26', '10.0.0.1', 'fd00::/64', 'fe80::1', '10.0.0.0/33', 'tunl0', 'vxlan.calico', 'cali1234567890a',
  'Kernel IP routing table', 'Destination Gateway Genmask Flags Metric Ref Use Iface', '0.0.0.0', '255.255.255.192', 'UG', 'UH', '!', '*', '-',
  '[{"dst":"default"', '"gateway":', '"nexthops":[', '"flags":["onlink"]', '"metrics":[{"mtu":1410}]', '}]', '"protocol":"80"',
]

function invariants(t: RouteTable): void {
  for (const r of t.routes) {
    const [addr, len] = r.dst.split('/')
    assert.ok(addr !== undefined && ipaddr.isValid(addr) && len !== undefined, `bad dst ${r.dst}`)
    assert.equal(ipaddr.parse(addr).kind() === 'ipv6', r.family === 'inet6', `family of ${r.dst}`)
    assert.ok(Number(len) >= 0 && Number(len) <= (r.family === 'inet6' ? 128 : 32))
    if (r.gateway !== undefined) assert.ok(ipaddr.isValid(r.gateway))
  }
}

describe('route parser fuzz', () => {
  it('token soup: returns a model or a ParseError with a line', () => {
    fc.assert(fc.property(anyText(TOKENS), (text) => parsesOrFailsCleanly(parseRoutes, text, invariants)), {numRuns: FUZZ_RUNS})
  })

  it('damaged real listings (text, JSON, route -n): returns a model or a ParseError with a line', () => {
    fc.assert(fc.property(mutated(SEEDS, TOKENS), (text) => parsesOrFailsCleanly(parseRoutes, text, invariants)), {numRuns: FUZZ_RUNS})
  })

  it('arbitrary JSON values', () => {
    fc.assert(fc.property(fc.json({maxDepth: 4}), (text) => parsesOrFailsCleanly(parseRoutes, text, invariants)), {numRuns: FUZZ_RUNS / 3})
  })

  it('arrays of route-like JSON objects', () => {
    const value = fc.oneof(fc.string({maxLength: 20}), fc.integer(), fc.constant(null), fc.array(fc.string({maxLength: 8}), {maxLength: 3}), fc.constantFrom('default', '10.0.0.0/24', 'fd00::/8', 'bird', '80', 'onlink'))
    const route = fc.dictionary(fc.constantFrom('dst', 'gateway', 'dev', 'protocol', 'scope', 'metric', 'prefsrc', 'flags', 'type', 'table', 'nexthops', 'metrics', 'pref', 'error', 'via'), value)
    fc.assert(fc.property(fc.array(route, {maxLength: 6}), (rs) => parsesOrFailsCleanly(parseRoutes, JSON.stringify(rs), invariants)), {numRuns: FUZZ_RUNS / 3})
  })
})
