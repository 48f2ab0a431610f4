// End to end: `check --all --in-cluster` through the built CLI against the test API server with its DaemonSet
// controller. Nodes node-a and node-b are network namespaces holding the rules kube-proxy would write (node-a with
// one rule deleted). This test plays each agent pod: once the fake kubelet runs it, the test runs the pod's own
// container args (`agent collect ...`, from the generated DaemonSet) with the built CLI inside that node's namespace,
// and puts the output in the pod's log, so generation, framing, log reading and merge are all exercised for real.
import assert from 'node:assert/strict'
import {spawn, spawnSync} from 'node:child_process'
import {existsSync, readFileSync, rmSync} from 'node:fs'
import {join} from 'node:path'
import {after, afterEach, before, describe, it} from 'node:test'
import {readClusterSnapshot} from '../../src/app/read-cluster.js'
import {readAgentDocument} from '../../src/core/agent/document.js'
import {agentLayoutScope} from '../../src/core/agent/layout-scope.js'
import {agentPlan, type HostMount} from '../../src/core/agent/privileges.js'
import {ABSENT_HEADER, FILE_HEADER} from '../../src/core/collection/plan.js'
import {KNOWN_LAYOUTS, knownLayout} from '../../src/core/layout/known-layouts.js'
import {resolveLayout} from '../../src/core/layout/resolve.js'
import type {KubeObject, Node} from '../../src/core/model/k8s.js'
import type {Report} from '../../src/core/model/report.js'
import type {NodeSnapshot} from '../../src/core/model/snapshot.js'
import {parseLayoutDiscovery} from '../../src/core/parse/layout-discovery.js'
import {generateIptablesRestore} from '../../src/core/proxier/iptables/generate.js'
import {serializeSave} from '../../src/core/proxier/iptables/save.js'
import {loadObjects} from '../../src/core/proxier/objects.js'
import {buildRenderInput} from '../../src/core/proxier/render-input.js'
import {writeBundle} from '../../src/transports/bundle/bundle.js'
import {KubeClusterClient} from '../../src/transports/kube/client.js'
import {loadKubeConfig} from '../../src/transports/kube/kubeconfig.js'
import {type FakeApiServer, startFakeApiServer} from '../support/fake-apiserver.js'
import {pullFailureStatus} from '../support/fake-kubelet.js'
import {fixturePath} from '../support/golden.js'
import {KUBE_PROXY_CONFIG} from '../support/live-cluster.js'
import {CLI, runCli} from '../support/run-cli.js'
import {createNetns, makeTempDir, type Netns, netnsSkipReason} from '../support/sshd.js'
import {LAYOUTS} from '../integration/layout/layouts.js'
import {createLayoutNode, layoutNodeSkipReason} from '../integration/layout/node.js'

type Agent = (pod: KubeObject & {spec: {nodeName: string; containers: Array<{args: string[]}>}}) => void

