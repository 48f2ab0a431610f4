// The IPVS diff: a healthy node (artifacts rendered from the expected state, and the real ipset output captured from
// ipset 7.17) diffs clean; breaking one thing at a time yields exactly the difference that names it.
// Fixture conventions: test/fixtures/proxier/ipvs/README.md (node-a 192.168.0.2 is the local node).
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {diffIpvsAgainstNode} from '../../../../src/core/checks/ipvs/diff.js'
import {diffIpvs, type IpvsActual, type IpvsDifference} from '../../../../src/core/diff/ipvs.js'
import {parseIptablesSave} from '../../../../src/core/parse/iptables-save.js'
import {parseIpset} from '../../../../src/core/parse/ipset.js'
import {parseIpvsadm} from '../../../../src/core/parse/ipvsadm.js'
import {parseLinks} from '../../../../src/core/parse/links.js'
import type {IpvsState} from '../../../../src/core/proxier/ipvs/generate.js'
import {readFixture} from '../../../support/golden.js'
import {healthyNodeArtifacts, ipAddrJson, type NodeArtifacts, renderIpvsCase} from '../proxier/ipvs/helpers.js'

function actualFrom(a: NodeArtifacts, family: 'ipv4' | 'ipv6' = 'ipv4'): Required<IpvsActual> {
  return {ipvs: parseIpvsadm(a.ipvsadm), links: parseLinks(a.ipAddr), ipsets: parseIpset(a.ipset), iptables: parseIptablesSave(a.iptablesSave, {family})}
}

function diffWith(state: IpvsState, edit: (a: NodeArtifacts) => NodeArtifacts, excludeCIDRs: string[] = []): IpvsDifference[] {
  return diffIpvs(state, actualFrom(edit(healthyNodeArtifacts(state)), state.family), {excludeCIDRs})
}

const kinds = (ds: readonly IpvsDifference[]) => ds.map((d) => d.kind)
const dropLine = (text: string, line: string): string => {
  const lines = text.split('\n')
  const i = lines.indexOf(line)
  assert.ok(i >= 0, `line to drop not found: ${line}`)
  lines.splice(i, 1)
  return lines.join('\n')
}
const replaceLine = (text: string, from: string, to: string): string => {
  assert.ok(text.split('\n').includes(from), `line to replace not found: ${from}`)
  return text.split('\n').map((l) => (l === from ? to : l)).join('\n')
}

const services = renderIpvsCase('services')
const affinity = renderIpvsCase('affinity-terminating')

