// `fix kube-proxy` and `fix kube-proxy-mode` on layouts where the API cannot do the repair (#17): k3s embeds
// kube-proxy in its own process (no pod), RKE2 runs it as a static pod (deleting the mirror pod restarts nothing) and
// keeps its mode in kube-proxy-arg, not a ConfigMap. Over the layout fixture bundles (test/fixtures/layouts/nodes)
// with the artifacts the collection plan writes, analysed by the real checks (the same resolved layout they use):
// the repair refuses before asking or changing anything, names the command to run on the node, and exits 1 (restart)
// or 2 (mode change). A DaemonSet layout (EKS AL2023, ConfigMap kube-proxy-config) still plans the pod delete.
import assert from 'node:assert/strict'
import {join} from 'node:path'
import {describe, it} from 'node:test'
import {analyzeSnapshots} from '../../../src/app/analyze.js'
import {RepairRefusedError} from '../../../src/app/repair/errors.js'
import {runModeChange, type ModeChangeDeps} from '../../../src/app/repair/mode.js'
import {type NodeChecker, runPodRestart, type PodRestartDeps} from '../../../src/app/repair/pod-restart.js'
import {KUBE_PROXY_TARGET} from '../../../src/app/repair/pod-restart-plan.js'
import {KUBE_PROXY_MANIFEST_ARTIFACT} from '../../../src/core/collection/plan.js'
import type {Area} from '../../../src/core/model/report.js'
import type {ClusterSnapshot, NodeSnapshot} from '../../../src/core/model/snapshot.js'
import {UsageError} from '../../../src/errors.js'
import {ExitCode} from '../../../src/exit-codes.js'
import {readBundle} from '../../../src/transports/bundle/bundle.js'
import {FIXTURES} from '../../support/golden.js'

const NODES = join(FIXTURES, 'layouts', 'nodes')
const META = {generatedAt: '2026-12-03T00:00:00Z', tool: {name: 'node-doctor', version: '0.1.0'}, command: 'fix'}

async function layoutBundle(name: string, artifacts: Record<string, string>): Promise<{cluster: ClusterSnapshot; node: NodeSnapshot}> {
  const b = await readBundle(join(NODES, name))
  const node = structuredClone(b.nodes[0]!)
  for (const [id, content] of Object.entries(artifacts)) node.artifacts[id] = {id, source: id === 'proxy-mode' ? 'curl -sS --max-time 5 http://127.0.0.1:10249/proxyMode' : `sh -c ... (${id})`, content}
  return {cluster: b.cluster, node}
}

/** The real checks over the bundle, as liveChecker runs them over a live collection. */
const checker = (s: {cluster: ClusterSnapshot; node: NodeSnapshot}): NodeChecker => async (_nodes, areas: readonly Area[]) => ({
  cluster: s.cluster,
  nodes: [s.node],
  report: analyzeSnapshots(s.cluster, [s.node], {areas: [...areas], metadata: META}),
})

/** An API that records every call; reads answer empty, every permission is granted. */
function recordingApi() {
  const calls: string[] = []
  const api = {
    listPods: async () => (calls.push('listPods'), []),
    deletePod: async (ns: string, name: string) => void calls.push(`deletePod ${ns}/${name}`),
    canI: async () => (calls.push('canI'), {allowed: true}),
    recordNodeEvent: async () => void calls.push('recordNodeEvent'),
    getConfigMap: async () => (calls.push('getConfigMap'), undefined),
    updateConfigMap: async () => (calls.push('updateConfigMap'), undefined),
  }
  return {api, calls}
}

const OPTIONS = {maxUnavailable: 1, continueOnFailure: false, readyTimeoutMs: 1000, verifyTimeoutMs: 1000, pollMs: 10, failOn: 'error' as const, metadata: META, who: {localUser: 'test'}}

function restartDeps(s: {cluster: ClusterSnapshot; node: NodeSnapshot}, confirmed: string[]) {
  const {api, calls} = recordingApi()
  const deps: PodRestartDeps = {
    api: api as unknown as PodRestartDeps['api'],
    check: checker(s),
    confirm: async (text) => (confirmed.push(text), 'dry-run'),
    audit: {audit: {prepare: async () => {}, append: async () => {}, location: '/dev/null'}, warn: () => {}},
    progress: () => {},
  }
  return {deps, calls}
}

const k3sDropIn = (mode: string) =>
  "# node-doctor-file: /etc/rancher/k3s/config.yaml\nwrite-kubeconfig-mode: '0644'\n" + `# node-doctor-file: /etc/rancher/k3s/config.yaml.d/50-proxy.yaml\nkube-proxy-arg+:\n  - proxy-mode=${mode}\n`

