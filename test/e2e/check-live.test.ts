// End to end, live: the built CLI against the test API server and two "nodes", each a network namespace running
// its own real sshd and holding real iptables rules. node-a has a planted fault (one deleted rule); node-b is clean.
// Traffic stays on veth pairs into namespaces this test creates.
import assert from 'node:assert/strict'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'
import type {KubeObject, Node} from '../../src/core/model/k8s.js'
import type {Report} from '../../src/core/model/report.js'
import {generateIptablesRestore} from '../../src/core/proxier/iptables/generate.js'
import {serializeSave} from '../../src/core/proxier/iptables/save.js'
import {loadObjects} from '../../src/core/proxier/objects.js'
import {buildRenderInput} from '../../src/core/proxier/render-input.js'
import {startFakeApiServer, type FakeApiServer} from '../support/fake-apiserver.js'
import {fixturePath} from '../support/golden.js'
import {runCli} from '../support/run-cli.js'
import {createNetns, makeTempDir, makeUserKey, netnsSkipReason, type Netns, type Sshd, sshdSkipReason, startSshd} from '../support/sshd.js'
import {spawnSync} from 'node:child_process'

const skip = sshdSkipReason() ?? netnsSkipReason()
const KUBE_PROXY_CONFIG = 'apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: iptables\nclusterCIDR: 10.0.0.0/8\n'