describe('IPVS diff', () => {
  it('a healthy node diffs clean, for every feature case and both families', () => {
    for (const [dir, family] of [['services'], ['traffic-policy'], ['affinity-terminating'], ['scheduler-mh'], ['nodeport-addresses'], ['dual-stack', 'ipv6']] as const) {
      const state = renderIpvsCase(dir, family ? {family} : {})
      assert.deepEqual(diffIpvs(state, actualFrom(healthyNodeArtifacts(state), state.family)), [], dir)
    }
  })

  it('compares ipsets as sets: the real `ipset save` (hash order, bucketsize/initval, other sets) diffs clean', () => {
    // save.txt holds the sets of `services` (IPv4) and `dual-stack` (IPv6) plus another agent's set.
    const d = diffIpvs(services, {ipsets: parseIpset(readFixture('parse/ipset/save.txt'))})
    assert.deepEqual(d, [])
    const v6 = diffIpvs(renderIpvsCase('dual-stack', {family: 'ipv6'}), {ipsets: parseIpset(readFixture('parse/ipset/list.txt'))})
    assert.deepEqual(v6, [])
  })

  it('reads `ipvsadm -Ln` as well as `-Sn`, in any order, and ignores the other family and fwmark services', () => {
    const small = renderIpvsCase('affinity-terminating')
    const ln = [
      'IP Virtual Server version 1.2.1 (size=4096)',
      'Prot LocalAddress:Port Scheduler Flags',
      '  -> RemoteAddress:Port           Forward Weight ActiveConn InActConn',
      'TCP  192.168.0.2:30600 rr persistent 600',
      '  -> 10.0.2.20:8080               Masq    1      0          0',
      'TCP  172.30.8.4:80 rr',
      '  -> 10.0.2.41:8080               Masq    0      3          0',
      '  -> 10.0.2.40:8080               Masq    1      0          0',
      'TCP  172.17.0.1:30600 rr persistent 600',
      '  -> 10.0.2.20:8080               Masq    1      0          0',
      'TCP  172.30.8.1:80 rr persistent 600',
      '  -> 10.0.2.20:8080               Masq    1      0          0',
      'TCP  172.30.8.2:80 rr persistent 10800',
      '  -> 10.0.2.21:8080               Masq    1      0          0',
      'TCP  172.30.8.3:80 rr',
      '  -> 10.0.2.30:8080               Masq    1      2          5',
      'UDP  172.30.8.3:53 rr',
      '  -> 10.0.2.30:53                 Masq    1      0          0',
      'TCP  [fd00:172:30::99]:80 rr',
      'FWM  10 rr',
      '',
    ].join('\n')
    assert.deepEqual(diffIpvs(small, {ipvs: parseIpvsadm(ln)}), [])
  })

  it('names missing and stale virtual servers, but leaves excludeCIDRs and the other family alone', () => {
    const d = diffWith(services, (a) => ({
      ...a,
      ipvsadm: `${dropLine(dropLine(a.ipvsadm, '-A -t 172.30.0.10:80 -s rr'), '-a -t 172.30.0.10:80 -r 10.0.1.2:8080 -m -w 1').replace('-a -t 172.30.0.10:80 -r 10.0.2.9:8080 -m -w 1\n', '')}-A -t 172.30.99.1:80 -s rr\n-a -t 172.30.99.1:80 -r 10.0.9.9:80 -m -w 1\n-A -t 10.200.0.1:80 -s rr\n-A -t [fd00::1]:80 -s rr\n`,
    }), ['10.200.0.0/16'])
    assert.deepEqual(d, [
      {kind: 'missing-virtual-server', vs: 'TCP 172.30.0.10:80', expected: services.virtualServers.find((v) => v.id === 'TCP 172.30.0.10:80')!, group: 'default/web:http'},
      {kind: 'stale-virtual-server', vs: 'TCP 172.30.99.1:80', realServers: ['10.0.9.9:80 weight 1']},
    ])
  })

  it('names missing, extra and re-weighted real servers; draining (weight 0) ones are accepted, never required', () => {
    const d = diffWith(affinity, (a) => {
      let t = dropLine(a.ipvsadm, '-a -t 172.30.8.1:80 -r 10.0.2.20:8080 -m -w 1')
      t = replaceLine(t, '-a -t 172.30.8.2:80 -r 10.0.2.21:8080 -m -w 1', '-a -t 172.30.8.2:80 -r 10.0.2.21:8080 -m -w 0')
      // 10.0.2.31 (terminating) still at weight 1: kube-proxy does not use it, so it is extra; 10.0.2.32 draining at
      // weight 0 (TCP and UDP alike): accepted.
      t += '-a -t 172.30.8.3:80 -r 10.0.2.31:8080 -m -w 1\n-a -t 172.30.8.3:80 -r 10.0.2.32:8080 -m -w 0\n'
      t += '-a -t 172.30.8.4:80 -r 10.0.2.99:8080 -m -w 1\n-a -u 172.30.8.3:53 -r 10.0.2.31:53 -m -w 0\n'
      return {...a, ipvsadm: t}
    })
    assert.deepEqual(d, [
      {kind: 'missing-real-server', vs: 'TCP 172.30.8.1:80', rs: '10.0.2.20:8080', group: 'default/sticky:http'},
      {kind: 'wrong-weight', vs: 'TCP 172.30.8.2:80', rs: '10.0.2.21:8080', expected: 1, actual: 0, group: 'default/sticky-default:http'},
      {kind: 'extra-real-server', vs: 'TCP 172.30.8.3:80', rs: '10.0.2.31:8080', weight: 1, group: 'default/rollout:http'},
      {kind: 'extra-real-server', vs: 'TCP 172.30.8.4:80', rs: '10.0.2.99:8080', weight: 1, group: 'default/draining:http'},
    ].sort((x, y) => affinity.virtualServers.findIndex((v) => v.id === x.vs) - affinity.virtualServers.findIndex((v) => v.id === y.vs)))
  })

  it('names a wrong scheduler and wrong persistence', () => {
    const d = diffWith(affinity, (a) => ({
      ...a,
      ipvsadm: replaceLine(replaceLine(a.ipvsadm, '-A -t 172.30.8.1:80 -s rr -p 600', '-A -t 172.30.8.1:80 -s rr'), '-A -t 172.30.8.4:80 -s rr', '-A -t 172.30.8.4:80 -s mh -p 30 -b mh-port'),
    }))
    assert.deepEqual(d, [
      {kind: 'wrong-persistence', vs: 'TCP 172.30.8.1:80', expected: 600, group: 'default/sticky:http'},
      {kind: 'wrong-scheduler', vs: 'TCP 172.30.8.4:80', expected: 'rr', actual: 'mh (mh-port)', group: 'default/draining:http'},
      {kind: 'wrong-persistence', vs: 'TCP 172.30.8.4:80', actual: 30, group: 'default/draining:http'},
    ])
  })

  it('names kube-ipvs0 addresses that are missing or stale, and a missing kube-ipvs0', () => {
    const bound = services.boundAddresses.filter((a) => a !== '172.30.0.10')
    const d = diffWith(services, (a) => ({...a, ipAddr: ipAddrJson([...bound, '172.30.77.7', 'fd00::7'])}))
    assert.deepEqual(d, [{kind: 'missing-address', address: '172.30.0.10', group: 'default/web:http'}, {kind: 'stale-address', address: '172.30.77.7'}])
    const noDummy = JSON.stringify((JSON.parse(ipAddrJson([])) as Array<{ifname: string}>).filter((l) => l.ifname !== 'kube-ipvs0'))
    const none = diffIpvs(services, {links: parseLinks(noDummy)})
    assert.deepEqual(kinds(none), ['missing-dummy-interface'])
  })

  it('names missing and stale ipset entries and missing sets', () => {
    const d = diffWith(services, (a) => ({
      ...a,
      ipset: `${dropLine(dropLine(a.ipset, 'add KUBE-NODE-PORT-TCP 30080'), 'create KUBE-HEALTH-CHECK-NODE-PORT bitmap:port range 0-65535')}add KUBE-CLUSTER-IP 172.30.55.5,udp:53\n`,
    }))
    assert.deepEqual(d, [
      {kind: 'stale-ipset-entry', set: 'KUBE-CLUSTER-IP', entry: '172.30.55.5,udp:53'},
      {kind: 'missing-ipset-entry', set: 'KUBE-NODE-PORT-TCP', entry: '30080', group: 'default/np:http'},
      {kind: 'missing-ipset', set: 'KUBE-HEALTH-CHECK-NODE-PORT', entries: []},
    ])
  })

  it('names missing, extra and misordered iptables rules and missing built-in jumps', () => {
    const accept = '-A KUBE-SERVICES -m set --match-set KUBE-CLUSTER-IP dst,dst -j ACCEPT'
    const d = diffWith(services, (a) => {
      let t = dropLine(a.iptablesSave, '-A KUBE-LOAD-BALANCER -j KUBE-MARK-MASQ')
      t = dropLine(t, '-A INPUT -m comment --comment "kubernetes ipvs access filter" -j KUBE-IPVS-FILTER')
      t = replaceLine(t, '-A KUBE-MARK-MASQ -j MARK --set-xmark 0x4000/0x4000', '-A KUBE-MARK-MASQ -j MARK --set-xmark 0x4000/0x4000\n-A KUBE-MARK-MASQ -j ACCEPT')
      // The ACCEPT rules moved before the nodeport jump: same rules, wrong order.
      t = dropLine(t, accept)
      t = replaceLine(t, '-A KUBE-SERVICES -s 127.0.0.0/8 -j RETURN', `-A KUBE-SERVICES -s 127.0.0.0/8 -j RETURN\n${accept}`)
      return {...a, iptablesSave: t}
    })
    assert.deepEqual(kinds(d), ['misordered-iptables-chain', 'missing-iptables-rule', 'extra-iptables-rule', 'missing-builtin-jump'])
    assert.deepEqual(d.slice(1), [
      {kind: 'missing-iptables-rule', table: 'nat', chain: 'KUBE-LOAD-BALANCER', rule: '-j KUBE-MARK-MASQ'},
      {kind: 'extra-iptables-rule', table: 'nat', chain: 'KUBE-MARK-MASQ', rule: '-j ACCEPT'},
      {kind: 'missing-builtin-jump', table: 'filter', chain: 'INPUT', rule: '-m comment --comment "kubernetes ipvs access filter" -j KUBE-IPVS-FILTER'},
    ])
  })

  it('turns differences into findings grouped by service port, every IPVS check passing on a clean node', () => {
    const clean = diffIpvsAgainstNode(services, actualFrom(healthyNodeArtifacts(services)), 'node-a')
    assert.deepEqual(clean.findings, [])
    assert.ok(clean.results.length === 13 && clean.results.every((r) => r.status === 'passed'))
    // A draining weight-0 real server is accepted: no finding, IPVS-004 passes.
    const draining = diffIpvsAgainstNode(
      affinity,
      actualFrom({...healthyNodeArtifacts(affinity), ipvsadm: `${healthyNodeArtifacts(affinity).ipvsadm}-a -t 172.30.8.4:80 -r 10.0.2.98:8080 -m -w 0\n`}),
      'node-a',
    )
    assert.deepEqual(draining.findings, [])
    assert.equal(draining.results.find((r) => r.id === 'IPVS-004')?.status, 'passed')
    const broken = diffIpvsAgainstNode(
      affinity,
      actualFrom({...healthyNodeArtifacts(affinity), ipvsadm: `${healthyNodeArtifacts(affinity).ipvsadm}-a -t 172.30.8.4:80 -r 10.0.2.98:8080 -m -w 1\n`}),
      'node-a',
    )
    assert.deepEqual(broken.findings.map((f) => [f.id, f.severity, f.group, f.message]), [
      ['IPVS-004', 'error', 'default/draining:http', 'virtual server TCP 172.30.8.4:80 (default/draining:http) sends traffic to 10.0.2.98:8080, which is not a current endpoint'],
    ])
    assert.equal(broken.results.find((r) => r.id === 'IPVS-004')?.status, 'failed')
  })
})
