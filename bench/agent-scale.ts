// In-cluster agent at scale: the CLI side of `check --all --in-cluster` (create the DaemonSet, poll pods, read every
// agent's log, decode, delete the namespace) against the test API server with 1,000 and 5,000 fake Nodes. The API
// server, its DaemonSet controller and fake kubelet run in a child process (so this process's CPU and RSS are the
// CLI's alone); each agent pod's log is set synthetically, as soon as it runs, to a framed document of a real
// snapshot (examples/bundle node-a, renamed). Prints API requests per node by kind, wall time and CPU.
// Usage: node --import tsx bench/agent-scale.ts [nodes...]   (default: 1000 5000)
import {fork} from 'node:child_process'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {collectWithAgents} from '../src/app/agent-run.js'
import {encodeAgentDocument} from '../src/core/agent/document.js'
import type {KubeObject, Node} from '../src/core/model/k8s.js'
import {readBundle} from '../src/transports/bundle/bundle.js'
import {KubeAgentApi} from '../src/transports/kube/agent-api.js'
import {KubeClusterClient} from '../src/transports/kube/client.js'
import {loadKubeConfig} from '../src/transports/kube/kubeconfig.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const nodeName = (i: number) => `node-${String(i).padStart(5, '0')}`

type Request = {method: string; resource?: string; subresource?: string; verb?: string}
type ToServer = {type: 'stats'} | {type: 'stop'}
type FromServer = {type: 'ready'; kubeconfig: string} | {type: 'stats'; requests: Request[]; maxInFlight: number}

if (process.env.AGENT_SCALE_ROLE === 'server') {
  await serve(Number(process.env.AGENT_SCALE_NODES))
} else {
  const sizes = process.argv.slice(2).map(Number)
  for (const n of sizes.length > 0 ? sizes : [1000, 5000]) await measure(n)
}

/** The child: the test API server with n Nodes; every agent pod's log is set the moment the fake kubelet runs it. */
async function serve(n: number): Promise<void> {
  const {startFakeApiServer} = await import('../test/support/fake-apiserver.js')
  const bundle = await readBundle(join(ROOT, 'examples', 'bundle'))
  const template = bundle.nodes.find((s) => s.node === 'node-a')!
  const nodeObject = bundle.cluster.nodes.find((o) => o.metadata.name === 'node-a')!
  const nodes = Array.from({length: n}, (_, i): KubeObject => ({apiVersion: 'v1', kind: 'Node', ...nodeObject, metadata: {...nodeObject.metadata, name: nodeName(i)}}))
  const api = await startFakeApiServer({
    objects: nodes,
    daemonSetController: {delayMs: 20},
    kubelet: {
      onRunning: (pod, node) => {
        if (!pod.metadata.namespace?.startsWith('node-doctor-')) return
        api.setLog(`${pod.metadata.namespace}/${pod.metadata.name}/agent`, encodeAgentDocument({...template, node: node.metadata.name}))
      },
    },
  })
  process.send!({type: 'ready', kubeconfig: api.kubeconfigPath} satisfies FromServer)
  process.on('message', async (m: ToServer) => {
    if (m.type === 'stats') {
      process.send!({type: 'stats', requests: api.requests.map((r) => ({method: r.method, resource: r.resource, subresource: r.subresource, verb: r.verb})), maxInFlight: api.maxInFlight} satisfies FromServer)
    } else {
      await api.close()
      process.exit(0)
    }
  })
}

async function measure(n: number): Promise<void> {
  const child = fork(fileURLToPath(import.meta.url), [], {env: {...process.env, AGENT_SCALE_ROLE: 'server', AGENT_SCALE_NODES: String(n)}, execArgv: ['--import', 'tsx']})
  const next = () => new Promise<FromServer>((resolve) => child.once('message', (m) => resolve(m as FromServer)))
  const ready = await next()
  if (ready.type !== 'ready') throw new Error('the API server child did not start')
  const client = new KubeClusterClient(loadKubeConfig({kubeconfig: ready.kubeconfig}, {}, '/nonexistent'))
  const nodes: Node[] = Array.from({length: n}, (_, i) => ({apiVersion: 'v1', kind: 'Node', metadata: {name: nodeName(i)}}))

  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  let created = 0
  let firstDone = 0
  let lastDone = 0
  const result = await collectWithAgents(new KubeAgentApi(client), {
    runId: 'bench000',
    image: 'ghcr.io/node-doctor/kubectl-node-doctor:bench',
    nodes,
    allNodes: true,
    commandTimeoutMs: 30_000,
    waitTimeoutMs: 600_000,
    concurrency: 10,
    now: () => new Date(),
    onEvent: (e) => {
      if (e.type === 'created') created = performance.now()
      if (e.type === 'node-done') {
        lastDone = performance.now()
        firstDone ||= lastDone
      }
    },
    warn: (m) => console.log(m),
  })
  const t1 = performance.now()
  const cpu = process.cpuUsage(cpu0)
  const failed = result.nodes.filter((s) => s.errors.some((e) => e.fatal)).length

  child.send({type: 'stats'} satisfies ToServer)
  const stats = await next()
  child.send({type: 'stop'} satisfies ToServer)
  if (stats.type !== 'stats') throw new Error('no stats from the API server child')
  const kinds = new Map<string, number>()
  for (const r of stats.requests) {
    const key = `${r.verb ?? r.method} ${r.resource ?? ''}${r.subresource ? `/${r.subresource}` : ''}`
    kinds.set(key, (kinds.get(key) ?? 0) + 1)
  }
  const perNode = (c: number) => (c / n).toFixed(3)
  console.log(`nodes: ${n} (${failed} failed); API requests: ${stats.requests.length} = ${perNode(stats.requests.length)} per node; most in flight: ${stats.maxInFlight}`)
  for (const [k, c] of [...kinds].sort((a, b) => b[1] - a[1])) console.log(`  ${k.padEnd(28)} ${String(c).padStart(6)}  (${perNode(c)} per node)`)
  console.log(
    `wall: ${((t1 - t0) / 1000).toFixed(1)} s (create ${((created - t0) / 1000).toFixed(2)} s, first node done at ${((firstDone - t0) / 1000).toFixed(1)} s, last at ${((lastDone - t0) / 1000).toFixed(1)} s, deleted at ${((t1 - t0) / 1000).toFixed(1)} s); ` +
      `CLI CPU: ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s; CLI peak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`,
  )
}