const rke2Manifest = (flags: string[]) =>
  '# node-doctor-file: /var/lib/rancher/rke2/agent/pod-manifests/kube-proxy.yaml\n' +
  'apiVersion: v1\nkind: Pod\nmetadata:\n  name: kube-proxy\n  namespace: kube-system\nspec:\n  hostNetwork: true\n  containers:\n  - name: kube-proxy\n' +
  '    image: index.docker.io/rancher/hardened-kubernetes:v1.33.4-rke2r1-build20250813\n    command:\n    - kube-proxy\n' +
  ['--cluster-cidr=10.42.0.0/16', '--healthz-bind-address=127.0.0.1', '--hostname-override=node-1', ...flags].map((f) => `    - ${f}\n`).join('')

/** The error `fn` throws (it must throw). */
async function thrown(fn: () => Promise<unknown>): Promise<Error> {
  try {
    await fn()
  } catch (err) {
    return err as Error
  }
  assert.fail('expected a refusal')
}

describe('fix kube-proxy on a k3s node: kube-proxy embedded in k3s', () => {
  it('PROXY-003 (kube-proxy-arg changed, k3s not restarted) is refused with the k3s restart to run, exit 1, nothing asked or changed', async () => {
    const s = await layoutBundle('k3s-flannel', {'rancher-config': k3sDropIn('nftables'), 'proxy-mode': 'iptables'})
    const confirmed: string[] = []
    const {deps, calls} = restartDeps(s, confirmed)
    const before = await deps.check(['node-1'], KUBE_PROXY_TARGET.areas)
    assert.ok(before.report.findings.some((f) => f.id === 'PROXY-003' && f.node === 'node-1'), 'the fault is found first')

    const err = await thrown(() => runPodRestart(KUBE_PROXY_TARGET, deps, {...OPTIONS, nodes: ['node-1']}))
    assert.ok(err instanceof RepairRefusedError, String(err))
    assert.equal(err.exitCode, ExitCode.FINDINGS)
    assert.equal(
      err.message,
      'not restarting kube-proxy: node-1: kube-proxy is embedded in the k3s server process on this node (embedded in k3s, kube-proxy-arg --proxy-mode=nftables (/etc/rancher/k3s/config.yaml.d/50-proxy.yaml)): there is no kube-proxy pod to delete; nothing was changed',
    )
    assert.equal(
      err.hint,
      'On node-1, restart k3s on the node: `systemctl restart k3s`. This restarts the whole k3s process (its kubelet, kube-proxy and flannel, and on a server the control plane); ' +
        "running pods keep running (the k3s unit's KillMode=process leaves their containers alone). node-doctor never restarts k3s itself.",
    )
    assert.deepEqual(calls, [], 'no permission review, no delete')
    assert.deepEqual(confirmed, [], 'nothing asked')
  })

  it('with no finding there is nothing to fix (no refusal); --force still refuses', async () => {
    const s = await layoutBundle('k3s-flannel', {'rancher-config': k3sDropIn('iptables'), 'proxy-mode': 'iptables'})
    const {deps} = restartDeps(s, [])
    const r = await runPodRestart(KUBE_PROXY_TARGET, deps, {...OPTIONS, nodes: ['node-1']})
    assert.equal(r.decision, 'nothing-to-fix')
    const forced = await thrown(() => runPodRestart(KUBE_PROXY_TARGET, restartDeps(s, []).deps, {...OPTIONS, nodes: ['node-1'], force: true}))
    assert.ok(forced instanceof RepairRefusedError)
    assert.match(forced.hint ?? '', /`systemctl restart k3s`/)
  })
})

describe('fix kube-proxy on an RKE2 node: kube-proxy as a static pod', () => {
  it('PROXY-003 (manifest nftables, running iptables) is refused with the crictl stop to run on the node, exit 1', async () => {
    const s = await layoutBundle('rke2-canal', {'rancher-config': '', [KUBE_PROXY_MANIFEST_ARTIFACT]: rke2Manifest(['--proxy-mode=nftables']), 'proxy-mode': 'iptables'})
    const confirmed: string[] = []
    const {deps, calls} = restartDeps(s, confirmed)
    const err = await thrown(() => runPodRestart(KUBE_PROXY_TARGET, deps, {...OPTIONS, nodes: ['node-1']}))
    assert.ok(err instanceof RepairRefusedError, String(err))
    assert.equal(err.exitCode, ExitCode.FINDINGS)
    assert.equal(
      err.message,
      'not restarting kube-proxy: node-1: kube-proxy runs as a static pod on this node (static pod /var/lib/rancher/rke2/agent/pod-manifests/kube-proxy.yaml): ' +
        'deleting its mirror pod kube-system/kube-proxy-node-1 does not restart the container; nothing was changed',
    )
    assert.equal(
      err.hint,
      'On node-1, stop the kube-proxy container on the node and the kubelet starts it again from its manifest: ' +
        '`CRI_CONFIG_FILE=/var/lib/rancher/rke2/agent/etc/crictl.yaml /var/lib/rancher/rke2/bin/crictl stop $(CRI_CONFIG_FILE=/var/lib/rancher/rke2/agent/etc/crictl.yaml /var/lib/rancher/rke2/bin/crictl ps --name kube-proxy -q)` ' +
        "(RKE2's own crictl and its config).",
    )
    assert.deepEqual(calls, [])
    assert.deepEqual(confirmed, [])
  })
})

