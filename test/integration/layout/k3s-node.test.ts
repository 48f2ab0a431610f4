// Layout discovery end to end on a k3s-like node: a network namespace with flannel's links (a real vxlan flannel.1
// and bridge cni0), a private mount namespace whose /etc, /var/lib and /run are overlays adding k3s's files at their
// real paths (config.yaml, the agent's kubelet.conf.d, containerd config, flannel's CNI config), and a private PID
// namespace where a process named k3s runs as `/usr/local/bin/k3s server ...` (a copy of tail, which ignores the
// words it cannot open and keeps running). The collection plan's exact `layout` command runs there; its output is
// parsed and resolved with the Node the API would show.
import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {after, before, describe, it} from 'node:test'
import {COLLECTION_PLAN, commandLine} from '../../../src/core/collection/plan.js'
import {resolveLayout} from '../../../src/core/layout/resolve.js'
import {layoutSummary} from '../../../src/core/layout/summary.js'
import {emptyClusterSnapshot} from '../../../src/core/model/snapshot.js'
import {parseLayoutDiscovery} from '../../../src/core/parse/layout-discovery.js'
import {createNetns, type Netns, netnsUnavailable} from '../../support/netns.js'

// k3s v1.33's flannel CNI config (the file k3s writes to its agent's cni/net.d).
const FLANNEL_CONFLIST = `{
  "name":"cbr0",
  "cniVersion":"1.0.0",
  "plugins":[
    {"type":"flannel","delegate":{"hairpinMode":true,"forceAddress":true,"isDefaultGateway":true}},
    {"type":"portmap","capabilities":{"portMappings":true}},
    {"type":"bandwidth","capabilities":{"bandwidth":true}}
  ]
}
`
const FILES: Record<string, string> = {
  'etc/rancher/k3s/config.yaml': "write-kubeconfig-mode: '0644'\nkubelet-arg:\n  - max-pods=150\n",
  'var/lib/rancher/k3s/agent/etc/kubelet.conf.d/00-k3s-defaults.conf': 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nclusterDNS:\n  - 10.43.0.10\nclusterDomain: cluster.local\n',
  'var/lib/rancher/k3s/agent/etc/containerd/config.toml': 'version = 3\n[plugins."io.containerd.cri.v1.runtime"]\n  enable_selinux = false\n',
  'var/lib/rancher/k3s/agent/etc/cni/net.d/10-flannel.conflist': FLANNEL_CONFLIST,
  'var/lib/rancher/k3s/data/current/bin/aux/.keep': '',
}

function skipReason(): string | undefined {
  const base = netnsUnavailable()
  if (base) return base
  for (const tool of ['unshare', 'bash', 'tail']) if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) return `${tool} not installed`
  return undefined
}

const skip = skipReason()

describe('layout discovery on a k3s-like node (netns + private mounts + PID namespace)', {skip}, () => {
  let ns: Netns
  let dir: string
  let output = ''

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'nd-layout-'))
    for (const [path, text] of Object.entries(FILES)) {
      mkdirSync(dirname(join(dir, 'up', path)), {recursive: true})
      writeFileSync(join(dir, 'up', path), text)
    }
    for (const top of ['etc', 'var/lib', 'run']) {
      mkdirSync(join(dir, 'up', top), {recursive: true})
      mkdirSync(join(dir, 'work', top), {recursive: true})
    }
    mkdirSync(join(dir, 'up', 'run', 'k3s'), {recursive: true})
    mkdirSync(join(dir, 'bin'))
    copyFileSync('/usr/bin/tail', join(dir, 'bin', 'k3s'))
    ns = createNetns('ndl')
    ns.exec(['ip', 'link', 'set', 'lo', 'up'])
    ns.exec(['ip', 'link', 'add', 'cni0', 'type', 'bridge'])
    ns.exec(['ip', 'link', 'add', 'flannel.1', 'type', 'vxlan', 'id', '1', 'dstport', '8472'])
    const item = COLLECTION_PLAN.find((p) => p.id === 'layout')!
    const overlays = ['etc', 'var/lib', 'run']
      .map((t) => `mount -t overlay overlay -o lowerdir=/${t},upperdir=${dir}/up/${t},workdir=${dir}/work/${t} /${t}`)
      .join(' && ')
    const setup =
      `${overlays} && ` +
      `bash -c 'exec -a /usr/local/bin/k3s ${dir}/bin/k3s server -f /dev/null' >/dev/null 2>&1 & ` +
      // wait until the fake k3s has exec'd (its comm is k3s), then run the plan's exact command line
      'for i in 1 2 3 4 5 6 7 8 9 10; do grep -qx k3s /proc/[0-9]*/comm 2>/dev/null && break; sleep 0.2; done; eval "$1"'
    const r = ns.run(['unshare', '-m', '-p', '-f', '--mount-proc', '--propagation', 'private', 'sh', '-c', setup, 'node-doctor', commandLine(item, false)])
    assert.equal(r.status, 0, r.stderr)
    output = r.stdout
  })

  after(() => {
    ns?.destroy()
    if (dir) rmSync(dir, {recursive: true, force: true})
  })

  it('the script finds k3s, its files, flannel CNI config and links', () => {
    const d = parseLayoutDiscovery(output)
    assert.equal(d.format, 'node-doctor-layout/1')
    assert.ok(d.osRelease?.id, output)
    assert.deepEqual([d.kubelet?.embeddedIn, d.kubelet?.role], ['k3s', 'server'], output)
    assert.deepEqual(d.processes.find((p) => p.name === 'k3s')?.argv, ['/usr/local/bin/k3s', 'server', '-f', '/dev/null'])
    for (const p of ['/etc/rancher/k3s/config.yaml', '/var/lib/rancher/k3s/agent/etc/kubelet.conf.d', '/var/lib/rancher/k3s/agent/etc/containerd/config.toml', '/var/lib/rancher/k3s/data/current/bin/aux']) {
      assert.ok(d.paths.includes(p), `${p} in ${output}`)
    }
    assert.ok(!d.paths.includes('/var/lib/kubelet/config.yaml'))
    assert.deepEqual(d.files, ['/var/lib/rancher/k3s/agent/etc/kubelet.conf.d/00-k3s-defaults.conf'])
    assert.deepEqual([d.cni.first, d.cni.firstType], ['/var/lib/rancher/k3s/agent/etc/cni/net.d/10-flannel.conflist', 'flannel'])
    assert.deepEqual([...d.links].sort(), ['cni0', 'flannel.1'])
    assert.equal(d.kubeProxy, undefined)
  })

  it('resolves to k3s with kube-proxy embedded and flannel VXLAN', () => {
    const cluster = emptyClusterSnapshot('2026-12-03T00:00:00Z')
    cluster.nodes = [{metadata: {name: 'k3s-1'}, spec: {providerID: 'k3s://k3s-1'}, status: {nodeInfo: {kubeletVersion: 'v1.33.4+k3s1'}}}]
    const l = resolveLayout({node: 'k3s-1', cluster, discovery: parseLayoutDiscovery(output)})
    assert.deepEqual([l.distribution, l.kubeProxy.where, l.cni.name, l.cni.mode, l.servicesOwner.owner, l.clusterDNS], ['k3s', 'embedded', 'flannel', 'vxlan', 'kube-proxy', '10.43.0.10'])
    assert.deepEqual(l.kubelet.configDirs, ['/var/lib/rancher/k3s/agent/etc/kubelet.conf.d'])
    assert.equal(layoutSummary(l), 'k3s v1.33.4+k3s1 · kube-proxy embedded · flannel vxlan')
  })
})
