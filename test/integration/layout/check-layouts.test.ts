// The layout "check" harness (#17): per distribution layout (kubeadm, k3s, RKE2, EKS AL2023, GKE-like on COS paths,
// Cilium kube-proxy replacement), a node built for real with test/integration/layout/node.ts (the layout's files at
// their real paths, its links, routes and iptables rules in the node's network namespace, its processes' command
// lines), collected with the real collection plan through a NodeTransport over that node, and analysed as `check`
// does (analyzeSnapshots, profile incident) with the API objects that layout's cluster has. Clean, each node reports
// its layout and Services owner and raises no error and no warning; then the planted faults that apply to the layout
// (a stale KUBE-SVC chain, a missing route to another node's pod block, a wrong clusterDNS in the kubelet file that
// layout really uses, kube-proxy's leftovers after a move to Cilium, a canal pod veth above flannel.1's MTU) are each found.
import assert from 'node:assert/strict'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'
import {analyzeSnapshots} from '../../../src/app/analyze.js'
import {collectNode} from '../../../src/app/collect-node.js'
import {planFor} from '../../../src/core/collection/plan.js'
import type {Finding, Report} from '../../../src/core/model/report.js'
import type {ClusterSnapshot, NodeSnapshot} from '../../../src/core/model/snapshot.js'
import type {ExecResult, NodeTransport} from '../../../src/ports/node-transport.js'
import {type FakeKubeProxy, startFakeKubeProxy} from '../../support/fake-kube-proxy.js'
import {readFixture} from '../../support/golden.js'
import {createNetns, type Netns} from '../../support/netns.js'
import {LAYOUTS, type Layout} from './layouts.js'
import {createLayoutNode, type LayoutNode, layoutNodeSkipReason} from './node.js'

const META = {generatedAt: '2026-12-03T12:00:00Z', tool: {name: 'node-doctor', version: 'test'}, command: 'check --all'}
const NOW = () => new Date('2026-12-03T12:00:00.000Z')

/** The collection plan's commands, run on a layout node: what `check` does over SSH, here over the namespaces. */
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


// ---------------------------------------------------------------------------------------------------------------
// The harness

interface Built {
  layout: Layout
  node: LayoutNode
  pods: Netns
  cluster: ClusterSnapshot
  kubeProxy?: FakeKubeProxy
  dir: string
}

