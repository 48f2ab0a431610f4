// The nftables diff: the rendered table parsed back as the "node's listing" must diff clean, and each kind of
// planted fault must come out as exactly one difference, grouped by its Service port. Counters, handles, element
// order, element comments, one-element anonymous sets and the elements of dynamic (affinity) sets do not count.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {diffNftables, normalizeNftRule} from '../../../../src/core/diff/nftables.js'
import {type NftTable, findNftTable, parseNft} from '../../../../src/core/parse/nft.js'
import {serializeNftTable} from '../../../../src/core/proxier/nftables/table.js'
import {renderCase} from '../proxier/nftables/cases.js'

const expected = renderCase({dir: 'session-affinity'})
const svcChain = expected.chains.find((c) => c.name.startsWith('service-') && c.rules.length >= 3)!

function actual(edit: (t: NftTable) => void = () => {}): NftTable {
  const t = findNftTable(parseNft(serializeNftTable(expected)), 'ip', 'kube-proxy')!
  edit(t)
  return t
}
const chain = (t: NftTable, name: string) => t.chains.find((c) => c.name === name)!
const set = (t: NftTable, name: string) => t.sets.find((s) => s.name === name)!

describe('nftables diff', () => {
  it('is empty for the table itself, whatever the element order, counters, handles and element comments', () => {
    assert.deepEqual(diffNftables(expected, actual()), [])
    const shuffled = actual((t) => {
      for (const s of t.sets) s.elements.reverse()
      for (const s of t.sets) for (const e of s.elements) delete e.comment
      t.chains.reverse()
      t.sets.reverse()
      for (const c of t.chains) for (const r of c.rules) r.text = r.text.replace(/ (jump|goto) /, ' counter packets 12 bytes 720 $1 ')
    })
    assert.deepEqual(diffNftables(expected, shuffled), [])
  })

  it('ignores the elements of dynamic affinity sets', () => {
    const t = actual((a) => {
      for (const s of a.sets) if (s.name.startsWith('affinity-')) s.elements.push({key: '10.0.1.99', expires: 100})
    })
    assert.deepEqual(diffNftables(expected, t), [])
  })

  it('normalises rules as nft prints them', () => {
    assert.equal(normalizeNftRule('ip saddr != { 203.0.113.0/25 }  counter packets 1 bytes 60 drop'), 'ip saddr != 203.0.113.0/25 drop')
    assert.equal(normalizeNftRule('numgen random mod 1 vmap { 0 : goto x }'), 'numgen random mod 1 vmap { 0 : goto x }')
    assert.equal(normalizeNftRule('update @aff { ip saddr }'), 'update @aff { ip saddr }')
  })

  it('names a missing table once', () => {
    assert.deepEqual(diffNftables(expected, undefined), [{kind: 'missing-table', table: 'ip kube-proxy'}])
  })

  it('names missing and stale chains, missing, extra and misordered rules', () => {
    const d = diffNftables(expected, actual((t) => {
      t.chains = t.chains.filter((c) => c.name !== svcChain.name)
      t.chains.push({name: 'endpoint-AAAAAAAA-default/gone/tcp/http__10.0.9.9/80', rules: [{text: 'meta l4proto tcp dnat to 10.0.9.9:80'}]})
      chain(t, 'masquerading').rules.reverse()
      chain(t, 'services').rules.push({text: 'ip daddr 1.1.1.1 drop'})
      chain(t, 'mark-for-masquerade').rules = []
    }))
    assert.deepEqual(d.map((x) => x.kind).sort(), ['extra-rule', 'misordered', 'missing-chain', 'missing-rule', 'stale-chain'])
    const missing = d.find((x) => x.kind === 'missing-chain')!
    assert.equal(missing.kind === 'missing-chain' && missing.group, svcChain.servicePort)
    const stale = d.find((x) => x.kind === 'stale-chain')!
    assert.equal(stale.kind === 'stale-chain' && stale.group, 'default/gone/tcp/http')
  })

  it('names missing, extra and wrong elements with their Service port', () => {
    const ips = expected.sets.find((s) => s.name === 'service-ips')!
    const d = diffNftables(expected, actual((t) => {
      const s = set(t, 'service-ips')
      s.elements.shift()
      s.elements[0]!.value = 'drop'
      s.elements.push({key: '172.30.99.1 . tcp . 80', value: `goto ${svcChain.name}`})
    }))
    assert.deepEqual(
      d.map((x) => [x.kind, 'group' in x ? x.group : undefined]),
      [
        ['missing-element', ips.elements[0]!.servicePort],
        ['wrong-element', ips.elements[1]!.servicePort],
        ['extra-element', svcChain.servicePort],
      ],
    )
  })

  it('names definition differences of base chains and sets', () => {
    const d = diffNftables(expected, actual((t) => {
      chain(t, 'nat-prerouting').priority = 0
      set(t, 'cluster-ips').type = 'ipv6_addr'
      t.sets = t.sets.filter((s) => s.name !== 'firewall-ips')
      t.sets.push({kind: 'set', name: 'leftover', flags: [], elements: []})
    }))
    assert.deepEqual(
      d.map((x) => (x.kind === 'definition' ? `${x.object}: ${x.detail}` : x.kind)),
      ['chain nat-prerouting: priority 0 instead of -100', 'set cluster-ips: type ipv6_addr instead of ipv4_addr', 'map firewall-ips: missing', 'set leftover: not expected (stale)'],
    )
  })
})
