// End to end: `fix calico-node` with the built CLI against the test API server (Calico objects, a calico-node
// DaemonSet run by the fake controller) and a live node-a: a network namespace with its own sshd and real routes,
// built as the `missing-route` case (no IPIP route to node-b's block, RT-001). The fake kubelet's onRunning hook
// plays the new calico-node: BIRD programs the missing route. node-b exists only as API objects. IP plan:
// test/support/calico-dns-builders.ts.
import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {readFileSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'
import type {AuditRecord} from '../../src/core/model/audit.js'
import type {KubeObject, Pod} from '../../src/core/model/k8s.js'
import type {Report} from '../../src/core/model/report.js'
import {NODES} from '../support/calico-dns-builders.js'
import {setupCalicoNode} from '../support/calico-netns.js'
import {type FakeApiServer, startFakeApiServer} from '../support/fake-apiserver.js'
import {createNetns as createPodsNetns, type Netns as PodsNetns} from '../support/netns.js'
import {ROUTE_CASES} from '../support/route-dns-cases.js'
import {runCli} from '../support/run-cli.js'
import {createNetns, makeTempDir, makeUserKey, type Netns, netnsSkipReason, type Sshd, sshdSkipReason, startSshd} from '../support/sshd.js'

const MISSING = ROUTE_CASES.find((c) => c.name === 'missing-route')!
const ROUTE_TO_B = [NODES['node-b'].block, 'via', NODES['node-b'].ip, 'dev', 'tunl0', 'proto', 'bird', 'onlink']

describe('fix calico-node against a live node', {skip: sshdSkipReason() ?? netnsSkipReason()}, () => {
  let dir: string
  let api: FakeApiServer
  let sshConfig: string
  let ns: Netns
  let pods: PodsNetns
  let sshd: Sshd

  const ip = (argv: string[]) => {
    const r = spawnSync('ip', ['netns', 'exec', ns.name, 'ip', ...argv], {encoding: 'utf8'})
    if (r.status !== 0) throw new Error(`ip ${argv.join(' ')}: ${r.stderr}`)
    return r.stdout
  }
  const calicoPodOn = (node: string) => api.objects().find((o): o is Pod => o.kind === 'Pod' && o.metadata.labels?.['k8s-app'] === 'calico-node' && (o as Pod).spec?.nodeName === node)!
  const cli = (args: string[]) => runCli([...args, '--kubeconfig', api.kubeconfigPath, '--ssh-config', sshConfig, '--no-color'], {env: {HOME: dir, SSH_AUTH_SOCK: ''}, timeoutMs: 120_000})

  before(async () => {
    dir = makeTempDir('nd-fix-calico-')
    const key = makeUserKey(dir)
    ns = createNetns()
    pods = createPodsNetns('nd-rtp')
    // setupCalicoNode drives a namespace through test/support/netns.ts's interface.
    const asNetns: PodsNetns = {
      name: ns.name,
      run: (argv, input) => {
        const r = spawnSync('ip', ['netns', 'exec', ns.name, ...argv], {input, encoding: 'utf8'})
        return {status: r.status, stdout: r.stdout, stderr: r.stderr}
      },
      exec: (argv, input) => {
        const r = spawnSync('ip', ['netns', 'exec', ns.name, ...argv], {input, encoding: 'utf8'})
        if (r.status !== 0) throw new Error(`${argv.join(' ')} in netns ${ns.name} failed (${r.status}): ${r.stderr}`)
        return r.stdout
      },
      destroy: () => ns.remove(),
    }
    setupCalicoNode(asNetns, pods, MISSING.setup!)
    sshd = await startSshd({authorizedKeys: [key.publicKey], netns: ns.name, listenAddress: ns.address})
    const knownHosts = join(dir, 'known_hosts')
    writeFileSync(knownHosts, sshd.knownHostsLine())
    sshConfig = join(dir, 'ssh_config')
    writeFileSync(sshConfig, `Host node-a\n  HostName ${ns.address}\n  Port ${sshd.port}\n  User root\n  IdentityFile ${key.privateKeyPath}\n  IdentitiesOnly yes\n  UserKnownHostsFile ${knownHosts}\n`)

    const cluster = MISSING.cluster()
    const labels = {'k8s-app': 'calico-node'}
    const ds = {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: {name: 'calico-node', namespace: 'kube-system', labels},
      spec: {selector: {matchLabels: labels}, template: {metadata: {labels}, spec: {hostNetwork: true, containers: [{name: 'calico-node', image: 'docker.io/calico/node:v3.30.2'}]}}},
    } as KubeObject
    const objects = [...cluster.nodes, ...cluster.pods, ds, ...cluster.calico.ipPools, ...cluster.calico.blockAffinities, ...cluster.calico.ipamBlocks] as KubeObject[]
    api = await startFakeApiServer({
      objects,
      daemonSetController: {delayMs: 20},
      kubelet: {startDelayMs: 200, onRunning: (_pod, node) => node.metadata.name === 'node-a' && ip(['route', 'replace', ...ROUTE_TO_B])},
    })
    for (let i = 0; i < 100 && !api.objects().every((o) => o.kind !== 'Pod' || o.metadata.ownerReferences?.length); i++) await new Promise((r) => setTimeout(r, 20))
  })
  after(async () => {
    await sshd?.stop().catch(() => undefined)
    pods?.destroy()
    ns?.remove()
    await api?.close()
    if (dir) rmSync(dir, {recursive: true, force: true})
  })

  it('--dry-run plans the calico-node pod on node-a because of RT-001, and changes nothing', async () => {
    const pod = calicoPodOn('node-a')
    api.resetRequests()
    const r = await cli(['fix', 'calico-node', 'node-a', '--dry-run'])
    assert.equal(r.exitCode, 0, r.stderr)
    assert.match(r.stdout, new RegExp(`node-a: delete pod kube-system/${pod.metadata.name} \\(uid ${pod.metadata.uid}\\)\\n {4}because RT-001 error: .*10\\.244\\.2\\.0/26`))
    assert.deepEqual(api.requests.filter((q) => q.method !== 'GET' && q.resource !== 'selfsubjectaccessreviews'), [])
  })

  it('restarts calico-node on node-a; the new pod programs the route; the RT findings are gone: exit 0, audited', async () => {
    const pod = calicoPodOn('node-a')
    const other = calicoPodOn('node-b')
    api.resetRequests()
    const r = await cli(['fix', 'calico-node', 'node-a', '--yes', '-o', 'json', '--verify-timeout', '5s', '--poll-interval', '300ms'])
    assert.equal(r.exitCode, 0, r.stderr)
    assert.deepEqual(
      api.requests.filter((q) => q.method === 'DELETE').map((q) => [q.path, (q.body as {preconditions?: {uid?: string}}).preconditions?.uid]),
      [[`/api/v1/namespaces/kube-system/pods/${pod.metadata.name}`, pod.metadata.uid]],
    )
    assert.equal(calicoPodOn('node-b').metadata.uid, other.metadata.uid)
    assert.match(ip(['route', 'show', NODES['node-b'].block]), /via 192\.168\.0\.12 dev tunl0 proto bird onlink/)
    const report = JSON.parse(r.stdout) as Report
    assert.deepEqual(report.nodes.map((n) => [n.name, n.status]), [['node-a (before)', 'unhealthy'], ['node-a (now)', 'healthy']])
    assert.deepEqual(report.findings.map((f) => [f.node, f.id]), [['node-a (before)', 'RT-001']])
    const record = JSON.parse(readFileSync(join(dir, '.local', 'state', 'node-doctor', 'audit.log'), 'utf8').trim().split('\n').at(-1)!) as AuditRecord
    assert.deepEqual([record.node, record.action, record.outcome, record.before, record.after], ['node-a', 'fix calico-node', 'applied', 'RT-001', 'no findings'])
  })
})