describe('fix kube-proxy on a DaemonSet layout is unchanged', () => {
  it('EKS AL2023 (--force): plans deleting the kube-proxy pod and asks', async () => {
    const s = await layoutBundle('eks-al2023', {})
    // The fixture's pod has no uid (a bundle keeps none); the delete needs one.
    s.cluster.pods = s.cluster.pods.map((p) => ({...p, metadata: {...p.metadata, uid: 'uid-1'}}))
    const confirmed: string[] = []
    const {deps, calls} = restartDeps(s, confirmed)
    const r = await runPodRestart(KUBE_PROXY_TARGET, deps, {...OPTIONS, nodes: ['node-1'], force: true})
    assert.equal(r.decision, 'dry-run')
    assert.match(confirmed[0]!, /node-1: delete pod kube-system\/kube-proxy-9xk2d \(uid uid-1\)/)
    assert.ok(calls.includes('canI'))
    assert.ok(!calls.some((c) => c.startsWith('deletePod')))
  })
})

describe('fix kube-proxy over a k3s node and a DaemonSet node together', () => {
  it('the DaemonSet node is planned, the k3s node is listed as refused with its command; the run goes on (--force)', async () => {
    const k3s = await layoutBundle('k3s-flannel', {'rancher-config': k3sDropIn('nftables'), 'proxy-mode': 'iptables'})
    const eks = await layoutBundle('eks-al2023', {})
    // The EKS node joins the k3s node's cluster as node-2 (a live API gives its pod a uid).
    const rename = <T>(x: T): T => JSON.parse(JSON.stringify(x).replaceAll('"node-1"', '"node-2"')) as T
    const cluster: ClusterSnapshot = {
      ...k3s.cluster,
      nodes: [...k3s.cluster.nodes, ...rename(eks.cluster.nodes)],
      pods: [...k3s.cluster.pods, ...rename(eks.cluster.pods).map((p) => ({...p, metadata: {...p.metadata, uid: 'uid-2'}}))],
      daemonSets: [...k3s.cluster.daemonSets, ...eks.cluster.daemonSets],
      configMaps: [...k3s.cluster.configMaps, ...eks.cluster.configMaps],
    }
    const nodes = [k3s.node, rename(eks.node)]
    const asked: string[] = []
    const {api, calls} = recordingApi()
    const deps: PodRestartDeps = {
      api: api as unknown as PodRestartDeps['api'],
      check: async (_n, areas) => ({cluster, nodes, report: analyzeSnapshots(cluster, nodes, {areas: [...areas], metadata: META})}),
      confirm: async (text) => (asked.push(text), 'dry-run'),
      audit: {audit: {prepare: async () => {}, append: async () => {}, location: '/dev/null'}, warn: () => {}},
      progress: () => {},
    }
    const r = await runPodRestart(KUBE_PROXY_TARGET, deps, {...OPTIONS, nodes: ['node-1', 'node-2'], force: true})
    assert.equal(r.decision, 'dry-run')
    assert.match(asked[0]!, /^  node-1: not restarted: kube-proxy is embedded in the k3s server process on this node .*\n    instead, restart k3s on the node: `systemctl restart k3s`\./m)
    assert.match(asked[0]!, /^  node-2: delete pod kube-system\/kube-proxy-9xk2d \(uid uid-2\)$/m)
    assert.deepEqual(r.results.map((x) => [x.node, x.outcome]), [['node-1', 'refused']])
    assert.match(r.results[0]!.message, /; instead, restart k3s on the node: `systemctl restart k3s`/)
    assert.ok(!calls.some((c) => c.startsWith('deletePod')))
  })
})

