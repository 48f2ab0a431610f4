// CT-001 over in-code snapshots: kube-dns 10.96.0.10:53/UDP (test/support/proxy-mode-builders.ts) with endpoints
// 10.244.1.2 and 10.244.3.7, and games/quake (UDP LoadBalancer: NodePort, externalIP, LB IP) served by
// 10.244.1.30; conntrack lines in conntrack-tools 1.4.7 format.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {CONNTRACK_CHECKS} from '../../../../../src/core/checks/conntrack/index.js'
import {runChecks} from '../../../../../src/core/checks/run.js'
import {join} from 'node:path'
import {analyzeSnapshots} from '../../../../../src/app/analyze.js'
import {readBundle} from '../../../../../src/transports/bundle/bundle.js'
import {FIXTURES, readFixture} from '../../../../support/golden.js'
import {GAME, proxyCluster, proxyClusterWithGame, proxyNode} from '../../../../support/proxy-mode-builders.js'

const line = (sport: number, client: string, replySrc: string) =>
  `udp      17 119 src=${client} dst=10.96.0.10 sport=${sport} dport=53 [UNREPLIED] src=${replySrc} dst=${client} sport=53 dport=${sport} mark=0 use=1`

function run(ct: string | undefined, endpoints = ['10.244.1.2', '10.244.3.7']) {
  const out = runChecks(CONNTRACK_CHECKS, proxyCluster({dnsEndpoints: endpoints}), [proxyNode(ct === undefined ? {} : {'conntrack-udp': ct})])
  assert.deepEqual(out.errors, [])
  return {result: out.results[0]!, findings: out.findings}
}

describe('CT-001 stale UDP conntrack entries', () => {
  it('fires per (ClusterIP, stale endpoint) with the targeted delete command', () => {
    const {result, findings} = run([line(1, '10.244.1.5', '10.244.1.2'), line(2, '10.244.1.6', '10.244.2.2'), line(3, '10.244.1.7', '10.244.2.2')].join('\n'))
    assert.equal(result.status, 'failed')
    assert.equal(findings.length, 1)
    const f = findings[0]!
    assert.match(f.message, /2 UDP conntrack entries for kube-system\/kube-dns \(10\.96\.0\.10:53\/udp\) still go to 10\.244\.2\.2/)
    assert.deepEqual(f.subject, {kind: 'Service', name: 'kube-dns', namespace: 'kube-system'})
    assert.equal(f.group, 'kube-system/kube-dns:dns')
    assert.match(f.remedy, /`conntrack -D -p udp --orig-dst 10\.96\.0\.10 --reply-src 10\.244\.2\.2`/)
    assert.match(f.remedy, /kubectl node-doctor fix conntrack node-a --service kube-system\/kube-dns/)
    assert.equal(f.evidence.length, 2)
  })
  it('fires on entries never NATed while the Service now has endpoints', () => {
    const {findings} = run(line(4, '10.244.1.8', '10.96.0.10'))
    assert.match(findings[0]!.message, /created while it had no endpoints/)
    assert.match(findings[0]!.remedy, /--orig-port-dst 53 --reply-src 10\.96\.0\.10/)
  })
  it('passes for current endpoints, non-Service traffic, and un-NATed entries of a Service still without endpoints', () => {
    assert.equal(run(line(1, '10.244.1.5', '10.244.3.7')).result.status, 'passed')
    assert.equal(run('udp      17 20 src=10.244.1.5 dst=8.8.8.8 sport=5 dport=53 src=8.8.8.8 dst=192.168.0.11 sport=53 dport=5 mark=0 use=1').result.status, 'passed')
    assert.equal(run(line(4, '10.244.1.8', '10.96.0.10'), []).result.status, 'passed')
    assert.equal(run('').result.status, 'passed')
  })
  it('skips without the listing or when it cannot be parsed', () => {
    assert.match(run(undefined).result.reason!, /missing input: conntrack-udp/)
    assert.match(run('garbage here\n').result.reason!, /could not be parsed/)
  })
})

/** A game client's flow to `dst:dport`, NATed to `replySrc` and masqueraded to node-a. */
const game = (sport: number, dst: string, dport: number, replySrc: string) =>
  `udp      17 119 src=198.18.0.7 dst=${dst} sport=${sport} dport=${dport} [UNREPLIED] src=${replySrc} dst=192.168.0.11 sport=${GAME.port} dport=${sport} mark=0 use=1`

function runGame(lines: string[], o: {endpoints?: string[]; ipAddr?: string; lbProxy?: boolean} = {}) {
  const cluster = proxyClusterWithGame({}, o.endpoints ?? ['10.244.1.30'])
  if (o.lbProxy) cluster.services.find((x) => x.metadata.name === 'quake')!.status = {loadBalancer: {ingress: [{ip: GAME.lbIP, ipMode: 'Proxy'}]}}
  const out = runChecks(CONNTRACK_CHECKS, cluster, [proxyNode({'conntrack-udp': lines.join('\n'), ...(o.ipAddr === undefined ? {} : {'ip-addr': o.ipAddr})})])
  assert.deepEqual(out.errors, [])
  return {result: out.results[0]!, findings: out.findings}
}