describe('check --in-cluster (agent DaemonSet) against the test API server', {skip: netnsSkipReason()}, () => {
  let api: FakeApiServer
  let dir: string
  const nodes: Array<{name: string; ns: Netns}> = []
  let agent: Agent = () => undefined
  /** Documents the agents wrote, by node (the last run's). */
  const documents = new Map<string, string>()
  const agentObjects = () => api.objects().filter((o) => o.metadata.namespace?.startsWith('node-doctor-') || o.metadata.name.startsWith('node-doctor-'))
  const cli = (args: string[]) => runCli([...args, '--kubeconfig', api.kubeconfigPath, '--no-color'], {env: {HOME: dir}, timeoutMs: 120_000})

  /** What the agent container does: its args from the DaemonSet, run in the node's namespace, stdout → pod log. */
  const runAgent: Agent = (pod) => {
    const node = nodes.find((n) => n.name === pod.spec.nodeName)!
    const ready = join(dir, `ready-${node.name}`)
    rmSync(ready, {force: true})
    const args = pod.spec.containers[0]!.args.filter((a) => a !== '--hold').map((a) => (a === '$(NODE_NAME)' ? node.name : a.startsWith('/run/node-doctor/') ? ready : a))
    // A PID namespace of its own: layout discovery (host PID in the real pod) must not see this machine's processes,
    // among them the fake kubelets and k3s processes of layout tests running in parallel.
    const child = spawn('ip', ['netns', 'exec', node.ns.name, 'unshare', '--pid', '--fork', '--mount-proc', CLI, ...args], {stdio: ['ignore', 'pipe', 'pipe']})
    let out = ''
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d))
    child.on('close', (code) => {
      assert.equal(code, 0)
      assert.ok(existsSync(ready), 'the agent creates its ready file after writing the document')
      documents.set(node.name, out)
      api.setLog(`${pod.metadata.namespace}/${pod.metadata.name}/agent`, out)
    })
  }

  before(async () => {
    dir = makeTempDir('nd-agent-')
    const objects = loadObjects([
      {name: 'lb', text: readFileSync(fixturePath('proxier/iptables/loadbalancer/objects.yaml'), 'utf8')},
      {name: 'nodes', text: readFileSync(fixturePath('proxier/iptables/nodes.yaml'), 'utf8')},
    ])
    const apiObjects: KubeObject[] = [...objects.services, ...objects.endpointSlices].map((o) => ({...o}))
    for (const name of ['node-a', 'node-b']) {
      const ns = createNetns()
      nodes.push({name, ns})
      const node: Node = {
        ...objects.nodes.find((n) => n.metadata.name === name)!,
        apiVersion: 'v1',
        kind: 'Node',
        status: {addresses: [{type: 'InternalIP', address: ns.address}, {type: 'Hostname', address: name}], conditions: [{type: 'Ready', status: 'True'}]},
      }
      apiObjects.push(node)
      const render = buildRenderInput({...objects, nodes: [node]}, {nodeName: name, kubeProxyConfig: {mode: 'iptables', clusterCIDR: '10.0.0.0/8'}, facts: {nfacct: false, family: 'ipv4'}})
      const r = spawnSync('ip', ['netns', 'exec', ns.name, 'iptables-restore'], {input: serializeSave(generateIptablesRestore(render.input).ruleset), encoding: 'utf8'})
      assert.equal(r.status, 0, r.stderr)
    }
    // The planted fault: node-a lost the cluster-IP rule of default/lb:http.
    const a = nodes[0]!.ns.name
    const rule = spawnSync('ip', ['netns', 'exec', a, 'iptables', '-t', 'nat', '-S', 'KUBE-SERVICES'], {encoding: 'utf8'}).stdout.split('\n').find((l) => l.includes('default/lb:http cluster IP'))!
    assert.equal(spawnSync('ip', ['netns', 'exec', a, 'sh', '-c', `iptables -t nat -D ${rule.slice(3)}`]).status, 0)
    apiObjects.push(
      {apiVersion: 'v1', kind: 'ConfigMap', metadata: {namespace: 'kube-system', name: 'kube-proxy'}, data: {'config.conf': KUBE_PROXY_CONFIG}} as KubeObject,
      {apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: {namespace: 'kube-system', name: 'kube-proxy'}, spec: {template: {spec: {containers: [{name: 'kube-proxy', image: 'registry.k8s.io/kube-proxy:v1.33.2'}]}}}} as KubeObject,
    )
    api = await startFakeApiServer({objects: apiObjects, daemonSetController: true, kubelet: {onRunning: (pod) => pod.metadata.namespace?.startsWith('node-doctor-') && agent(pod as Parameters<Agent>[0])}})
  })
  afterEach(() => {
    agent = () => undefined
    documents.clear()
  })
  after(async () => {
    for (const n of nodes) n.ns.remove()
    await api?.close()
    rmSync(dir, {recursive: true, force: true})
  })

  it('collects every node through agent pods, merges into the Report analyze gives for the same snapshots, deletes everything', async () => {
    agent = runAgent
    const r = await cli(['check', '--all', '--in-cluster', '--only', 'iptables', '-o', 'json'])
    assert.equal(r.exitCode, 1, r.stderr)
    const report = JSON.parse(r.stdout) as Report
    assert.deepEqual(report.collectionErrors, [])
    assert.deepEqual(report.nodes.map((n) => [n.name, n.status]), [['node-a', 'unhealthy'], ['node-b', 'healthy']])
    assert.deepEqual(report.findings.map((f) => [f.node, f.id]), [['node-a', 'IPT-003']])
    assert.match(r.stderr, /agent: DaemonSet created in namespace node-doctor-[0-9a-f]{8} for 2 node\(s\)\n[^]*agent: namespace node-doctor-[0-9a-f]{8} deleted\n/)
    // This cluster's Nodes have a plain kubelet version and no providerID, and it has no kubeadm-config: the run
    // mounts every layout's directories and says so before it creates anything.
    assert.match(r.stderr, /^WARNING: the layout of node\(s\) node-a, node-b cannot be told from the API [^\n]* creates them, empty: \/etc\/rancher, \/home\/kubernetes, [^\n]*\nagent: DaemonSet created/m)
    assert.deepEqual(agentObjects(), [], 'namespace, service account, DaemonSet and pods are gone')

    // The same snapshots, as a bundle with the cluster read the same way, through `analyze`.
    const snapshots = ['node-a', 'node-b'].map((n) => (readAgentDocument(documents.get(n)!, n) as {snapshot: NodeSnapshot}).snapshot)
    const client = new KubeClusterClient(loadKubeConfig({kubeconfig: api.kubeconfigPath}, {}, dir))
    const cluster = await readClusterSnapshot(client, {now: new Date()})
    const bundle = join(dir, 'bundle')
    await writeBundle(bundle, {manifest: {apiVersion: 'node-doctor.io/v1alpha1', kind: 'Bundle', createdAt: cluster.collectedAt, tool: {name: 'node-doctor', version: 'test'}, nodes: ['node-a', 'node-b']}, cluster, nodes: snapshots})
    const offline = await runCli(['analyze', bundle, '--only', 'iptables', '-o', 'json'])
    assert.equal(offline.exitCode, 1, offline.stderr)
    const analyzed = JSON.parse(offline.stdout) as Report
    assert.deepEqual(report.findings, analyzed.findings)
    assert.deepEqual(report.results, analyzed.results)
  })

  it('preflight --in-cluster writes its files from the same agent collection', async () => {
    agent = runAgent
    const json = join(dir, 'preflight.json')
    const r = await cli(['preflight', '--all', '--in-cluster', '--only', 'iptables', '--json', json])
    assert.equal(r.exitCode, 1, r.stderr)
    const report = JSON.parse(readFileSync(json, 'utf8')) as Report
    assert.deepEqual(report.findings.map((f) => [f.node, f.id]), [['node-a', 'IPT-003']])
    assert.deepEqual(report.collectionErrors, [])
    assert.deepEqual(agentObjects(), [])
  })

  it('a node whose agent pod cannot pull its image is a collection error with the reason: partial result, exit 3', async () => {
    agent = (pod) => {
      if (pod.spec.nodeName === 'node-b') return runAgent(pod)
      api.upsert({...pod, status: pullFailureStatus(pod, 'ErrImagePull')} as KubeObject)
    }
    const r = await cli(['check', '--all', '--in-cluster', '--only', 'iptables', '--image', 'registry.example/node-doctor:nope', '-o', 'json'])
    assert.equal(r.exitCode, 3, r.stderr)
    const report = JSON.parse(r.stdout) as Report
    assert.deepEqual(report.nodes.map((n) => [n.name, n.status]), [['node-a', 'uncollected'], ['node-b', 'healthy']])
    assert.equal(report.collectionErrors.length, 1)
    assert.equal(report.collectionErrors[0]!.node, 'node-a')
    assert.match(report.collectionErrors[0]!.message, /cannot pull the agent image registry\.example\/node-doctor:nope: ErrImagePull/)
    assert.deepEqual(agentObjects(), [])
  })

  it('agent manifests prints what a run creates, from the same generator', async () => {
    const r = await runCli(['agent', 'manifests', '--only', 'iptables', '--run-id', '0a1b2c3d', '--image', 'ghcr.io/node-doctor/kubectl-node-doctor:0.1.0'])
    assert.equal(r.exitCode, 0, r.stderr)
    assert.equal(r.stdout, readFileSync(fixturePath('agent/manifests/iptables.yaml'), 'utf8'))
  })

  it('Ctrl-C mid-run deletes the agent namespace before exiting; cleanup then finds nothing', async () => {
    // Agents that never finish: the CLI would wait for --node-timeout.
    const child = spawn(CLI, ['check', '--all', '--in-cluster', '--only', 'iptables', '--kubeconfig', api.kubeconfigPath], {env: {...process.env, HOME: dir}, stdio: ['ignore', 'pipe', 'pipe']})
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    const exited = new Promise<{code: number | null; signal: NodeJS.Signals | null}>((resolve) => child.on('close', (code, signal) => resolve({code, signal})))
    for (let i = 0; i < 300 && !api.objects().some((o) => o.kind === 'Pod' && o.metadata.namespace?.startsWith('node-doctor-')); i++) await new Promise((r) => setTimeout(r, 100))
    assert.ok(agentObjects().some((o) => o.kind === 'DaemonSet'), `the run created its DaemonSet: ${stderr}`)
    child.kill('SIGINT')
    const {code, signal} = await exited
    assert.ok(signal === 'SIGINT' || code === 130, `died of the interrupt (code ${code}, signal ${signal})`)
    assert.match(stderr, /interrupted: cleaning up agent namespace node-doctor-[0-9a-f]{8}/)
    assert.deepEqual(agentObjects(), [])
    const cleanup = await cli(['cleanup', '--dry-run'])
    assert.equal(cleanup.exitCode, 0, cleanup.stderr)
    assert.equal(cleanup.stdout, '')
  })

  it('cleanup deletes the namespace a killed run left behind, with what is in it', async () => {
    const labels = {'app.kubernetes.io/managed-by': 'node-doctor', 'app.kubernetes.io/component': 'agent', 'node-doctor.io/run': 'deadbeef'}
    api.upsert({apiVersion: 'v1', kind: 'Namespace', metadata: {name: 'node-doctor-deadbeef', labels, creationTimestamp: '2026-01-02T03:04:05Z'}})
    api.upsert({apiVersion: 'v1', kind: 'ServiceAccount', metadata: {name: 'node-doctor-agent', namespace: 'node-doctor-deadbeef', labels}})
    const r = await cli(['cleanup'])
    assert.equal(r.exitCode, 0, r.stderr)
    assert.equal(r.stdout, 'namespace "node-doctor-deadbeef" deleted (agent run deadbeef, created 2026-01-02T03:04:05Z)\n')
    assert.deepEqual(agentObjects(), [])
  })
})

