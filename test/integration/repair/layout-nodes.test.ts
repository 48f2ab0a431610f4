// `fix kube-proxy` on nodes built for real (#17): the k3s, RKE2 and kubeadm layouts of the check harness
// (test/integration/layout/layouts.ts: files at their real paths, the processes' command lines, links, routes and
// iptables rules in a network namespace), collected with the real collection plan through a transport over that node
// and analysed as the live re-check does, with a stale KUBE-SVC chain planted (an IPT finding a restart repairs).
// The repair takes the node's layout from that same collection: k3s (kube-proxy embedded) and RKE2 (static pod) are
// refused before anything is asked or changed, naming the command to run on the node; kubeadm's DaemonSet pod is
// planned for deletion as before.
import assert from 'node:assert/strict'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'
import {analyzeSnapshots} from '../../../src/app/analyze.js'
import {collectNode} from '../../../src/app/collect-node.js'
import {RepairRefusedError} from '../../../src/app/repair/errors.js'
import {type NodeChecker, runPodRestart, type PodRestartDeps} from '../../../src/app/repair/pod-restart.js'
import {KUBE_PROXY_TARGET} from '../../../src/app/repair/pod-restart-plan.js'
import {planFor} from '../../../src/core/collection/plan.js'
import type {ClusterSnapshot} from '../../../src/core/model/snapshot.js'
import {ExitCode} from '../../../src/exit-codes.js'
import type {ExecResult, NodeTransport} from '../../../src/ports/node-transport.js'
import {type FakeKubeProxy, startFakeKubeProxy} from '../../support/fake-kube-proxy.js'
import {createNetns, type Netns} from '../../support/netns.js'
import {LAYOUTS, type Layout} from '../layout/layouts.js'
import {createLayoutNode, type LayoutNode, layoutNodeSkipReason} from '../layout/node.js'

const META = {generatedAt: '2026-12-03T12:00:00Z', tool: {name: 'node-doctor', version: 'test'}, command: 'fix kube-proxy'}
const NOW = () => new Date('2026-12-03T12:00:00.000Z')
const STALE = '*nat\n:KUBE-SVC-STALE0000000000AB - [0:0]\n-A KUBE-SVC-STALE0000000000AB -m comment --comment "shop/gone:http cluster IP" -j KUBE-MARK-MASQ\nCOMMIT\n'

class LayoutTransport implements NodeTransport {
  readonly kind = 'local' as const
  constructor(
    readonly node: string,
    private readonly ln: LayoutNode,
  ) {}
  async exec(command: string): Promise<ExecResult> {
    const r = this.ln.run(command)
    return {exitCode: r.status, stdout: r.stdout, stderr: r.stderr}
  }
  async close(): Promise<void> {}
}

interface Built {
  layout: Layout
  node: LayoutNode
  pods: Netns
  cluster: ClusterSnapshot
  kubeProxy?: FakeKubeProxy
  dir: string
}

async function build(layout: Layout): Promise<Built> {
  const node = createLayoutNode(layout.files, layout.processes)
  const pods = createNetns('ndrp')
  const dir = mkdtempSync(join(tmpdir(), 'nd-repair-kp-'))
  layout.network(node.ns, pods)
  const cluster = layout.cluster()
  // A live API gives every pod a uid (the delete's precondition); the harness's objects have none.
  cluster.pods = cluster.pods.map((p) => ({...p, metadata: {...p.metadata, uid: p.metadata.uid ?? `uid-${p.metadata.name}`}}))
  layout.rules(cluster).forEach((text, i) => node.ns.exec(['iptables-restore', ...(i === 0 ? [] : ['--noflush'])], text))
  node.ns.exec(['iptables-restore', '--noflush'], STALE)
  const built: Built = {layout, node, pods, cluster, dir}
  if (layout.kubeProxyMode) built.kubeProxy = await startFakeKubeProxy(node.ns.name, dir, layout.kubeProxyMode)
  return built
}

async function destroy(b: Built | undefined): Promise<void> {
  if (!b) return
  await b.kubeProxy?.stop()
  b.pods.destroy()
  b.node.destroy()
  rmSync(b.dir, {recursive: true, force: true})
}

/** What liveChecker does, over the built node: collect with the real plan, analyse the repair's areas. */
const checker = (b: Built): NodeChecker => async (_nodes, areas) => {
  const snapshot = await collectNode(new LayoutTransport(b.layout.node, b.node), {plan: planFor(), timeoutMs: 30_000, sudo: false, now: NOW, batch: true})
  return {cluster: b.cluster, nodes: [snapshot], report: analyzeSnapshots(b.cluster, [snapshot], {areas: [...areas], metadata: META})}
}

