// End to end, live: the built CLI against the test API server and two "nodes" (network namespaces with their own
// real sshd and real iptables rules). node-a gets a planted fault (one deleted rule); node-b is clean.
import assert from 'node:assert/strict'
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'
import type {Report} from '../../src/core/model/report.js'
import {type LiveCluster, liveClusterSkipReason, startLiveCluster} from '../support/live-cluster.js'
import {runCli} from '../support/run-cli.js'

describe('check / collect / analyze against live nodes', {skip: liveClusterSkipReason()}, () => {
  let c: LiveCluster
  let deleted = ''

  before(async () => {
    c = await startLiveCluster()
    deleted = c.nodeExec('node-a', ['iptables', '-t', 'nat', '-S', 'KUBE-SERVICES']).split('\n').find((l) => l.includes('default/lb:http cluster IP'))!
    assert.ok(deleted)
    c.nodeExec('node-a', ['sh', '-c', `iptables -t nat -D ${deleted.slice(3)}`])
  })
  after(async () => c?.stop())

  it('check --all finds the deleted rule on node-a only (exit 1)', async () => {
    const r = await c.cli(['check', '--all', '--only', 'iptables', '-o', 'json'])
    assert.equal(r.exitCode, 1, r.stderr)
    const report = JSON.parse(r.stdout) as Report
    assert.deepEqual(report.collectionErrors, [])
    assert.deepEqual(report.nodes.map((n) => [n.name, n.status]), [['node-a', 'unhealthy'], ['node-b', 'healthy']])
    assert.deepEqual(report.findings.map((f) => [f.node, f.id, f.subject.name]), [['node-a', 'IPT-003', deleted]])
    assert.equal(report.results.filter((x) => x.node === 'node-b' && x.status === 'passed').length, 8)
  })

  it('check on the clean node exits 0', async () => {
    const r = await c.cli(['check', 'node-b', '--only', 'iptables'])
    assert.equal(r.exitCode, 0, r.stdout + r.stderr)
    assert.match(r.stdout, /HEALTHY/)
  })

  it('collect writes a bundle that analyze turns into the same findings', async () => {
    const out = join(c.dir, 'bundle')
    const col = await c.cli(['collect', '--all', '--only', 'iptables', '--out', out])
    assert.equal(col.exitCode, 0, col.stderr)
    const live = JSON.parse((await c.cli(['check', '--all', '--only', 'iptables', '-o', 'json'])).stdout) as Report
    const a = await runCli(['analyze', out, '--only', 'iptables', '-o', 'json'])
    assert.equal(a.exitCode, 1)
    const offline = JSON.parse(a.stdout) as Report
    assert.deepEqual(offline.findings, live.findings)
    assert.deepEqual(offline.results, live.results)
  })

  it('an unknown host key refuses that node with its fingerprint; the run is partial (exit 3)', async () => {
    const saved = readFileSync(c.knownHosts, 'utf8')
    try {
      writeFileSync(c.knownHosts, saved.split('\n').filter((l) => !l.includes(c.nodes[1]!.sshd.host)).join('\n'))
      const r = await c.cli(['check', 'node-b', '--only', 'iptables', '-o', 'json'])
      assert.equal(r.exitCode, 3, r.stderr)
      const report = JSON.parse(r.stdout) as Report
      assert.equal(report.nodes[0]!.status, 'uncollected')
      assert.match(report.collectionErrors[0]!.message, /SHA256:[A-Za-z0-9+/]{43}/)
      assert.match(report.collectionErrors[0]!.message, /node-b/)
    } finally {
      writeFileSync(c.knownHosts, saved)
    }
  })

  it('names unknown nodes and refuses a missing kubeconfig with usage errors', async () => {
    const r = await c.cli(['check', 'nope', '--only', 'iptables'])
    assert.equal(r.exitCode, 2)
    assert.match(r.stderr, /nodes "nope" not found/)
    const k = await runCli(['check', '--all', '--kubeconfig', join(c.dir, 'missing-kubeconfig')])
    assert.equal(k.exitCode, 2)
    assert.match(k.stderr, /missing-kubeconfig.*does not exist/)
  })

  it('proxy diff, proxy render and trace take a NODE and read it live', async () => {
    const diff = await c.cli(['proxy', 'diff', 'node-a', '-o', 'json'])
    assert.equal(diff.exitCode, 1, diff.stderr)
    assert.deepEqual((JSON.parse(diff.stdout) as Report).findings.map((f) => [f.id, f.subject.name]), [['IPT-003', deleted]])
    const clean = await c.cli(['proxy', 'diff', 'node-b'])
    assert.equal(clean.exitCode, 0, clean.stdout + clean.stderr)
    const render = await c.cli(['proxy', 'render', 'node-b', '--format', 'save'])
    assert.equal(render.exitCode, 0, render.stderr)
    assert.match(render.stdout, /^-A KUBE-SERVICES -d 172\.30\.3\.1\/32 -p tcp -m comment --comment "default\/lb:http cluster IP"/m)
    const trace = await c.cli(['trace', 'node-a', '--to', '172.30.3.1:80/tcp'])
    assert.equal(trace.exitCode, 1, trace.stderr)
    assert.match(trace.stdout, /differs:/)
    const both = await c.cli(['proxy', 'diff', 'node-a', '--iptables-save', '/dev/null'])
    assert.equal(both.exitCode, 2)
    assert.match(both.stderr, /not both/)
    const ipt = await c.cli(['iptables', 'show', 'node-b', '-o', 'json'])
    assert.equal(ipt.exitCode, 0, ipt.stderr)
    assert.match(ipt.stdout, /default\/lb:http/)
  })

  it('kubelet show and kube-proxy show read a node live', async () => {
    const kp = await c.cli(['kube-proxy', 'show', 'node-a', '-o', 'json'])
    assert.equal(kp.exitCode, 0, kp.stderr)
    assert.match(kp.stdout, /"clusterCIDR"/)
    assert.match(kp.stdout, /10\.0\.0\.0\/8/)
    const kl = await c.cli(['kubelet', 'show', 'node-a', '-o', 'json'])
    // The namespace "node" has no kubelet files: only the API's /configz answers, which the fake serves.
    assert.equal(kl.exitCode, 0, kl.stderr)
    assert.match(kl.stderr, /\(collection item kubelet-config\): exit code 1: no kubelet config file: no kubelet process names one and none of .*\/var\/lib\/kubelet\/config\.yaml exists/)
    assert.doesNotMatch(kl.stderr, /sh -c/, 'scripts are named by their collection item, not printed')
  })

  it('show views read a node live: routes show NODE runs `ip route` on that node', async () => {
    const r = await c.cli(['routes', 'show', 'node-a', '-o', 'json'])
    assert.equal(r.exitCode, 0, r.stderr)
    assert.ok(r.stdout.includes(c.nodes[0]!.ns.address.split('.').slice(0, 3).join('.')), 'the namespace veth subnet appears in its routes')
    const missing = await c.cli(['ipvs', 'show', 'node-a'])
    assert.equal(missing.exitCode, 3, missing.stderr)
    assert.match(missing.stderr, /node-a: IPVS virtual and real servers \(ipvsadm -Sn\): ipvsadm is not installed on the node/)
  })
})