describe('CT-001 beyond the ClusterIP: NodePort, externalIPs, LoadBalancer IPs', () => {
  it('fires per frontend with the targeted delete kube-proxy itself would use', () => {
    const {findings} = runGame([game(1, '192.168.0.11', GAME.nodePort, '10.244.2.30'), game(2, GAME.externalIP, GAME.port, '10.244.2.30'), game(3, GAME.lbIP, GAME.port, '10.244.2.30')])
    assert.deepEqual(
      findings.map((f) => [f.message.replace(/ still goes to .*/, ''), /`(conntrack -D [^`]*)`/.exec(f.remedy)![1]]),
      [
        ['1 UDP conntrack entry for games/quake (NodePort 192.168.0.11:30960/udp)', 'conntrack -D -p udp --orig-port-dst 30960 --reply-src 10.244.2.30'],
        ['1 UDP conntrack entry for games/quake (externalIP 203.0.113.10:27960/udp)', 'conntrack -D -p udp --orig-dst 203.0.113.10 --reply-src 10.244.2.30'],
        ['1 UDP conntrack entry for games/quake (LoadBalancer 198.51.100.20:27960/udp)', 'conntrack -D -p udp --orig-dst 198.51.100.20 --reply-src 10.244.2.30'],
      ],
    )
    assert.ok(findings.every((f) => f.group === 'games/quake:game'))
  })

  it('never-NATed NodePort entries while the Service has endpoints fire with a delete by node address and port', () => {
    const {findings} = runGame([game(4, '192.168.0.11', GAME.nodePort, '192.168.0.11').replace(`sport=${GAME.port} dport=4`, `sport=${GAME.nodePort} dport=4`)])
    assert.match(findings[0]!.message, /\(NodePort 192\.168\.0\.11:30960\/udp\) was created while it had no endpoints/)
    assert.match(findings[0]!.remedy, /conntrack -D -p udp --orig-dst 192\.168\.0\.11 --orig-port-dst 30960 --reply-src 192\.168\.0\.11/)
  })

  it('stays quiet for current endpoints, other hosts\' ports, Proxy-mode load balancers and Services without endpoints', () => {
    assert.equal(runGame([game(1, '192.168.0.11', GAME.nodePort, '10.244.1.30'), game(2, GAME.externalIP, GAME.port, '10.244.1.30'), game(3, GAME.lbIP, GAME.port, '10.244.1.30')]).result.status, 'passed')
    assert.equal(runGame([game(5, '8.8.4.4', GAME.nodePort, '8.8.4.4')]).result.status, 'passed', 'the nodePort number on a remote host is not this node\'s NodePort')
    assert.equal(runGame([game(6, GAME.lbIP, GAME.port, GAME.lbIP)], {lbProxy: true}).result.status, 'passed', 'ipMode Proxy: the node does not route the LB IP')
    assert.equal(runGame([game(7, GAME.externalIP, GAME.port, GAME.externalIP)], {endpoints: []}).result.status, 'passed', 'not NATed while there are no endpoints: rejected anyway')
    assert.equal(runGame([game(8, GAME.externalIP, GAME.port, '10.244.2.30')], {endpoints: []}).result.status, 'failed', 'NATed to a pod that is gone')
  })

  it('NodePorts are reached on every interface address of the node, not on kube-ipvs0\'s Service VIPs', () => {
    // The capture has eth0 10.0.0.5 and kube-ipvs0 holding 10.96.0.1, 10.96.0.10 (Service VIPs).
    const ipAddr = readFixture('parse/links/ip-j-d-addr.json')
    assert.equal(runGame([game(1, '10.0.0.5', GAME.nodePort, '10.244.2.30')], {ipAddr}).findings.length, 1)
    assert.equal(runGame([game(1, '10.0.0.5', GAME.nodePort, '10.244.2.30')]).findings.length, 0, 'without ip-addr only the Node object\'s addresses count')
    assert.equal(runGame([game(1, '10.96.0.10', GAME.nodePort, '10.244.2.30')], {ipAddr}).findings.length, 0)
  })

  it('the stale-udp-frontends bundle (real conntrack entries) fires for all three frontends; healthy-frontends passes', async () => {
    const meta = {generatedAt: '2026-01-01T00:00:00Z', tool: {name: 'node-doctor', version: 'test'}, command: 'test'}
    const fire = await readBundle(join(FIXTURES, 'checks/conntrack/stale-udp-frontends'))
    const out = analyzeSnapshots(fire.cluster, fire.nodes, {metadata: meta, checks: CONNTRACK_CHECKS})
    assert.deepEqual(out.findings.map((f) => /\((NodePort|externalIP|LoadBalancer) /.exec(f.message)?.[1]), ['NodePort', 'externalIP', 'LoadBalancer'])
    const healthy = await readBundle(join(FIXTURES, 'checks/conntrack/healthy-frontends'))
    assert.ok(healthy.nodes[0]!.artifacts['conntrack-udp']!.content.includes(`dport=${GAME.nodePort}`))
    assert.equal(analyzeSnapshots(healthy.cluster, healthy.nodes, {metadata: meta, checks: CONNTRACK_CHECKS}).results[0]?.status, 'passed')
  })
})
