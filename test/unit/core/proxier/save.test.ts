// The expected iptables-save view (serializeSave) and the jumps from built-in chains (builtinJumps), checked
// against the reference's §9 and §12 examples. test/integration/proxier/restore-valid.test.ts compares the same
// output with what the real iptables-save prints.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {builtinJumps, builtinJumpsInChainOrder, ensuredChains} from '../../../../src/core/proxier/iptables/builtin.js'
import {savedState, serializeSave} from '../../../../src/core/proxier/iptables/save.js'
import {expectGolden} from '../../../support/golden.js'
import {fakeProxierOptions, generateFromFixture} from './helpers.js'

describe('builtinJumps', () => {
  it("lists kube-proxy's jumps in EnsureRule order, as argv tokens", () => {
    const jumps = builtinJumps()
    assert.equal(jumps.length, 14)
    assert.deepEqual(jumps[0], {
      table: 'filter',
      chain: 'INPUT',
      target: 'KUBE-EXTERNAL-SERVICES',
      op: '-I',
      args: ['-m', 'conntrack', '--ctstate', 'NEW', '-m', 'comment', '--comment', 'kubernetes externally-visible service portals', '-j', 'KUBE-EXTERNAL-SERVICES'],
    })
    assert.deepEqual(jumps.at(-1), {table: 'filter', chain: 'OUTPUT', target: 'KUBE-FIREWALL', op: '-I', args: ['-j', 'KUBE-FIREWALL']})
    const order = (table: string, chain: string): string[] => builtinJumpsInChainOrder().filter((j) => j.table === table && j.chain === chain).map((j) => j.target)
    assert.deepEqual(order('filter', 'INPUT'), ['KUBE-FIREWALL', 'KUBE-PROXY-FIREWALL', 'KUBE-NODEPORTS', 'KUBE-EXTERNAL-SERVICES'])
    assert.deepEqual(order('filter', 'FORWARD'), ['KUBE-PROXY-FIREWALL', 'KUBE-FORWARD', 'KUBE-SERVICES', 'KUBE-EXTERNAL-SERVICES'])
    assert.deepEqual(order('nat', 'PREROUTING'), ['KUBE-SERVICES'])
    assert.ok(ensuredChains().some((c) => c.table === 'mangle' && c.chain === 'KUBE-PROXY-CANARY'))
  })
})

describe('serializeSave', () => {
  const out = generateFromFixture('proxier/iptables/upstream-overall/objects.yaml', fakeProxierOptions('ipv4', {masqueradeMark: undefined, randomFully: true}))
  const text = serializeSave(out.ruleset)

  it('prints rules the way iptables-save does (reference §12)', () => {
    const lines = new Set(text.split('\n'))
    for (const l of [
      '-A KUBE-MARK-MASQ -j MARK --set-xmark 0x4000/0x4000',
      '-A KUBE-POSTROUTING -j MARK --set-xmark 0x4000/0x0',
      '-A KUBE-POSTROUTING -m mark ! --mark 0x4000/0x4000 -j RETURN',
      '-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully',
      '-A KUBE-FIREWALL ! -s 127.0.0.0/8 -d 127.0.0.0/8 -m comment --comment "block incoming localnet connections" -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP',
      '-A KUBE-FORWARD -m conntrack --ctstate INVALID -m nfacct --nfacct-name  ct_state_invalid_dropped_pkts -j DROP',
      '-A KUBE-SVC-XPGD46QRK7WJZT7O ! -s 10.0.0.0/8 -d 172.30.0.41/32 -p tcp -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp --dport 80 -j KUBE-MARK-MASQ',
      '-A KUBE-SEP-SXIVWICOYRO3J4NJ -s 10.180.0.1/32 -m comment --comment "ns1/svc1:p80" -j KUBE-MARK-MASQ',
      '-A KUBE-SEP-SXIVWICOYRO3J4NJ -p tcp -m comment --comment "ns1/svc1:p80" -m tcp -j DNAT --to-destination 10.180.0.1:80',
      '-A KUBE-SVC-4SW47YFZTEDKD3PK -m comment --comment "ns4/svc4:p80 -> 10.180.0.4:80" -m statistic --mode random --probability 0.50000000000 -j KUBE-SEP-UKSFD7AGPMPPLUHC',
      '-A KUBE-SVC-NUKIZ6OKUXPJNT4C -m comment --comment "ns5/svc5:p80 -> 10.180.0.3:80" -m recent --rcheck --seconds 10800 --reap --name KUBE-SEP-I77PXRDZVX7PMWMN --mask 255.255.255.255 --rsource -j KUBE-SEP-I77PXRDZVX7PMWMN',
      '-A KUBE-SERVICES -d 172.30.0.46/32 -p tcp -m comment --comment "ns6/svc6:p80 has no endpoints" -m tcp --dport 80 -j REJECT --reject-with icmp-port-unreachable',
      '-A KUBE-FW-NUKIZ6OKUXPJNT4C -m comment --comment "other traffic to ns5/svc5:p80 will be dropped by KUBE-PROXY-FIREWALL"',
      '-A INPUT -m conntrack --ctstate NEW -m comment --comment "kubernetes externally-visible service portals" -j KUBE-EXTERNAL-SERVICES',
      '-A POSTROUTING -m comment --comment "kubernetes postrouting rules" -j KUBE-POSTROUTING',
      ':KUBE-PROXY-CANARY - [0:0]',
      ':INPUT ACCEPT [0:0]',
    ]) assert.ok(lines.has(l), `missing: ${l}`)
    assert.ok(text.startsWith('*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n'))
    expectGolden('proxier/iptables/upstream-overall/expected.save', text)
  })

  it('leaves out deleted chains and keeps ensured chains, per table, with user chains sorted', () => {
    const stale = generateFromFixture('proxier/iptables/upstream-sync-repeated-final/objects.yaml', fakeProxierOptions('ipv4', {existingNatChains: ['KUBE-SVC-4SW47YFZTEDKD3PK']}))
    const nat = savedState(stale.ruleset).get('nat')!
    assert.ok(!nat.has('KUBE-SVC-4SW47YFZTEDKD3PK'))
    const chains = [...nat.keys()]
    assert.deepEqual(chains.slice(0, 4), ['PREROUTING', 'INPUT', 'OUTPUT', 'POSTROUTING'])
    assert.deepEqual(chains.slice(4), [...chains.slice(4)].sort())
    const v6 = generateFromFixture('proxier/iptables/upstream-sync-repeated/objects.yaml', fakeProxierOptions('ipv6'))
    const filter6 = savedState(v6.ruleset).get('filter')!
    // IPv6 never declares KUBE-FIREWALL in the restore, but kube-proxy's jumps create it empty.
    assert.deepEqual(filter6.get('KUBE-FIREWALL'), [])
    assert.deepEqual(filter6.get('INPUT')![0], '-j KUBE-FIREWALL')
  })
})
