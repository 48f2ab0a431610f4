// End to end, live, Calico routes: the built CLI against the test API server holding Calico objects (IPPool,
// BlockAffinities, IPAMBlocks, calico-node pods; the healthy IPIP cluster of test/support/route-dns-cases.ts) and two
// "nodes" that are network namespaces with their own real sshd and real routes. node-a is the `missing-route`
// scenario (no route to node-b's block); node-b is its clean mirror image. IP plan: calico-dns-builders.ts; the
// Node objects keep the plan's addresses and the ssh config gives each node its namespace's veth address.
import assert from 'node:assert/strict'
import {rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'
import type {KubeObject} from '../../src/core/model/k8s.js'
import type {Report} from '../../src/core/model/report.js'
import {NODES} from '../support/calico-dns-builders.js'
import {podRoute, setupCalicoNode} from '../support/calico-netns.js'
import {type FakeApiServer, startFakeApiServer} from '../support/fake-apiserver.js'
import {createNetns as createPodsNetns, type Netns as PodsNetns} from '../support/netns.js'
import {ROUTE_CASES} from '../support/route-dns-cases.js'
import {runCli} from '../support/run-cli.js'
import {asPodsNetns, createNetns, makeTempDir, makeUserKey, type Netns, netnsSkipReason, type Sshd, sshdSkipReason, startSshd} from '../support/sshd.js'

const MISSING = ROUTE_CASES.find((c) => c.name === 'missing-route')!


/** node-b as Calico programs it: its blackhole, its pod's /32, and IPIP to node-a's block. */
function setupCleanNodeB(ns: PodsNetns, pods: PodsNetns): void {
  const b = NODES['node-b']
  const ip = (...a: string[]) => ns.exec(['ip', ...a])
  ip('link', 'set', 'lo', 'up')
  ip('link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', 'eth0-peer')
  ip('link', 'set', 'eth0', 'up')
  ip('link', 'set', 'eth0-peer', 'up')
  ip('addr', 'add', `${b.ip}/24`, 'dev', 'eth0')
  ip('link', 'add', 'tunl0', 'type', 'veth', 'peer', 'name', 'tunl0-peer')
  ip('link', 'set', 'tunl0', 'mtu', '1480', 'up')
  ip('link', 'set', 'tunl0-peer', 'up')
  ip('addr', 'add', `${b.tunnel}/32`, 'dev', 'tunl0')
  ip('link', 'add', 'cali3333333333c', 'mtu', '1480', 'type', 'veth', 'peer', 'name', 'eth1', 'mtu', '1480', 'netns', pods.name)
  ip('link', 'set', 'cali3333333333c', 'up')
  pods.exec(['ip', 'link', 'set', 'eth1', 'up'])
  ip('route', 'add', 'default', 'via', '192.168.0.1', 'dev', 'eth0', 'src', b.ip)
  ip('route', 'add', 'blackhole', b.block, 'proto', 'bird')
  ip('route', 'add', ...podRoute('10.244.2.10', 'cali3333333333c'))
  ip('route', 'add', NODES['node-a'].block, 'via', NODES['node-a'].ip, 'dev', 'tunl0', 'proto', 'bird', 'onlink')
}

describe('check --all finds a planted Calico route fault live', {skip: sshdSkipReason() ?? netnsSkipReason()}, () => {
  let dir: string
  let api: FakeApiServer
  let sshConfig: string
  const sshds: Sshd[] = []
  const namespaces: Array<{remove(): void}> = []

  before(async () => {
    dir = makeTempDir('nd-live-rt-')
    const key = makeUserKey(dir)
    const knownHosts = join(dir, 'known_hosts')
    let config = ''
    for (const name of ['node-a', 'node-b'] as const) {
      const ns = createNetns()
      namespaces.push(ns)
      const pods = createPodsNetns('nd-rtp')
      namespaces.push({remove: () => pods.destroy()})
      if (name === 'node-a') setupCalicoNode(asPodsNetns(ns), pods, MISSING.setup!)
      else setupCleanNodeB(asPodsNetns(ns), pods)
      const sshd = await startSshd({authorizedKeys: [key.publicKey], netns: ns.name, listenAddress: ns.address})
      sshds.push(sshd)
      writeFileSync(knownHosts, sshd.knownHostsLine(), {flag: 'a'})
      config += `Host ${name}\n  HostName ${ns.address}\n  Port ${sshd.port}\n  User root\n  IdentityFile ${key.privateKeyPath}\n  IdentitiesOnly yes\n  UserKnownHostsFile ${knownHosts}\n\n`
    }
    sshConfig = join(dir, 'ssh_config')
    writeFileSync(sshConfig, config)
    const cluster = MISSING.cluster()
    const objects = [...cluster.nodes, ...cluster.pods, ...cluster.calico.ipPools, ...cluster.calico.blockAffinities, ...cluster.calico.ipamBlocks] as KubeObject[]
    api = await startFakeApiServer({objects})
  })
  after(async () => {
    await Promise.all(sshds.map((s) => s.stop().catch(() => undefined)))
    for (const n of namespaces) n.remove()
    await api?.close()
    if (dir) rmSync(dir, {recursive: true, force: true})
  })

  const cli = (args: string[]) => runCli([...args, '--kubeconfig', api.kubeconfigPath, '--ssh-config', sshConfig, '--no-color'], {env: {HOME: dir, SSH_AUTH_SOCK: ''}, timeoutMs: 120_000})

  it('reports RT-001 on node-a (no route to node-b\'s block) and nothing on node-b', async () => {
    const r = await cli(['check', '--all', '--only', 'routes', '-o', 'json'])
    assert.equal(r.exitCode, 1, r.stderr)
    const report = JSON.parse(r.stdout) as Report
    assert.deepEqual(report.collectionErrors, [])
    assert.deepEqual(report.nodes.map((n) => [n.name, n.status]), [['node-a', 'unhealthy'], ['node-b', 'healthy']])
    assert.deepEqual(report.findings.map((f) => [f.node, f.id]), [['node-a', 'RT-001']])
    assert.match(report.findings[0]!.message, /10\.244\.2\.0\/26/)
    // The route checks really ran on node-b (they were not skipped for want of Calico data).
    const ranOnB = report.results.filter((x) => x.node === 'node-b' && x.status === 'passed').map((x) => x.id)
    assert.ok(ranOnB.includes('RT-001') && ranOnB.includes('RT-005'), ranOnB.join(', '))
  })

  it('check on the clean node alone exits 0', async () => {
    const r = await cli(['check', 'node-b', '--only', 'routes'])
    assert.equal(r.exitCode, 0, r.stdout + r.stderr)
  })
})
