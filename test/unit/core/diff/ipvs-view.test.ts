// The IPVS diff per Service port and virtual server, as `proxy diff --mode ipvs` prints it above its findings. The
// node: test/fixtures/proxier/ipvs/categorize/node-ipvsadm.txt (a real `ipvsadm -Sn`: a wrong weight, an extra and a
// missing real server) with one virtual server dropped, one rescheduled and one stale added, and the healthy
// kube-ipvs0 and ipsets (test/unit/core/proxier/ipvs/helpers.ts) with one address and one member missing and one stale.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {diffIpvs, type IpvsActual} from '../../../../src/core/diff/ipvs.js'
import {ipvsDiffByService} from '../../../../src/core/diff/ipvs-view.js'
import {parseIpset} from '../../../../src/core/parse/ipset.js'
import {parseIpvsadm} from '../../../../src/core/parse/ipvsadm.js'
import {parseLinks} from '../../../../src/core/parse/links.js'
import {renderIpvsRuleDiff} from '../../../../src/render/rule-diff.js'
import {expectGolden, readFixture} from '../../../support/golden.js'
import {healthyNodeArtifacts, ipAddrJson, renderIpvsCase} from '../proxier/ipvs/helpers.js'

const state = renderIpvsCase('categorize')

/** The planted node: each edit names the difference it makes. */
function brokenCategorizeNode(): IpvsActual {
  const healthy = healthyNodeArtifacts(state)
  const ipvsadm = readFixture('proxier/ipvs/categorize/node-ipvsadm.txt')
    // cat/local-terminating's virtual server is gone (and its real server with it).
    .replace('-A -t 172.30.12.2:80 -s rr\n-a -t 172.30.12.2:80 -r 10.0.2.4:8080 -m -w 1\n', '')
    // cat/all-terminating's is rescheduled by hand.
    .replace('-A -t 172.30.12.5:80 -s rr', '-A -t 172.30.12.5:80 -s wrr')
    // A virtual server no Service needs, with a real server.
    .concat('-A -t 172.30.99.1:80 -s rr\n-a -t 172.30.99.1:80 -r 10.0.9.9:80 -m -w 1\n')
  const bound = state.boundAddresses.filter((a) => a !== '172.30.12.4').concat('172.30.99.1')
  const ipset = healthy.ipset.replace(/^add KUBE-CLUSTER-IP 172\.30\.12\.4,tcp:80\n/m, '').concat('add KUBE-CLUSTER-IP 172.30.99.1,tcp:80\n')
  return {ipvs: parseIpvsadm(ipvsadm), links: parseLinks(ipAddrJson(bound)), ipsets: parseIpset(ipset)}
}

describe('IPVS diff per Service port and virtual server', () => {
  it('a healthy node: nothing to show', () => {
    const healthy = healthyNodeArtifacts(state)
    assert.deepEqual(ipvsDiffByService([state], diffIpvs(state, {ipvs: parseIpvsadm(healthy.ipvsadm), links: parseLinks(healthy.ipAddr), ipsets: parseIpset(healthy.ipset)})), [])
  })

  it('groups real servers under their virtual server with its scheduler, the unowned differences first', () => {
    const view = ipvsDiffByService([state], diffIpvs(state, brokenCategorizeNode()))
    assert.deepEqual(view.map((g) => g.service), [undefined, 'cat/all-terminating:http', 'cat/itp-local:http', 'cat/local-terminating:http', 'cat/mixed:http', 'cat/no-local:http', 'cat/none-usable:http'])
    const [unowned, allTerminating, itpLocal, localTerminating] = view
    assert.deepEqual(unowned!.virtualServers, [{vs: 'TCP 172.30.99.1:80', whole: '+', settings: [], realServers: [{sign: '+', rs: '10.0.9.9:80 weight 1'}]}])
    assert.deepEqual(unowned!.other.map((d) => d.kind), ['stale-address', 'stale-ipset-entry'])
    assert.deepEqual(allTerminating!.virtualServers, [{vs: 'TCP 172.30.12.5:80', scheduler: 'rr', settings: [{sign: '-', setting: 'scheduler', value: 'rr'}, {sign: '+', setting: 'scheduler', value: 'wrr'}], realServers: []}])
    assert.deepEqual(itpLocal!.other.map((d) => d.kind), ['missing-address', 'missing-ipset-entry'])
    assert.deepEqual(localTerminating!.virtualServers, [{vs: 'TCP 172.30.12.2:80', scheduler: 'rr', whole: '-', settings: [], realServers: [{sign: '-', rs: '10.0.2.4:8080', weight: 1}]}])
    // A wrong weight is the expected line and the node's.
    assert.deepEqual(view[5]!.virtualServers[0]!.realServers, [{sign: '-', rs: '10.0.2.5:8080', weight: 1}, {sign: '+', rs: '10.0.2.5:8080', weight: 0}])
  })

  it('a dual-stack node: both families\' states, IPv6 real servers with their expected weight', () => {
    const v4 = renderIpvsCase('dual-stack', {family: 'ipv4'})
    const v6 = renderIpvsCase('dual-stack', {family: 'ipv6'})
    // The IPv6 ClusterIP's virtual server lost one real server, written as ipvsadm writes IPv6 (zeros compressed).
    const ipvsadm = healthyNodeArtifacts(v6).ipvsadm.replace('-a -t [fd00:172:30::11]:80 -r [fd00:10:0:2::70]:8080 -m -w 1\n', '')
    const differences = [...diffIpvs(v4, {ipvs: parseIpvsadm(healthyNodeArtifacts(v4).ipvsadm)}), ...diffIpvs(v6, {ipvs: parseIpvsadm(ipvsadm)})]
    const view = ipvsDiffByService([v4, v6], differences)
    assert.equal(view.length, 1)
    assert.deepEqual(view[0]!.virtualServers, [{vs: 'TCP [fd00:172:30::11]:80', scheduler: 'rr', settings: [], realServers: [{sign: '-', rs: '[fd00:10:0:2::70]:8080', weight: 1}]}])
  })

  it('renders -/+ lines per virtual server (golden); nothing when the node matches', () => {
    const view = ipvsDiffByService([state], diffIpvs(state, brokenCategorizeNode()))
    expectGolden('proxier/ipvs/categorize/rule-diff.txt', renderIpvsRuleDiff(view, {color: false, node: 'node-a'}))
    assert.equal(renderIpvsRuleDiff([], {color: false}), '')
    assert.match(renderIpvsRuleDiff(view, {color: true}), /\u001b\[31m- 10\.0\.2\.4:8080 weight 1/)
  })
})