function deps(b: Built) {
  const calls: string[] = []
  const asked: string[] = []
  const d: PodRestartDeps = {
    api: {
      listPods: async () => (calls.push('listPods'), []),
      deletePod: async (ns: string, name: string) => void calls.push(`deletePod ${ns}/${name}`),
      canI: async () => (calls.push('canI'), {allowed: true}),
    } as unknown as PodRestartDeps['api'],
    check: checker(b),
    confirm: async (text) => (asked.push(text), 'dry-run'),
    audit: {audit: {prepare: async () => {}, append: async () => {}, location: '/dev/null'}, warn: () => {}},
    progress: () => {},
  }
  return {d, calls, asked}
}

const OPTIONS = {maxUnavailable: 1, continueOnFailure: false, readyTimeoutMs: 1000, verifyTimeoutMs: 1000, pollMs: 10, failOn: 'error' as const, metadata: META, who: {localUser: 'test'}}
const layoutNamed = (name: string) => LAYOUTS.map((m) => m()).find((l) => l.name === name)!

async function thrown(fn: () => Promise<unknown>): Promise<Error> {
  try {
    await fn()
  } catch (err) {
    return err as Error
  }
  assert.fail('expected a refusal')
}

describe('fix kube-proxy on layout nodes built in namespaces', {skip: layoutNodeSkipReason()}, () => {
  const built = new Map<string, Built>()
  before(async () => {
    for (const name of ['k3s', 'RKE2', 'kubeadm']) built.set(name, await build(layoutNamed(name)))
  })
  after(async () => {
    for (const b of built.values()) await destroy(b)
  })

  it('the planted stale chain is an IPT finding a restart repairs, on each layout', async () => {
    for (const [name, b] of built) {
      const {report} = await checker(b)([b.layout.node], KUBE_PROXY_TARGET.areas)
      assert.ok(
        report.findings.some((f) => KUBE_PROXY_TARGET.justifiedBy.includes(f.id) && f.subject.name === 'KUBE-SVC-STALE0000000000AB'),
        `${name}: ${report.findings.map((f) => `${f.id} ${f.subject.name}`).join(', ')}`,
      )
    }
  })

  it('k3s server: refused with `systemctl restart k3s` (the whole k3s process; never done for the user), exit 1, nothing asked or changed', async () => {
    const b = built.get('k3s')!
    const {d, calls, asked} = deps(b)
    const err = await thrown(() => runPodRestart(KUBE_PROXY_TARGET, d, {...OPTIONS, nodes: [b.layout.node]}))
    assert.ok(err instanceof RepairRefusedError, String(err))
    assert.equal(err.exitCode, ExitCode.FINDINGS)
    assert.match(err.message, new RegExp(`^not restarting kube-proxy: ${b.layout.node}: kube-proxy is embedded in the k3s server process on this node \\(.*\\): there is no kube-proxy pod to delete; nothing was changed$`))
    assert.match(err.hint ?? '', /^On \S+, restart k3s on the node: `systemctl restart k3s`\. This restarts the whole k3s process .*node-doctor never restarts k3s itself\.$/)
    assert.deepEqual([calls, asked], [[], []])
  })

  it('RKE2: refused with the crictl stop of the static pod container (RKE2 crictl), exit 1, nothing asked or changed', async () => {
    const b = built.get('RKE2')!
    const {d, calls, asked} = deps(b)
    const err = await thrown(() => runPodRestart(KUBE_PROXY_TARGET, d, {...OPTIONS, nodes: [b.layout.node]}))
    assert.ok(err instanceof RepairRefusedError, String(err))
    assert.equal(err.exitCode, ExitCode.FINDINGS)
    assert.equal(
      err.message,
      `not restarting kube-proxy: ${b.layout.node}: kube-proxy runs as a static pod on this node (static pod /var/lib/rancher/rke2/agent/pod-manifests/kube-proxy.yaml): ` +
        'deleting its mirror pod kube-system/kube-proxy-rke2-1 does not restart the container; nothing was changed',
    )
    assert.match(err.hint ?? '', /`CRI_CONFIG_FILE=\/var\/lib\/rancher\/rke2\/agent\/etc\/crictl\.yaml \/var\/lib\/rancher\/rke2\/bin\/crictl stop \$\(.* ps --name kube-proxy -q\)`/)
    assert.deepEqual([calls, asked], [[], []])
  })

  it("kubeadm (DaemonSet): the pod delete is planned and asked, as before", async () => {
    const b = built.get('kubeadm')!
    const {d, calls, asked} = deps(b)
    const r = await runPodRestart(KUBE_PROXY_TARGET, d, {...OPTIONS, nodes: [b.layout.node]})
    assert.equal(r.decision, 'dry-run')
    assert.match(asked[0] ?? '', new RegExp(`^  ${b.layout.node}: delete pod kube-system/kube-proxy-\\w+ \\(uid uid-kube-proxy-\\w+\\)$`, 'm'))
    assert.ok(calls.includes('canI') && !calls.some((c) => c.startsWith('deletePod')), calls.join(', '))
  })
})
