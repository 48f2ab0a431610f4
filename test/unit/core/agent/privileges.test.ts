// The agent's host mounts are derived from the layout paths (core/layout/known-layouts.ts and the discovery
// script's lists in core/collection/plan.ts): every path those name is covered by a read-only mount or is on the
// pinned list of paths the agent deliberately cannot see, and no mount can create a path the discovery takes as
// evidence (a hostPath of type '' that a node lacks is created there by the container runtime).
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {AGENT_PRIVILEGES, agentPlan, type HostMount, hostMountsFor, type ItemNeeds, KUBELET_CONFIG_MOUNTS, LAYOUT_EVIDENCE_PATHS, LAYOUT_MOUNTS} from '../../../../src/core/agent/privileges.js'
import {KUBELET_CONFIG_CANDIDATES, LAYOUT_LISTED_DIRS, LAYOUT_PATHS} from '../../../../src/core/collection/plan.js'
import {KNOWN_LAYOUT_HOST_PATHS, KNOWN_LAYOUTS} from '../../../../src/core/layout/known-layouts.js'
import {AREAS} from '../../../../src/core/model/report.js'

const needs = (id: string): ItemNeeds => {
  const p = AGENT_PRIVILEGES[id]
  assert.ok(p && !('unavailable' in p), `${id} runs in the agent`)
  return p
}
/** Whether one of the mounts shows `path` at the same path (a directory mount above it, or the file itself). */
const covers = (mounts: readonly HostMount[], path: string) => mounts.some((m) => m.path === path || (m.type === '' && path.startsWith(`${m.path}/`)))
const uncovered = (mounts: readonly HostMount[], paths: readonly string[]) => paths.filter((p) => !covers(mounts, p))

