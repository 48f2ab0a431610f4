// End to end, live: the default `check` on a clean 3-node cluster prints no warning (issue #18, "no noise").
// A kubeadm Calico cluster on the calico-dns-builders IP plan: node-a the control plane (tainted), node-b and node-c
// workers (node-c in another subnet, reached over IPIP like the others). Every node is a network namespace with its
// own sshd, Calico's IPIP routes, a cali veth per pod on it, the iptables rules kube-proxy (iptables mode) writes
// there and kube-proxy's health endpoints; its SSH sessions see a kubeadm kubelet (config.yaml, kubeadm-flags.env,
// containerd's config, the kubelet process; node-host.ts) whose /configz is those files defaulted. kube-proxy runs as
// kubeadm's DaemonSet; calico-node's DaemonSet is ready; CoreDNS runs on two nodes behind kube-dns and shop/web has
// endpoints on both workers. Nothing is planted: any warning or error `check --all` reports here is a false alarm.
import assert from 'node:assert/strict'
import {after, before, describe, it} from 'node:test'
import type {Node, Pod} from '../../src/core/model/k8s.js'
import type {Report} from '../../src/core/model/report.js'
import type {WhyVerdict} from '../../src/core/why/verdict.js'
import {calicoCluster, calicoDaemonSet, endpointSlice, type NodeName, pod, service} from '../support/calico-dns-builders.js'
import {calicoPlanNode, kubeadmConfigz, kubeadmKubeletHost, startLiveCalicoCluster, withDnsPorts} from '../support/live-calico-cluster.js'
import {type LiveCluster, liveClusterSkipReason} from '../support/live-cluster.js'
import {nodeHostSkipReason} from '../support/node-host.js'

const NAMES: NodeName[] = ['node-a', 'node-b', 'node-c']
const KUBELET_VERSION = 'v1.33.2'
const DNS = {'k8s-app': 'kube-dns'}
const WEB = {app: 'web'}

/** The workload pods: [namespace, name, node, IP, labels, host-side cali interface]. */
const WORKLOADS: Array<[string, string, NodeName, string, Record<string, string>, string]> = [
  ['kube-system', 'coredns-a', 'node-a', '10.244.1.2', DNS, 'calia0000000001'],
  ['kube-system', 'coredns-c', 'node-c', '10.244.3.2', DNS, 'calic0000000001'],
  ['shop', 'web-b1', 'node-b', '10.244.2.10', WEB, 'calib0000000001'],
  ['shop', 'web-b2', 'node-b', '10.244.2.11', WEB, 'calib0000000002'],
  ['shop', 'web-c', 'node-c', '10.244.3.10', WEB, 'calic0000000002'],
]

