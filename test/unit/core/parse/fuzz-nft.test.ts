// Fuzzing the nftables parser, text and JSON, including random expression trees for the JSON-to-text renderer.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import fc from 'fast-check'
import {type NftRuleset, parseNft} from '../../../../src/core/parse/nft.js'
import {readFixture} from '../../../support/golden.js'
import {anyText, FUZZ_RUNS, mutated, parsesOrFailsCleanly} from './fuzz-support.js'

const SEEDS = ['list-ruleset.txt', 'list-ruleset-a.txt', 'iptables-nft.txt', 'ruleset.json', 'unknown-expr.json'].map((f) => readFixture(`parse/nft/${f}`))
const TOKENS = [
  'table', 'ip', 'ip6', 'inet', 'kube-proxy', '{', '}', '# handle 3', 'chain', 'set', 'map', 'counter', 'quota', 'type', 'filter', 'nat', 'hook', 'prerouting',
  'priority', 'dstnat', '-', '+', '10', ';', 'policy', 'accept;', 'comment', '"x"', 'elements', '=', '{ 10.0.0.1, 10.0.0.2 }', 'ipv4_addr . inet_proto . inet_service',
  ':', 'verdict', 'goto', 'service-ULMVA6XW-ns1/svc1/tcp/p80', 'flags', 'dynamic,timeout', 'timeout', '3h', 'expires', '2h59m', 'size', '65535', 'typeof',
  'ip daddr', '@cluster-ips', 'reject', 'jump', 'vmap', 'numgen random mod 2', 'counter packets 1 bytes 2', '"', '\\"',
  '{"nftables": [', '{"table": {"family": "ip", "name": "t"}}', '{"rule": {"family": "ip", "table": "t", "chain": "c", "expr": [', ']}}', ']}',
]

function invariants(rs: NftRuleset): void {
  for (const t of rs.tables) for (const c of t.chains) for (const r of c.rules) assert.equal(typeof r.text, 'string')
  assert.doesNotThrow(() => JSON.stringify(rs))
}

// Random nft JSON expressions: known shapes with random leaves, and unknown shapes.
const leaf = fc.oneof(fc.string({maxLength: 8}), fc.integer(), fc.boolean(), fc.constant(null), fc.constantFrom('@s', 'tcp', 'established', 'mark', 'daddr'))
const expr: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  e: fc.oneof(
    {depthSize: 'small'},
    leaf,
    fc.record({payload: fc.record({protocol: fc.constantFrom('ip', 'tcp', 'th'), field: fc.constantFrom('saddr', 'dport')})}),
    fc.record({meta: fc.record({key: fc.constantFrom('mark', 'l4proto', 'iifname', 'skuid')})}),
    fc.record({ct: fc.record({key: fc.constantFrom('state', 'mark')})}),
    fc.record({match: fc.record({op: fc.constantFrom('==', '!=', 'in', '<'), left: tie('e'), right: tie('e')})}),
    fc.record({'&': fc.array(tie('e'), {minLength: 0, maxLength: 3})}),
    fc.record({concat: fc.array(tie('e'), {maxLength: 3})}),
    fc.record({set: fc.oneof(fc.array(tie('e'), {maxLength: 3}), tie('e'))}),
    fc.record({prefix: fc.record({addr: tie('e'), len: fc.integer()})}),
    fc.record({range: fc.array(tie('e'), {maxLength: 3})}),
    fc.record({vmap: fc.record({key: tie('e'), data: tie('e')})}),
    fc.record({mangle: fc.record({key: tie('e'), value: tie('e')})}),
    fc.record({elem: fc.record({val: tie('e'), timeout: fc.oneof(fc.integer(), fc.string())})}),
    fc.record({dnat: fc.record({addr: tie('e'), port: tie('e'), family: fc.constantFrom('ip', 'ip6')})}),
    fc.record({reject: fc.oneof(fc.constant(null), fc.record({type: fc.string(), expr: tie('e')}))}),
    fc.record({counter: fc.oneof(fc.constant(null), fc.string(), fc.record({packets: leaf, bytes: leaf}))}),
    fc.record({jump: fc.oneof(fc.record({target: fc.string()}), leaf)}),
    fc.record({limit: fc.record({rate: leaf, per: leaf, burst: leaf, inv: fc.boolean()})}),
    fc.dictionary(fc.string({maxLength: 6}), tie('e'), {maxKeys: 2}),
  ),
})).e

describe('nft parser fuzz', () => {
  it('token soup: returns a model or a ParseError with a line', () => {
    fc.assert(fc.property(anyText(TOKENS), (text) => parsesOrFailsCleanly(parseNft, text, invariants)), {numRuns: FUZZ_RUNS})
  })

  it('damaged real listings (text and JSON): returns a model or a ParseError with a line', () => {
    fc.assert(fc.property(mutated(SEEDS, TOKENS), (text) => parsesOrFailsCleanly(parseNft, text, invariants)), {numRuns: FUZZ_RUNS})
  })

  it('random JSON rule expressions and set elements render or fail cleanly', () => {
    const doc = fc.tuple(fc.array(expr, {maxLength: 4}), fc.array(expr, {maxLength: 3}), fc.boolean()).map(([rule, elems, isMap]) =>
      JSON.stringify({
        nftables: [
          {table: {family: 'ip', name: 't'}},
          {chain: {family: 'ip', table: 't', name: 'c'}},
          {rule: {family: 'ip', table: 't', chain: 'c', expr: rule}},
          {[isMap ? 'map' : 'set']: {family: 'ip', table: 't', name: 's', type: ['ipv4_addr', 'mark'], map: 'verdict', elem: isMap ? elems.map((e) => [e, e]) : elems}},
        ],
      }),
    )
    fc.assert(fc.property(doc, (text) => parsesOrFailsCleanly(parseNft, text, invariants)), {numRuns: FUZZ_RUNS})
  })

  it('arbitrary JSON values', () => {
    fc.assert(fc.property(fc.json({maxDepth: 4}), (text) => parsesOrFailsCleanly(parseNft, text, invariants)), {numRuns: FUZZ_RUNS / 3})
  })
})
