// A live test cluster: the test API server plus "nodes" that are network namespaces, each running its own real
// sshd and holding the iptables rules kube-proxy would have written there. Traffic stays on veth pairs into
// namespaces the test creates.
import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {readFileSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import type {KubeObject, Node} from '../../src/core/model/k8s.js'
import {generateIptablesRestore} from '../../src/core/proxier/iptables/generate.js'
import {serializeSave} from '../../src/core/proxier/iptables/save.js'
import {loadObjects} from '../../src/core/proxier/objects.js'
import {buildRenderInput} from '../../src/core/proxier/render-input.js'
import {startFakeApiServer, type FakeApiServer, type FakeApiServerOptions} from './fake-apiserver.js'
import {fixturePath} from './golden.js'
import {type CliResult, runCli} from './run-cli.js'
import {createNetns, makeTempDir, makeUserKey, netnsSkipReason, type Netns, type Sshd, sshdSkipReason, startSshd} from './sshd.js'

export const KUBE_PROXY_CONFIG = 'apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: iptables\nclusterCIDR: 10.0.0.0/8\n'

export function liveClusterSkipReason(): string | undefined {
  return sshdSkipReason() ?? netnsSkipReason()
}

export interface LiveNode {
  name: string
  ns: Netns
  sshd: Sshd
}

export interface LiveCluster {
  api: FakeApiServer
  nodes: LiveNode[]
  dir: string
  sshConfig: string
  knownHosts: string
  /** Runs the built CLI with this cluster's kubeconfig and ssh config. */
  cli(args: string[]): Promise<CliResult>
  /** Runs a command inside a node's namespace. */
  nodeExec(node: string, argv: string[]): string
  stop(): Promise<void>
}

/** Starts nodes node-a and node-b (fixture objects from the proxier's loadbalancer case) with kube-proxy's rules loaded. */
export async function startLiveCluster(
  nodeNames: readonly string[] = ['node-a', 'node-b'],
  options: {api?: Omit<FakeApiServerOptions, 'objects'>; objects?: (objects: KubeObject[]) => KubeObject[]} = {},
): Promise<LiveCluster> {
  const dir = makeTempDir('nd-live-')
  const key = makeUserKey(dir)
  const objects = loadObjects([
    {name: 'lb', text: readFileSync(fixturePath('proxier/iptables/loadbalancer/objects.yaml'), 'utf8')},
    {name: 'nodes', text: readFileSync(fixturePath('proxier/iptables/nodes.yaml'), 'utf8')},
  ])
  const apiObjects: KubeObject[] = [...objects.services, ...objects.endpointSlices].map((o) => ({...o}))
  const nodes: LiveNode[] = []
  let config = ''
  const knownHosts = join(dir, 'known_hosts')
  for (const name of nodeNames) {
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
    const render = buildRenderInput({...objects, nodes: [node]}, {nodeName: name, kubeProxyConfig: {mode: 'iptables', clusterCIDR: '10.0.0.0/8'}, facts: {nfacct: false, family: 'ipv4'}})
    const r = spawnSync('ip', ['netns', 'exec', ns.name, 'iptables-restore'], {input: serializeSave(generateIptablesRestore(render.input).ruleset), encoding: 'utf8'})
    assert.equal(r.status, 0, r.stderr)
  }
  writeFileSync(knownHosts, nodes.map((n) => n.sshd.knownHostsLine()).join('\n') + '\n')
  const sshConfig = join(dir, 'ssh_config')
  writeFileSync(sshConfig, config)
  apiObjects.push(
    {apiVersion: 'v1', kind: 'ConfigMap', metadata: {namespace: 'kube-system', name: 'kube-proxy'}, data: {'config.conf': KUBE_PROXY_CONFIG}} as KubeObject,
    {apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: {namespace: 'kube-system', name: 'kube-proxy'}, spec: {template: {spec: {containers: [{name: 'kube-proxy', image: 'registry.k8s.io/kube-proxy:v1.33.2'}]}}}} as KubeObject,
  )
  const api = await startFakeApiServer({...options.api, objects: options.objects ? options.objects(apiObjects) : apiObjects})
  const nsOf = (node: string) => nodes.find((n) => n.name === node)!.ns.name
  return {
    api,
    nodes,
    dir,
    sshConfig,
    knownHosts,
    cli: (args) => runCli([...args, '--kubeconfig', api.kubeconfigPath, '--ssh-config', sshConfig, '--no-color'], {env: {HOME: dir, SSH_AUTH_SOCK: ''}, timeoutMs: 120_000}),
    nodeExec(node, argv) {
      const r = spawnSync('ip', ['netns', 'exec', nsOf(node), ...argv], {encoding: 'utf8'})
      if (r.status !== 0) throw new Error(`${argv.join(' ')}: ${r.stderr}`)
      return r.stdout
    },
    async stop() {
      for (const n of nodes) {
        await n.sshd.stop().catch(() => undefined)
        n.ns.remove()
      }
      await api.close()
      rmSync(dir, {recursive: true, force: true})
    },
  }
}