// The agent's view of each layout the layout harness builds (kubeadm, k3s, RKE2, EKS AL2023, GKE-like, Cilium KPR):
// the node's files are only those the agent's read-only mounts show (at the same paths), its processes are all
// visible (host PID namespace); the built CLI's `agent collect --only kubelet` runs there as the DaemonSet's
// container would. The kubelet config each layout really uses is read from its own path, and discovery resolves
// the layout from the node (not from the API alone). The mounts are those of a run over this layout's nodes: the
// layouts the API tells for them (core/agent/layout-scope.ts), so a layout's own directories are enough for it.
// Container mounts themselves are not exercised here (no container runtime): test/unit/core/agent/privileges.test.ts
// proves the mounts cover these paths.
describe("agent collect on each known layout, seeing only the agent's mounts", {skip: layoutNodeSkipReason()}, () => {
  const shown = (m: readonly HostMount[], path: string) => m.some((x) => x.path === path || (x.type === '' && path.startsWith(`${x.path}/`)))
  for (const make of LAYOUTS) {
    const layout = make()
    it(`${layout.name}: the kubelet config from /${layout.dnsFile}, the layout from the node`, () => {
      const cluster = layout.cluster()
      const scope = agentLayoutScope(cluster, cluster.nodes.filter((n) => n.metadata.name === layout.node))
      const {mounts} = agentPlan(['kubelet'], scope.layouts).privileges
      const visible = Object.fromEntries(Object.entries(layout.files).filter(([p]) => shown(mounts, `/${p}`)))
      const hidden = Object.keys(layout.files).filter((p) => !(p in visible))
      const node = createLayoutNode(visible, layout.processes)
      const dir = makeTempDir('nd-agent-layout-')
      try {
        const r = node.run(`${CLI} agent collect --node ${layout.node} --timeout 30s --ready-file ${dir}/done --only kubelet`)
        assert.equal(r.status, 0, r.stderr)
        const scan = readAgentDocument(r.stdout, layout.node)
        assert.equal(scan.state, 'complete')
        const {artifacts} = (scan as {snapshot: NodeSnapshot}).snapshot

        const discovered = artifacts.layout!
        assert.equal(discovered.error, undefined, 'layout discovery runs in the agent')
        const discovery = parseLayoutDiscovery(discovered.content)
        for (const p of hidden) assert.ok(!discovery.paths.includes(`/${p}`), `/${p} is not mounted, so the agent cannot see it`)
        const resolved = resolveLayout({node: layout.node, cluster: layout.cluster(), discovery})
        assert.equal(resolved.discovered, true)
        assert.ok(layout.summary.startsWith(`${knownLayout(resolved.distribution).title} `), `${resolved.distribution} for "${layout.summary}": ${resolved.evidence.join('; ')}`)
        // The API told the same layout the node shows (else the run mounts every layout's directories and says so).
        assert.ok(scope.layouts.includes(resolved.distribution) || scope.layouts.includes('unknown'), `API: ${scope.layouts.join(',')}, node: ${resolved.distribution}`)

        // The file the layout's kubelet really uses: its --config (kubelet-config) or a --config-dir drop-in.
        const config = artifacts['kubelet-config']!
        const dropins = artifacts['kubelet-dropins']!
        const file = `${FILE_HEADER}/${layout.dnsFile}\n`
        if (config.content.startsWith(FILE_HEADER)) {
          assert.ok(config.content.startsWith(file), config.content.split('\n')[0])
          assert.ok(config.content.includes(layout.dnsLine))
        } else {
          assert.ok(config.content.startsWith(ABSENT_HEADER), `kubelet-config: ${config.error ?? config.content}`)
          assert.ok(dropins.content.includes(file) && dropins.content.includes(layout.dnsLine), `kubelet-dropins: ${dropins.error ?? dropins.content}`)
        }
      } finally {
        node.destroy()
        rmSync(dir, {recursive: true, force: true})
      }
    })
  }
})