describe('check / collect / analyze against live nodes', {skip}, () => {
  const nodes: Array<{name: string; ns: Netns; sshd: Sshd}> = []
  let api: FakeApiServer
  let dir: string
  let sshConfig: string
  let knownHosts: string
  let deleted = ''
  const cli = (args: string[]) =>
    runCli([...args, '--kubeconfig', api.kubeconfigPath, '--ssh-config', sshConfig, '--no-color'], {env: {HOME: dir, SSH_AUTH_SOCK: ''}, timeoutMs: 120_000})

  before(async () => {
    dir = makeTempDir('nd-live-')
    const key = makeUserKey(dir)
    const objects = loadObjects([
      {name: 'lb', text: readFileSync(fixturePath('proxier/iptables/loadbalancer/objects.yaml'), 'utf8')},
      {name: 'nodes', text: readFileSync(fixturePath('proxier/iptables/nodes.yaml'), 'utf8')},
    ])
    const apiObjects: KubeObject[] = [...objects.services, ...objects.endpointSlices].map((o) => ({...o}))
    let config = ''
    knownHosts = join(dir, 'known_hosts')
    for (const name of ['node-a', 'node-b']) {
      const ns = createNetns()
      const sshd = await startSshd({authorizedKeys: [key.publicKey], netns: ns.name, listenAddress: ns.address})
      nodes.push({name, ns, sshd})
      const fixtureNode = objects.nodes.find((n) => n.metadata.name === name)!
      const node: Node = {
        ...fixtureNode,
        apiVersion: 'v1',
        kind: 'Node',
        status: {addresses: [{type: 'InternalIP', address: ns.address}, {type: 'Hostname', address: name}], conditions: [{type: 'Ready', status: 'True'}]},
      }
      apiObjects.push(node)
      config += `Host ${name}\n  Port ${sshd.port}\n  User root\n  IdentityFile ${key.privateKeyPath}\n  IdentitiesOnly yes\n  UserKnownHostsFile ${knownHosts}\n\n`
      // The rules kube-proxy would have written on this node (nfacct objects do not exist in the namespace).
      const render = buildRenderInput({...objects, nodes: [node]}, {nodeName: name, kubeProxyConfig: {mode: 'iptables', clusterCIDR: '10.0.0.0/8'}, facts: {nfacct: false, family: 'ipv4'}})
      const r = spawnSync('ip', ['netns', 'exec', ns.name, 'iptables-restore'], {input: serializeSave(generateIptablesRestore(render.input).ruleset), encoding: 'utf8'})
      assert.equal(r.status, 0, r.stderr)
    }
    writeFileSync(knownHosts, nodes.map((n) => n.sshd.knownHostsLine(n.ns.address === n.sshd.host ? undefined : n.sshd.host)).join('\n') + '\n')
    sshConfig = join(dir, 'ssh_config')
    writeFileSync(sshConfig, config)
    // Plant the fault on node-a: delete its ClusterIP rule for default/lb:http with the real iptables.
    const a = nodes[0]!
    const rules = spawnSync('ip', ['netns', 'exec', a.ns.name, 'iptables', '-t', 'nat', '-S', 'KUBE-SERVICES'], {encoding: 'utf8'}).stdout.split('\n')
    deleted = rules.find((l) => l.includes('default/lb:http cluster IP'))!
    assert.ok(deleted)
    const del = spawnSync('sh', ['-c', `ip netns exec ${a.ns.name} iptables -t nat -D ${deleted.slice(3)}`], {encoding: 'utf8'})
    assert.equal(del.status, 0, del.stderr)
    apiObjects.push(
      {apiVersion: 'v1', kind: 'ConfigMap', metadata: {namespace: 'kube-system', name: 'kube-proxy'}, data: {'config.conf': KUBE_PROXY_CONFIG}} as KubeObject,
      {apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: {namespace: 'kube-system', name: 'kube-proxy'}, spec: {template: {spec: {containers: [{name: 'kube-proxy', image: 'registry.k8s.io/kube-proxy:v1.33.2'}]}}}} as KubeObject,
    )
    api = await startFakeApiServer({objects: apiObjects})
  })

  after(async () => {
    for (const n of nodes) {
      await n.sshd.stop().catch(() => undefined)
      n.ns.remove()
    }
    await api?.close()
    if (dir) rmSync(dir, {recursive: true, force: true})
  })

  it('check --all finds the deleted rule on node-a only (exit 1)', async () => {
    const r = await cli(['check', '--all', '--only', 'iptables', '-o', 'json'])
    assert.equal(r.exitCode, 1, r.stderr)
    const report = JSON.parse(r.stdout) as Report
    assert.deepEqual(report.collectionErrors, [])
    assert.deepEqual(report.nodes.map((n) => [n.name, n.status]), [['node-a', 'unhealthy'], ['node-b', 'healthy']])
    assert.deepEqual(report.findings.map((f) => [f.node, f.id, f.subject.name]), [['node-a', 'IPT-003', deleted.replace(/^-A KUBE-SERVICES /, '-A KUBE-SERVICES ')]])
    assert.equal(report.results.filter((x) => x.node === 'node-b' && x.status === 'passed').length, 8)
  })

  it('check on the clean node exits 0', async () => {
    const r = await cli(['check', 'node-b', '--only', 'iptables'])
    assert.equal(r.exitCode, 0, r.stdout + r.stderr)
    assert.match(r.stdout, /HEALTHY/)
  })

  it('collect writes a bundle that analyze turns into the same findings', async () => {
    const out = join(dir, 'bundle')
    const c = await cli(['collect', '--all', '--only', 'iptables', '--out', out])
    assert.equal(c.exitCode, 0, c.stderr)
    const live = JSON.parse((await cli(['check', '--all', '--only', 'iptables', '-o', 'json'])).stdout) as Report
    const a = await runCli(['analyze', out, '--only', 'iptables', '-o', 'json'])
    assert.equal(a.exitCode, 1)
    const offline = JSON.parse(a.stdout) as Report
    assert.deepEqual(offline.findings, live.findings)
    assert.deepEqual(offline.results, live.results)
  })

  it('an unknown host key refuses that node with its fingerprint; the run is partial (exit 3)', async () => {
    const saved = readFileSync(knownHosts, 'utf8')
    try {
      writeFileSync(knownHosts, saved.split('\n').filter((l) => !l.includes(nodes[1]!.sshd.host)).join('\n'))
      const r = await cli(['check', 'node-b', '--only', 'iptables', '-o', 'json'])
      assert.equal(r.exitCode, 3, r.stderr)
      const report = JSON.parse(r.stdout) as Report
      assert.equal(report.nodes[0]!.status, 'uncollected')
      assert.match(report.collectionErrors[0]!.message, /SHA256:[A-Za-z0-9+/]{43}/)
      assert.match(report.collectionErrors[0]!.message, /node-b/)
    } finally {
      writeFileSync(knownHosts, saved)
    }
  })

  it('names unknown nodes and refuses a missing kubeconfig with usage errors', async () => {
    const r = await cli(['check', 'nope', '--only', 'iptables'])
    assert.equal(r.exitCode, 2)
    assert.match(r.stderr, /nodes "nope" not found/)
    const k = await runCli(['check', '--all', '--kubeconfig', join(dir, 'missing-kubeconfig')])
    assert.equal(k.exitCode, 2)
    assert.match(k.stderr, /missing-kubeconfig.*does not exist/)
  })
})
