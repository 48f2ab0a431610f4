// The built CLI with --via pod and `cleanup`, against the fake API server. For `check`, node node-a is a network
// namespace holding the rules kube-proxy would write (plus an interface with the node's IP): the fake kubelet
// runs every exec there, so iptables-save returns that namespace's real state. Run `npm run build` first.
import assert from 'node:assert/strict'
import {spawn, spawnSync} from 'node:child_process'
import {readFileSync} from 'node:fs'
import {after, before, describe, it} from 'node:test'
import type {KubeObject, Node} from '../../../src/core/model/k8s.js'
import type {Report} from '../../../src/core/model/report.js'
import {generateIptablesRestore} from '../../../src/core/proxier/iptables/generate.js'
import {serializeSave} from '../../../src/core/proxier/iptables/save.js'
import {loadObjects} from '../../../src/core/proxier/objects.js'
import {buildRenderInput} from '../../../src/core/proxier/render-input.js'
import {type FakeApiServer, startFakeApiServer} from '../../support/fake-apiserver.js'
import {fixturePath} from '../../support/golden.js'
import {node, pod} from '../../support/kube-objects.js'
import {createNetns, type Netns, netnsUnavailable} from '../../support/netns.js'
import {CLI, runCli} from '../../support/run-cli.js'

const leftover = (namespace: string, name: string, nodeName: string, run: string): KubeObject => {
  const p = pod(namespace, name, nodeName, '192.168.0.11', {'app.kubernetes.io/managed-by': 'node-doctor', 'node-doctor.io/run': run}, ['node-doctor'])
  return p
}

describe('kubectl node-doctor cleanup', () => {
  let api: FakeApiServer
  const names = () =>
    api
      .objects()
      .filter((o) => o.kind === 'Pod')
      .map((o) => `${o.metadata.namespace}/${o.metadata.name}`)
      .sort()
  const cli = (args: string[]) => runCli(['cleanup', ...args, '--kubeconfig', api.kubeconfigPath], {env: {HOME: '/nonexistent', KUBECONFIG: undefined}, timeoutMs: 120_000})

  before(async () => {
    api = await startFakeApiServer({
      objects: [
        node('node-a', '192.168.0.11', '10.0.1.0/24'),
        leftover('kube-system', 'node-doctor-node-a-11111111', 'node-a', '11111111'),
        leftover('kube-system', 'node-doctor-node-b-11111111', 'node-b', '11111111'),
        leftover('tools', 'node-doctor-node-a-22222222', 'node-a', '22222222'),
        pod('kube-system', 'kube-proxy-aaaaa', 'node-a', '192.168.0.11', {'k8s-app': 'kube-proxy'}, ['kube-proxy']),
      ],
    })
  })
  after(() => api.close())

  it('--dry-run lists the leftovers of the namespace and changes nothing', async () => {
    const before = names()
    const r = await cli(['--dry-run'])
    assert.equal(r.exitCode, 0, r.stderr)
    assert.equal(
      r.stdout,
      'pod "kube-system/node-doctor-node-a-11111111" would be deleted (dry run) (node node-a, run 11111111, Running)\n' +
        'pod "kube-system/node-doctor-node-b-11111111" would be deleted (dry run) (node node-b, run 11111111, Running)\n',
    )
    assert.deepEqual(names(), before)
    assert.ok(!api.requests.some((r) => r.method === 'DELETE'))
  })

  it('a refused delete is reported per pod, exit 4, the others still deleted', async () => {
    api.setDenyRules([{resource: 'pods', verb: 'delete', name: 'node-doctor-node-b-11111111'}])
    try {
      const r = await cli([])
      assert.equal(r.exitCode, 4)
      assert.equal(r.stdout, 'pod "kube-system/node-doctor-node-a-11111111" deleted (node node-a, run 11111111, Running)\n')
      assert.match(r.stderr, /could not delete pod "kube-system\/node-doctor-node-b-11111111": .*forbidden/)
    } finally {
      api.setDenyRules([])
    }
  })

  it('deletes the namespace\'s debug pods, then every namespace\'s with -A, never anything else', async () => {
    const r = await cli([])
    assert.equal(r.exitCode, 0, r.stderr)
    assert.equal(r.stdout, 'pod "kube-system/node-doctor-node-b-11111111" deleted (node node-b, run 11111111, Running)\n')
    assert.deepEqual(names(), ['kube-system/kube-proxy-aaaaa', 'tools/node-doctor-node-a-22222222'])
    const all = await cli(['-A'])
    assert.equal(all.exitCode, 0, all.stderr)
    assert.equal(all.stdout, 'pod "tools/node-doctor-node-a-22222222" deleted (node node-a, run 22222222, Running)\n')
    assert.deepEqual(names(), ['kube-system/kube-proxy-aaaaa'])
    const deletes = api.requests.filter((q) => q.method === 'DELETE' && q.status === 200)
    assert.ok(deletes.every((q) => (q.body as {gracePeriodSeconds?: number}).gracePeriodSeconds === 0 && (q.body as {preconditions?: {uid?: string}}).preconditions?.uid))
    const none = await cli(['-A'])
    assert.equal(none.exitCode, 0)
    assert.equal(none.stdout, '')
    assert.equal(none.stderr, 'No node-doctor debug pods in any namespace.\n')
  })
})