// Every row of the known-layouts table with a kubelet config file (kubeadm, EKS AL2 and AL2023, GKE, AKS,
// Bottlerocket, Talos): a node holding just that file where the agent's mounts show it, with a kubelet running with
// --config=PATH (seen through the host PID namespace), and the same node with no kubelet process (the script then
// tries the layouts' known paths). Either way the agent reads the file from the layout's own path.
describe('agent collect reads the kubelet config at every known layout path', {skip: layoutNodeSkipReason()}, () => {
  for (const row of KNOWN_LAYOUTS.filter((l) => l.kubelet.configPaths.length > 0)) {
    // The mounts of a run over nodes of this layout only.
    const {mounts} = agentPlan(['kubelet'], [row.distribution]).privileges
    const shown = (path: string) => mounts.some((x) => x.path === path || (x.type === '' && path.startsWith(`${x.path}/`)))
    const path = row.kubelet.configPaths[0]!
    for (const running of [true, false]) {
      it(`${row.title}: ${path}${running ? ' named by the running kubelet' : ', no kubelet process visible'}`, () => {
        assert.ok(shown(path), `${path} is under a mount of the agent`)
        const text = `apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nclusterDNS:\n- 10.99.0.10 # ${row.distribution}\n`
        const node = createLayoutNode({[path.slice(1)]: text}, running ? [{name: 'kubelet', argv0: '/usr/bin/kubelet', args: [`--config=${path}`, '--v=2']}] : [])
        const dir = makeTempDir('nd-agent-kubelet-')
        try {
          const r = node.run(`${CLI} agent collect --node n1 --timeout 30s --ready-file ${dir}/done --only kubelet`)
          assert.equal(r.status, 0, r.stderr)
          const scan = readAgentDocument(r.stdout, 'n1') as {snapshot: NodeSnapshot}
          const config = scan.snapshot.artifacts['kubelet-config']!
          assert.equal(config.error, undefined)
          assert.equal(config.content, `${FILE_HEADER}${path}\n${text}`)
        } finally {
          node.destroy()
          rmSync(dir, {recursive: true, force: true})
        }
      })
    }
  }
})
