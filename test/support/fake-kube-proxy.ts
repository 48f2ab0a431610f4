// kube-proxy's HTTP endpoints inside a test "node" (network namespace): /healthz on 127.0.0.1:10256 and /proxyMode
// plus /metrics on 127.0.0.1:10249, as node-doctor reads them with curl on the node. A real Node process serves
// them inside the namespace; the mode it reports is read from a file on each request so a test can "restart"
// kube-proxy in another mode by rewriting it.
import {type ChildProcess, spawn} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import type {KubeObject} from '../../src/core/model/k8s.js'

export interface FakeKubeProxy {
  /** Sets the mode /proxyMode answers (what the running kube-proxy would say). */
  setMode(mode: string): void
  stop(): Promise<void>
}

const SERVER = `
const http = require('node:http')
const fs = require('node:fs')
const modeFile = process.argv[1]
const started = new Date().toISOString()
const healthz = http.createServer((req, res) => {
  const now = new Date().toISOString()
  res.writeHead(200, {'Content-Type': 'application/json'})
  res.end(JSON.stringify({lastUpdated: now, currentTime: now, nodeEligible: true}))
})
const metrics = http.createServer((req, res) => {
  if (req.url === '/proxyMode') {
    res.writeHead(200, {'Content-Type': 'text/plain'})
    return res.end(fs.readFileSync(modeFile, 'utf8'))
  }
  res.writeHead(404)
  res.end()
})
let up = 0
const ready = () => { if (++up === 2) process.stdout.write('ready\\n') }
healthz.listen(10256, '127.0.0.1', ready)
metrics.listen(10249, '127.0.0.1', ready)
`

/** Starts the endpoints in namespace `netns`; resolves once both listen. */
export async function startFakeKubeProxy(netns: string, dir: string, mode = 'iptables'): Promise<FakeKubeProxy> {
  const modeFile = join(dir, `kube-proxy-mode-${netns}`)
  writeFileSync(modeFile, mode)
  const child: ChildProcess = spawn('ip', ['netns', 'exec', netns, process.execPath, '-e', SERVER, modeFile], {stdio: ['ignore', 'pipe', 'pipe']})
  await new Promise<void>((resolve, reject) => {
    let err = ''
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()))
    child.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && resolve())
    child.on('exit', (code) => reject(new Error(`fake kube-proxy in ${netns} exited (${code}): ${err}`)))
  })
  return {
    setMode: (m) => writeFileSync(modeFile, m),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      }),
  }
}

/** The kube-proxy DaemonSet and its Ready pods, as kubeadm deploys them. */
export function withKubeProxyDaemonSet(objects: KubeObject[], nodes: readonly string[] = ['node-a', 'node-b']): KubeObject[] {
  const labels = {'k8s-app': 'kube-proxy'}
  const image = 'registry.k8s.io/kube-proxy:v1.33.2'
  // kubeadm's container: the ConfigMap is mounted at /var/lib/kube-proxy and named with --config.
  const container = {name: 'kube-proxy', image, command: ['/usr/local/bin/kube-proxy', '--config=/var/lib/kube-proxy/config.conf', '--hostname-override=$(NODE_NAME)']}
  const ds = {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: {namespace: 'kube-system', name: 'kube-proxy', labels},
    spec: {selector: {matchLabels: labels}, template: {metadata: {labels}, spec: {containers: [container]}}},
  } as KubeObject
  const pods = nodes.map(
    (node, i) =>
      ({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {namespace: 'kube-system', name: `kube-proxy-seed${i}`, labels, creationTimestamp: '2026-01-01T00:00:00Z'},
        spec: {nodeName: node, hostNetwork: true, containers: [container]},
        status: {
          phase: 'Running',
          conditions: [{type: 'Ready', status: 'True'}],
          containerStatuses: [{name: 'kube-proxy', ready: true, restartCount: 0, image, state: {running: {startedAt: '2026-01-01T00:00:05Z'}}}],
        },
      }) as KubeObject,
  )
  return [...objects.filter((o) => !(o.kind === 'DaemonSet' && o.metadata.name === 'kube-proxy')), ds, ...pods]
}