describe('Ctrl-C during kubectl node-doctor check --via pod', () => {
  let api: FakeApiServer
  before(async () => {
    // The kubelet takes a minute to start pods: the run is inside the debug pod's start-up when interrupted.
    api = await startFakeApiServer({objects: [node('node-a', '192.168.0.11', '10.0.1.0/24')], kubelet: {startDelayMs: 60_000}})
  })
  after(() => api.close())

  it('deletes the debug pod, then dies of SIGINT', async () => {
    const env: NodeJS.ProcessEnv = {...process.env, HOME: '/nonexistent', NO_COLOR: '1'}
    delete env.KUBECONFIG
    const child = spawn(CLI, ['check', 'node-a', '--via', 'pod', '--only', 'iptables', '--kubeconfig', api.kubeconfigPath], {env, stdio: ['ignore', 'pipe', 'pipe']})
    let stderr = ''
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('exit', (code, signal) => resolve([code, signal])))
    try {
      const end = Date.now() + 120_000
      while (!api.objects().some((o) => o.kind === 'Pod')) {
        if (Date.now() > end) assert.fail(`no debug pod was created: ${stderr}`)
        await new Promise((r) => setTimeout(r, 50))
      }
      child.kill('SIGINT')
      assert.deepEqual(await exited, [null, 'SIGINT'], stderr)
      assert.deepEqual(api.objects().filter((o) => o.kind === 'Pod'), [])
      assert.match(stderr, /interrupted: cleaning up namespace (node-doctor-debug-[0-9a-f]{8}), debug pod \1\/node-doctor-node-a-[0-9a-f]{8}/)
      assert.deepEqual(api.objects().filter((o) => o.kind === 'Namespace' && o.metadata.name.startsWith('node-doctor-debug-')), [], 'the run namespace is deleted too')
    } finally {
      child.kill('SIGKILL')
    }
  })
})

const KUBE_PROXY_CONFIG = 'apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: iptables\nclusterCIDR: 10.0.0.0/8\n'
const NODE_IP = '192.168.0.2'