async function build(layout: Layout, files: Record<string, string> = layout.files): Promise<Built> {
  const node = createLayoutNode(files, layout.processes)
  const pods = createNetns('ndlp')
  const dir = mkdtempSync(join(tmpdir(), 'nd-layout-kp-'))
  layout.network(node.ns, pods)
  const cluster = layout.cluster()
  layout.rules(cluster).forEach((text, i) => node.ns.exec(['iptables-restore', ...(i === 0 ? [] : ['--noflush'])], text))
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

async function check(b: Built): Promise<{report: Report; snapshot: NodeSnapshot}> {
  const snapshot = await collectNode(new LayoutTransport(b.layout.node, b.node), {plan: planFor(), timeoutMs: 30_000, sudo: false, now: NOW, batch: true})
  return {report: analyzeSnapshots(b.cluster, [snapshot], {metadata: META, profile: 'incident'}), snapshot}
}

/** /proc/swaps is not namespaced: on a host that swaps, KUBELET-025 on layouts with failSwapOn false (k3s, RKE2) is true. */
const HOST_SWAPS = readFileSync('/proc/swaps', 'utf8').trim().split('\n').length > 1
const loud = (r: Report): Finding[] => r.findings.filter((f) => (f.severity === 'error' || f.severity === 'warning') && !(HOST_SWAPS && f.id === 'KUBELET-025'))
const show = (fs: readonly Finding[]) => fs.map((f) => `${f.id} ${f.severity} ${f.message} [${f.subject.kind} ${f.subject.name}${f.subject.in ? ` in ${f.subject.in}` : ''}]`).join('\n')

describe('check on every layout, built in namespaces', {skip: layoutNodeSkipReason()}, () => {
  for (const make of LAYOUTS) {
    const layout = make()
    describe(layout.name, () => {
      let b: Built | undefined
      let clean: {report: Report; snapshot: NodeSnapshot}
      before(async () => {
        b = await build(layout)
        clean = await check(b)
        if (process.env.ND_LAYOUT_DEBUG) {
          console.log(`== ${layout.name}\n${clean.report.collectionErrors.map((e) => `collection: ${e.source}: ${e.message}`).join('\n')}`)
          console.log(clean.report.results.filter((r) => r.status === 'skipped').map((r) => `skip ${r.id}: ${r.reason}`).join('\n'))
          console.log(show(clean.report.findings))
        }
      })
      after(() => destroy(b))

      it('clean: the layout and Services owner are reported, and no error or warning is raised', () => {
        const n = clean.report.nodes[0]!
        assert.equal(n.layout?.summary, layout.summary, JSON.stringify(n.layout))
        assert.equal(n.layout?.servicesOwner.owner, layout.owner)
        // k3s/RKE2 name their clusterDNS (cluster-dns, default 10.43.0.10): the same address their kubelet drop-in holds.
        if (n.layout?.clusterDNS !== undefined) assert.equal(n.layout.clusterDNS, /\d+\.\d+\.\d+\.\d+/.exec(layout.dnsLine)?.[0])
        assert.deepEqual(show(loud(clean.report)), '')
      })

      it("clean: kube-proxy's configured and running modes are compared (PROXY-001..003 run, not skipped)", {skip: layout.owner !== 'kube-proxy' ? 'kube-proxy does not implement Services here' : false}, () => {
        const modes = clean.report.results.filter((r) => ['PROXY-001', 'PROXY-002', 'PROXY-003'].includes(r.id))
        assert.deepEqual(modes.map((r) => `${r.id} ${r.status}${r.reason ? ` ${r.reason}` : ''}`), ['PROXY-001 passed', 'PROXY-002 passed', 'PROXY-003 passed'])
      })

      it('a configured mode kube-proxy was not restarted with is found where this layout keeps it', {skip: layout.modeFault ? false : 'the mode is configured in a ConfigMap here (unit-tested)'}, async () => {
        const fault = layout.modeFault!
        const wrong = await build(layout, {...layout.files, [fault.file]: `${layout.files[fault.file] ?? ''}${fault.append}`})
        try {
          const {report} = await check(wrong)
          const f = report.findings.find((x) => x.id === 'PROXY-003')
          assert.ok(f, show(report.findings))
          assert.match(f.message, new RegExp(`configured for nftables \\(kube-proxy-arg proxy-mode=nftables in /${fault.file.replaceAll('.', '\\.')}\\)`))
          assert.match(f.remedy ?? '', fault.restart)
        } finally {
          await destroy(wrong)
        }
      })

      it('a stale KUBE-SVC chain is found', {skip: layout.owner !== 'kube-proxy' ? 'kube-proxy does not implement Services here' : false}, async () => {
        b!.node.ns.exec(['iptables-restore', '--noflush'], '*nat\n:KUBE-SVC-STALE0000000000AB - [0:0]\n-A KUBE-SVC-STALE0000000000AB -m comment --comment \"shop/gone:http cluster IP\" -j KUBE-MARK-MASQ\nCOMMIT\n')
        try {
          const {report} = await check(b!)
          assert.ok(report.findings.some((f) => /^IPT-/.test(f.id) && f.subject.name === 'KUBE-SVC-STALE0000000000AB'), show(report.findings))
        } finally {
          b!.node.ns.exec(['iptables', '-t', 'nat', '-F', 'KUBE-SVC-STALE0000000000AB'])
          b!.node.ns.exec(['iptables', '-t', 'nat', '-X', 'KUBE-SVC-STALE0000000000AB'])
        }
      })

      const routeFault = layout.calicoRoutes
        ? {...layout.calicoRoutes, id: 'RT-001'}
        : layout.flannelRoutes
          ? {...layout.flannelRoutes, id: 'RT-009'}
          : layout.ciliumRoutes
            ? {...layout.ciliumRoutes, id: 'RT-013'}
            : undefined
      it("a missing route to another node's pod block is found", {skip: routeFault ? false : 'the pod network here is not routed by Calico, flannel VXLAN or Cilium on the node (VPC/cloud routes)'}, async () => {
        const removed = routeFault!.remove
        const saved = removed.map((dst) => b!.node.ns.exec(['ip', 'route', 'show', dst]).trim())
        for (const dst of removed) b!.node.ns.exec(['ip', 'route', 'del', dst])
        try {
          const {report} = await check(b!)
          assert.ok(report.findings.some((f) => f.id === routeFault!.id && removed.some((d) => f.subject.name === d)), show(report.findings))
        } finally {
          for (const r of saved) b!.node.ns.exec(['ip', 'route', 'add', ...r.split(' ')])
        }
      })

      it("clean: flannel's routes, neighbour and FDB entries are judged (RT-009..011 run, not skipped)", {skip: layout.flannelRoutes ? false : 'flannel VXLAN does not route the pods here'}, () => {
        const rs = clean.report.results.filter((r) => ['RT-009', 'RT-010', 'RT-011'].includes(r.id))
        assert.deepEqual(rs.map((r) => `${r.id} ${r.status}${r.reason ? ` ${r.reason}` : ''}`), ['RT-009 passed', 'RT-010 passed', 'RT-011 passed'])
      })

      it('a pod veth above the tunnel it sends through is found (NODE-012); clean, the MTU checks run', {skip: layout.podMtuFault ? false : 'no routed pod veth behind a tunnel planted here (unit-tested)'}, async () => {
        const rs = clean.report.results.filter((r) => ['NODE-010', 'NODE-011', 'NODE-012'].includes(r.id))
        assert.deepEqual(rs.map((r) => `${r.id} ${r.status}${r.reason ? ` ${r.reason}` : ''}`), ['NODE-010 passed', 'NODE-011 passed', 'NODE-012 passed'])
        const {link, mtu} = layout.podMtuFault!
        const before = /\bmtu (\d+)/.exec(b!.node.ns.exec(['ip', 'link', 'show', link]))![1]!
        b!.node.ns.exec(['ip', 'link', 'set', link, 'mtu', String(mtu)])
        try {
          const {report} = await check(b!)
          const f = report.findings.filter((x) => x.id === 'NODE-012')
          assert.deepEqual(f.map((x) => x.subject.name), [link], show(report.findings))
        } finally {
          b!.node.ns.exec(['ip', 'link', 'set', link, 'mtu', before])
        }
      })

      it("the kubelet's implied flags hold when its command line cannot be read (--profile all)", {skip: layout.quietWithoutKubeletCmdline ? false : 'the kubelet settings here are in files or not implied by the distribution'}, async () => {
        const {snapshot} = await check(b!)
        assert.match(snapshot.artifacts['kubelet-cmdline']?.content ?? '', /--read-only-port=0/)
        // As when /proc/PID/cmdline could not be read: the collected artifact carries an error instead of the text.
        const unread: NodeSnapshot = {...snapshot, artifacts: {...snapshot.artifacts, 'kubelet-cmdline': {...snapshot.artifacts['kubelet-cmdline']!, content: '', error: 'cannot read /proc/PID/cmdline'}}}
        const report = analyzeSnapshots(b!.cluster, [unread], {metadata: META, profile: 'all'})
        const ran = report.results.filter((r) => layout.quietWithoutKubeletCmdline!.includes(r.id))
        assert.deepEqual(ran.map((r) => `${r.id} ${r.status}${r.reason ? ` ${r.reason}` : ''}`), layout.quietWithoutKubeletCmdline!.map((id) => `${id} passed`), show(report.findings))
      })

      it("kube-proxy's leftovers after a move to another Services owner are found", {skip: layout.leftovers ? false : 'kube-proxy implements Services on this layout'}, async () => {
        const state = b!.node.ns.exec(['iptables-save'])
        b!.node.ns.exec(['iptables-restore'], readFixture(layout.leftovers!))
        try {
          const {report} = await check(b!)
          const f = report.findings.filter((x) => x.id === 'SVC-001')
          assert.equal(f.length, 1, show(report.findings))
          assert.ok(f[0]!.evidence.some((e) => /^KUBE-SVC-/.test(e)), f[0]!.evidence.join('\n'))
        } finally {
          b!.node.ns.exec(['iptables-restore'], state)
        }
      })

      it('a wrong clusterDNS in the kubelet file this layout uses is found, and named', async () => {
        const files = {...layout.files, [layout.dnsFile]: layout.files[layout.dnsFile]!.replace(layout.dnsLine, layout.dnsLine.replace(/\.10(\D*)$/, '.99$1'))}
        assert.notEqual(files[layout.dnsFile], layout.files[layout.dnsFile])
        const wrong = await build(layout, files)
        try {
          const {report} = await check(wrong)
          const f = report.findings.find((x) => x.id === 'KUBELET-016' || /clusterDNS/.test(x.message))
          assert.ok(f, show(report.findings))
          assert.equal(f.subject.in, `/${layout.dnsFile}`)
        } finally {
          await destroy(wrong)
        }
      })
    })
  }
})