function cleanCluster() {
  const pods: Pod[] = WORKLOADS.map(([ns, name, node, ip, labels]) => pod(ns, name, node, ip, {labels}))
  const c = calicoCluster({nodes: NAMES, pods})
  // kubeadm's control plane carries its role label and the NoSchedule taint; every kubelet reports its version.
  c.nodes = c.nodes.map((n): Node => {
    const status = {...n.status, nodeInfo: {kubeletVersion: KUBELET_VERSION, containerRuntimeVersion: 'containerd://1.7.22'}}
    if (n.metadata.name !== 'node-a') return {...n, status} as Node
    return {...n, status, metadata: {...n.metadata, labels: {...n.metadata.labels, 'node-role.kubernetes.io/control-plane': ''}}, spec: {...n.spec, taints: [{key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule'}]}} as Node
  })
  c.daemonSets = [calicoDaemonSet(3, 3)]
  const dnsService = service('kube-system', 'kube-dns', '10.96.0.10', DNS, {
    ports: [
      {name: 'dns', protocol: 'UDP', port: 53},
      {name: 'dns-tcp', protocol: 'TCP', port: 53},
    ],
  })
  c.services = [service('default', 'kubernetes', '10.96.0.1', undefined, {ports: [{name: 'https', protocol: 'TCP', port: 443, targetPort: 6443}]}), dnsService, service('shop', 'web', '10.96.1.1', WEB)]
  const endpoints = (labels: Record<string, string>) => WORKLOADS.filter((w) => w[4] === labels).map(([, name, node, ip]) => ({ip, node, pod: name}))
  c.endpointSlices = [
    {...endpointSlice('default', 'kubernetes', [{ip: '192.168.0.11'}], {managedBy: 'endpointslicemirroring-controller.k8s.io'}), ports: [{name: 'https', protocol: 'TCP', port: 6443}]},
    endpointSlice('kube-system', 'kube-dns', endpoints(DNS)),
    endpointSlice('shop', 'web', endpoints(WEB)),
  ]
  return withDnsPorts(c)
}

describe('the default check on a clean 3-node Calico cluster', {skip: liveClusterSkipReason() ?? nodeHostSkipReason()}, () => {
  let c: LiveCluster

  before(async () => {
    const configz = kubeadmConfigz(KUBELET_VERSION)
    c = await startLiveCalicoCluster({
      cluster: cleanCluster(),
      nodes: NAMES.map((name) => ({
        ...calicoPlanNode(
          name,
          Object.fromEntries(WORKLOADS.filter((w) => w[2] === name).map((w) => [w[5], w[3]])),
          NAMES.filter((n) => n !== name),
        ),
        host: kubeadmKubeletHost(name),
      })),
      kubeProxy: 'daemonset',
      api: {configz: Object.fromEntries(NAMES.map((n) => [n, configz])), version: {major: '1', minor: '33', gitVersion: 'v1.33.4'}},
      tempPrefix: 'nd-live-clean-',
    })
  })
  after(async () => c?.stop())

  it('check --all: exit 0, HEALTHY, no warning or error (table and -o json)', async () => {
    const r = await c.cli(['check', '--all', '-o', 'json'])
    const report = JSON.parse(r.stdout) as Report
    const noisy = report.findings.filter((f) => f.severity === 'warning' || f.severity === 'error')
    assert.deepEqual(noisy.map((f) => `${f.node} ${f.id} ${f.severity}: ${f.message}`), [])
    assert.deepEqual(report.collectionErrors, [])
    assert.deepEqual(report.nodes.map((n) => [n.name, n.status]), NAMES.map((n) => [n, 'healthy']))
    assert.equal(r.exitCode, 0, r.stderr)
    // Quiet because it judged, not because it skipped: the layout was read and the checks ran on every node.
    for (const node of report.nodes) {
      assert.equal(node.layout?.distribution, 'kubeadm', node.name)
      const passed = new Set(report.results.filter((x) => x.node === node.name && x.status === 'passed').map((x) => x.id))
      const judged = ['KUBELET-001', 'KUBELET-016', 'KUBELET-022', 'PROXY-005', 'IPT-003', 'RT-001', 'RT-005', 'DNS-004', 'NODE-001', 'CT-001']
      assert.deepEqual(judged.filter((id) => !passed.has(id)), [], node.name)
    }
    const table = await c.cli(['check', '--all'])
    assert.equal(table.exitCode, 0, table.stdout + table.stderr)
    assert.match(table.stdout, /^✔ HEALTHY {2}3 nodes: 3 healthy · no findings · /)
    assert.doesNotMatch(table.stdout, /UNHEALTHY|WARNINGS|ERRORS|PARTIAL/)
  })

  it('why answers works from every node, for dns and for shop/web, with nothing left unjudged', async () => {
    for (const node of NAMES) {
      for (const target of ['dns', 'svc/shop/web']) {
        const r = await c.cli(['why', target, '--from', node, '-o', 'json'])
        assert.equal(r.exitCode, 0, `${target} from ${node}: ${r.stdout}${r.stderr}`)
        const v = JSON.parse(r.stdout) as WhyVerdict
        assert.equal(v.verdict, 'works', `${target} from ${node}: ${v.headline}`)
        assert.deepEqual(v.causes, [])
        assert.deepEqual(v.unknown, [], `${target} from ${node}`)
      }
    }
  })
})