describe('kubectl node-doctor check --via pod', {skip: netnsUnavailable()}, () => {
  let api: FakeApiServer
  let ns: Netns

  before(async () => {
    ns = createNetns('ndpodcli')
    ns.exec(['ip', 'link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', 'eth0-peer'])
    ns.exec(['ip', 'addr', 'add', `${NODE_IP}/24`, 'dev', 'eth0'])
    ns.exec(['ip', 'link', 'set', 'eth0', 'up'])
    const objects = loadObjects([
      {name: 'lb', text: readFileSync(fixturePath('proxier/iptables/loadbalancer/objects.yaml'), 'utf8')},
      {name: 'nodes', text: readFileSync(fixturePath('proxier/iptables/nodes.yaml'), 'utf8')},
    ])
    const fixtureNode = objects.nodes.find((n) => n.metadata.name === 'node-a')!
    const nodeA: Node = {
      ...fixtureNode,
      apiVersion: 'v1',
      kind: 'Node',
      status: {addresses: [{type: 'InternalIP', address: NODE_IP}, {type: 'Hostname', address: 'node-a'}], conditions: [{type: 'Ready', status: 'True'}]},
    }
    const render = buildRenderInput({...objects, nodes: [nodeA]}, {nodeName: 'node-a', kubeProxyConfig: {mode: 'iptables', clusterCIDR: '10.0.0.0/8'}, facts: {nfacct: false, family: 'ipv4'}})
    const r = spawnSync('ip', ['netns', 'exec', ns.name, 'iptables-restore'], {input: serializeSave(generateIptablesRestore(render.input).ruleset), encoding: 'utf8'})
    assert.equal(r.status, 0, r.stderr)
    api = await startFakeApiServer({
      objects: [
        ...[...objects.services, ...objects.endpointSlices].map((o) => ({...o})),
        nodeA,
        {apiVersion: 'v1', kind: 'ConfigMap', metadata: {namespace: 'kube-system', name: 'kube-proxy'}, data: {'config.conf': KUBE_PROXY_CONFIG}} as KubeObject,
        {apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: {namespace: 'kube-system', name: 'kube-proxy'}, spec: {template: {spec: {containers: [{name: 'kube-proxy', image: 'registry.k8s.io/kube-proxy:v1.33.2'}]}}}} as KubeObject,
      ],
      kubelet: {netns: {'node-a': ns.name}, unpullableImages: ['registry.example/missing:1']},
    })
  })
  after(async () => {
    await api?.close()
    ns?.destroy()
  })

  const cli = (args: string[]) => runCli(['check', 'node-a', '--via', 'pod', '--only', 'iptables', '-o', 'json', '--kubeconfig', api.kubeconfigPath, ...args], {env: {HOME: '/nonexistent', KUBECONFIG: undefined}, timeoutMs: 120_000})

  it("collects the node's real iptables through a debug pod and reports on it; the pod is gone afterwards", async () => {
    const r = await cli([])
    // Once (1 of 4 full runs, not reproduced since) this CLI exited 137 with no output: say all there is if it recurs.
    assert.equal(r.exitCode, 0, `exit ${r.exitCode}\nstderr: ${r.stderr}\nstdout: ${r.stdout.slice(0, 2000)}\nexecs: ${JSON.stringify(api.execs.map((e) => e.exitCode))}`)
    const report = JSON.parse(r.stdout) as Report
    assert.deepEqual(report.collectionErrors, [])
    assert.deepEqual(report.nodes.map((n) => [n.name, n.status]), [['node-a', 'healthy']])
    assert.ok(report.results.filter((x) => x.status === 'passed').length >= 8, 'the iptables checks ran on the collected rules')
    // The plan runs as two batch scripts (two execs through the API), one of them running iptables-save.
    assert.equal(api.execs.length, 2, api.execs.map((e) => e.command.at(-1)?.slice(0, 80)).join('\n'))
    const saves = api.execs.filter((e) => /\niptables-save <\/dev\/null &\n/.test(e.command.at(-1) ?? ''))
    assert.equal(saves.length, 1)
    assert.deepEqual(saves[0]!.command.slice(0, 9), ['nsenter', '-t', '1', '-m', '-u', '-i', '-n', '-p', '--'])
    assert.equal(saves[0]!.netns, ns.name)
    // The transport hangs up once both streams carry the batch's end markers (a daemon the script started may hold
    // them open), so on a loaded machine the shell can be killed (137) between its last marker and its exit: the
    // report above, built from that output, is the proof the command ran; a hang-up before the end would fail it.
    assert.ok(saves[0]!.exitCode === 0 || saves[0]!.hungUp, `exit ${saves[0]!.exitCode}, hungUp ${saves[0]!.hungUp}`)
    const created = api.requests.filter((q) => q.method === 'POST' && q.resource === 'pods')
    assert.equal(created.length, 1)
    assert.equal((created[0]!.body as {spec: {nodeName: string}}).spec.nodeName, 'node-a')
    assert.deepEqual(api.objects().filter((o) => o.kind === 'Pod'), [], 'the debug pod was deleted')
    // Without --pod-namespace: a namespace of the run's own, labelled for privileged pods, gone afterwards.
    const namespaces = api.requests.filter((q) => q.method === 'POST' && q.resource === 'namespaces')
    assert.equal(namespaces.length, 1)
    const nsName = (namespaces[0]!.body as KubeObject).metadata.name
    assert.match(nsName, /^node-doctor-debug-[0-9a-f]{8}$/)
    assert.equal((namespaces[0]!.body as KubeObject).metadata.labels?.['pod-security.kubernetes.io/enforce'], 'privileged')
    assert.equal(created[0]!.namespace, nsName)
    assert.deepEqual(api.objects().filter((o) => o.kind === 'Namespace' && o.metadata.name === nsName), [], 'the run namespace was deleted')
  })

  it("sees a rule deleted in the node's namespace (the data is the node's, not this machine's)", async () => {
    const rules = ns.exec(['iptables', '-t', 'nat', '-S', 'KUBE-SERVICES']).split('\n')
    const deleted = rules.find((l) => l.includes('default/lb:http cluster IP'))!
    assert.ok(deleted)
    ns.exec(['sh', '-c', `iptables -t nat -D ${deleted.slice(3)}`])
    const r = await cli([])
    assert.equal(r.exitCode, 1, r.stderr)
    const report = JSON.parse(r.stdout) as Report
    assert.deepEqual(report.findings.map((f) => [f.node, f.id, f.subject.name]), [['node-a', 'IPT-003', deleted]])
    assert.deepEqual(api.objects().filter((o) => o.kind === 'Pod'), [])
  })

  it('a pod that cannot start makes the node uncollected with the reason (exit 3), and is deleted', async () => {
    const r = await cli(['--pod-image', 'registry.example/missing:1'])
    assert.equal(r.exitCode, 3, r.stderr)
    const report = JSON.parse(r.stdout) as Report
    assert.equal(report.nodes[0]!.status, 'uncollected')
    assert.match(report.collectionErrors[0]!.message, /debug pod node-doctor-debug-[0-9a-f]{8}\/node-doctor-node-a-[0-9a-f]{8} on node node-a: container ImagePullBackOff: Back-off pulling image "registry.example\/missing:1"\. .*--pod-image/)
    assert.deepEqual(api.objects().filter((o) => o.kind === 'Pod'), [])
  })

  it('--pod-namespace uses that namespace and creates none', async () => {
    const before = api.requests.length
    const r = await cli(['--pod-namespace', 'kube-system'])
    // Exit 1: the rule deleted above is still missing; what matters is that the node was collected.
    assert.equal(r.exitCode, 1, r.stderr)
    assert.deepEqual((JSON.parse(r.stdout) as Report).collectionErrors, [])
    const posts = api.requests.slice(before).filter((q) => q.method === 'POST')
    assert.deepEqual(posts.map((q) => [q.resource, q.namespace]), [['pods', 'kube-system']])
  })
})