function modeDeps(s: {cluster: ClusterSnapshot; node: NodeSnapshot}) {
  const {api, calls} = recordingApi()
  const deps: ModeChangeDeps = {
    api: api as unknown as ModeChangeDeps['api'],
    check: checker(s),
    confirm: async () => 'dry-run',
    confirmRollback: async () => false,
    saveBackup: async () => '/dev/null',
    audit: {audit: {prepare: async () => {}, append: async () => {}, location: '/dev/null'}, warn: () => {}},
    progress: () => {},
  }
  return {deps, calls}
}

const MODE_OPTIONS = {readyTimeoutMs: 1000, verifyTimeoutMs: 1000, pollMs: 10, failOn: 'error' as const, metadata: META, who: {localUser: 'test'}}

describe('fix kube-proxy-mode where no ConfigMap sets the mode', () => {
  it('k3s: refuses before reading the ConfigMap, naming kube-proxy-arg and where it is set now; exit 2', async () => {
    const s = await layoutBundle('k3s-flannel', {'rancher-config': k3sDropIn('iptables'), 'proxy-mode': 'iptables'})
    const {deps, calls} = modeDeps(s)
    const err = await thrown(() => runModeChange(deps, {...MODE_OPTIONS, to: 'nftables', nodes: ['node-1']}))
    assert.ok(err instanceof UsageError, String(err))
    assert.equal(err.exitCode, ExitCode.USAGE)
    assert.equal(
      err.message,
      'not switching kube-proxy to nftables: changing its ConfigMap would not change the mode on node-1 (kube-proxy is embedded in k3s, which passes it the mode from kube-proxy-arg, not from a ConfigMap ' +
        '(now iptables: kube-proxy-arg proxy-mode=iptables in /etc/rancher/k3s/config.yaml.d/50-proxy.yaml)); nothing was changed',
    )
    assert.equal(
      err.hint,
      'node-1: on every k3s node set `kube-proxy-arg: [proxy-mode=nftables]` in /etc/rancher/k3s/config.yaml (a file in /etc/rancher/k3s/config.yaml.d or a kube-proxy-arg on the k3s command line wins over it: change it there if it is set there), ' +
        'then restart k3s one node at a time: `systemctl restart k3s` on a server, `systemctl restart k3s-agent` on an agent (the whole k3s process restarts; pods keep running).',
    )
    assert.deepEqual(calls, [], 'the ConfigMap is not even read')
  })

  it('RKE2: refuses, naming /etc/rancher/rke2/config.yaml and that rke2 rewrites the static pod manifest; exit 2', async () => {
    const s = await layoutBundle('rke2-canal', {'rancher-config': '', [KUBE_PROXY_MANIFEST_ARTIFACT]: rke2Manifest(['--proxy-mode=iptables']), 'proxy-mode': 'iptables'})
    const {deps, calls} = modeDeps(s)
    const err = await thrown(() => runModeChange(deps, {...MODE_OPTIONS, to: 'ipvs', nodes: ['node-1']}))
    assert.ok(err instanceof UsageError, String(err))
    assert.equal(err.exitCode, ExitCode.USAGE)
    assert.equal(
      err.message,
      'not switching kube-proxy to ipvs: changing its ConfigMap would not change the mode on node-1 (RKE2 runs kube-proxy as a static pod whose manifest it writes from kube-proxy-arg when it starts; ' +
        'no ConfigMap sets the mode (now iptables: flag --proxy-mode=iptables in /var/lib/rancher/rke2/agent/pod-manifests/kube-proxy.yaml line 16)); nothing was changed',
    )
    assert.equal(
      err.hint,
      'node-1: on every RKE2 node set `kube-proxy-arg: [proxy-mode=ipvs]` in /etc/rancher/rke2/config.yaml, then restart rke2 one node at a time: `systemctl restart rke2-server` on a server, `systemctl restart rke2-agent` on an agent; ' +
        'rke2 then writes /var/lib/rancher/rke2/agent/pod-manifests/kube-proxy.yaml again (an edit of that manifest alone is undone when rke2 restarts).',
    )
    assert.deepEqual(calls, [])
  })

  it('EKS AL2023 (ConfigMap kube-proxy-config, key config) is not refused: it goes on to read the ConfigMap', async () => {
    const s = await layoutBundle('eks-al2023', {})
    const {deps, calls} = modeDeps(s)
    // The recording API has no ConfigMap: the run stops there, past the layout refusal.
    const err = await thrown(() => runModeChange(deps, {...MODE_OPTIONS, to: 'nftables', nodes: ['node-1']}))
    assert.match(err.message, /^no kube-proxy ConfigMap in kube-system/)
    assert.deepEqual(calls, ['getConfigMap', 'getConfigMap'])
  })
})