describe('agent privileges: mounts derived from the layout paths', () => {
  it("kubelet-config: every known layout's kubelet config file is mounted, and the running kubelet's --config is readable (host PID)", () => {
    const item = needs('kubelet-config')
    assert.equal(item.hostPID, true)
    const files = KNOWN_LAYOUTS.flatMap((l) => l.kubelet.configPaths)
    assert.ok(files.includes('/etc/kubernetes/kubelet/config.json') && files.includes('/home/kubernetes/kubelet-config.yaml') && files.includes('/etc/default/kubeletconfig.json'))
    assert.deepEqual(uncovered(item.mounts ?? [], [...files, ...KUBELET_CONFIG_CANDIDATES]), [])
    assert.deepEqual(KUBELET_CONFIG_MOUNTS.unmounted, [])
    // Where no kubelet process is visible the script tries the candidates: every layout's file is among them.
    assert.deepEqual(files.filter((f) => !KUBELET_CONFIG_CANDIDATES.includes(f)), [])
  })

  it("kubelet-dropins: every known layout's --config-dir is mounted (EKS config.json.d, k3s/RKE2 kubelet.conf.d)", () => {
    const item = needs('kubelet-dropins')
    assert.equal(item.hostPID, true)
    const dirs = KNOWN_LAYOUTS.flatMap((l) => l.kubelet.configDirs)
    assert.deepEqual(dirs.sort(), ['/etc/kubernetes/kubelet/config.json.d', '/var/lib/rancher/k3s/agent/etc/kubelet.conf.d', '/var/lib/rancher/rke2/agent/etc/kubelet.conf.d'])
    assert.deepEqual(uncovered(item.mounts ?? [], [...dirs, '/etc/kubernetes/kubelet.conf.d']), [])
  })

  it('layout: runs in the agent with the host PID and network namespaces and the host os-release', () => {
    const item = needs('layout')
    assert.deepEqual([item.hostPID, item.hostNetwork, item.capabilities], [true, true, undefined])
    assert.deepEqual(item.mounts?.find((m) => m.path === '/etc/os-release'), {name: 'host-etc-os-release', path: '/etc/os-release', type: 'File', why: "the node's os-release (distribution and OS name in the layout), over the image's"})
    assert.ok(!agentPlan().skipped.some((s) => s.item.id === 'layout'))
  })

  it('layout: every path the discovery tests or lists, and every path the table names, is mounted or pinned as unseen with its reason', () => {
    const mounts = needs('layout').mounts ?? []
    const all = [...new Set([...LAYOUT_PATHS, ...LAYOUT_LISTED_DIRS, ...KUBELET_CONFIG_CANDIDATES, ...KNOWN_LAYOUT_HOST_PATHS])]
    const unseen = uncovered(mounts, all)
    assert.deepEqual(unseen.sort(), LAYOUT_MOUNTS.unmounted.map((u) => u.path))
    // Pinned: a new unseen path is a decision, made here with its reason.
    assert.deepEqual(
      LAYOUT_MOUNTS.unmounted.map((u) => `${u.path}: ${u.why.split(':')[0]}`),
      [
        '/etc/eks/bootstrap.sh: EKS AL2 is told by /etc/kubernetes/kubelet/kubelet-config.json (mounted) and the Node\'s providerID',
        '/run/containerd/containerd.sock: a container runtime socket',
        '/run/k3s/containerd/containerd.sock: a container runtime socket',
        '/usr/bin/nodeadm: a binary under /usr',
        "/var/lib/rancher/k3s/data/current/bin/aux: k3s's unpacked binaries",
        '/var/lib/rancher/rke2/agent/pod-manifests: only the path itself could be mounted, and on a node without it the runtime would create a directory in its place',
        '/var/lib/rancher/rke2/agent/pod-manifests/kube-proxy.yaml: mounting /var/lib/rancher/rke2/agent/pod-manifests would create it on nodes without it, and /var/lib/rancher/rke2/agent/pod-manifests is evidence of a layout',
        '/var/run/cri-dockerd.sock: a container runtime socket',
        '/var/run/crio/crio.sock: a container runtime socket',
      ],
    )
  })

  it('every selection: no directory mount can create a path the discovery takes as evidence, a runtime socket, or a secret store', () => {
    for (const areas of [undefined, ...AREAS.map((a) => [a])]) {
      const {mounts} = agentPlan(areas).privileges
      for (const m of mounts) {
        if (m.type === 'File') continue // `File` never creates: the pod does not start without it
        const created = LAYOUT_EVIDENCE_PATHS.filter((e) => e === m.path || m.path.startsWith(`${e}/`))
        assert.deepEqual(created, [], `${m.path} would be created on nodes without it`)
        assert.notEqual(m.name.length > 63, true, `${m.name} is not a DNS label`)
        assert.match(m.name, /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/)
      }
      const secrets = ['/var/lib/rancher/k3s/server/token', '/var/lib/rancher/rke2/server/db/etcd', '/var/lib/rancher/k3s/agent/client-kubelet.key', '/var/lib/etcd/member', '/etc/shadow', '/run/containerd/containerd.sock', '/root/.ssh/id_rsa']
      assert.deepEqual(secrets.filter((s) => covers(mounts, s)), [])
    }
  })

  it('hostMountsFor: the shallowest directory that belongs to the layout, below shared directories and secret stores', () => {
    assert.deepEqual(hostMountsFor(['/opt/acme/kubelet/config.yaml', '/opt/acme/bin', '/etc/acme.yaml', '/var/lib/rancher/k3s/agent/etc/x.conf', '/run/acme/acme.sock'], 'test'), {
      mounts: [
        {name: 'host-opt-acme', path: '/opt/acme', type: '', why: 'test: /opt/acme/kubelet/config.yaml, /opt/acme/bin'},
        {name: 'host-var-lib-rancher-k3s-agent-etc', path: '/var/lib/rancher/k3s/agent/etc', type: '', why: 'test: /var/lib/rancher/k3s/agent/etc/x.conf'},
      ],
      unmounted: [
        {path: '/etc/acme.yaml', why: 'only the path itself could be mounted, and on a node without it the runtime would create a directory in its place'},
        {path: '/run/acme/acme.sock', why: 'a container runtime socket: connect() works through a read-only mount, so mounting it would hand the agent the runtime (root on the node); the runtime is told by its process'},
      ],
    })
  })
})
