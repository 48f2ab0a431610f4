// Writes the fire/quiet bundles for hairpin (NODE-020) and node-local-dns (NODE-021) under
// test/fixtures/checks/node-datapath/<case>/ and its cases.json (a folder of its own, beside make-node-prereq-fixtures.ts's
// node/, which that script rewrites whole). Real kernel state: each case is a fresh network namespace with a bridge
// `cni0` and two pod veth ports (hairpin set per port with `ip link set VETH type bridge_slave hairpin on|off`, as the
// bridge CNI plugin does), kube-proxy's ruleset from the iptables checks' clean bundle loaded with iptables-restore, and,
// for node-local-dns, its listen addresses on a `nodelocaldns` link plus the rules node-cache installs (kubernetes/dns
// cmd/node-cache/app/cache_app.go initIptables: raw PREROUTING/OUTPUT NOTRACK, filter INPUT/OUTPUT ACCEPT, inserted at
// the top). NOTE: node-cache makes `nodelocaldns` a dummy link; this kernel's namespaces cannot create dummy links, so
// the fixture uses a bridge of that name (the checks read only its name and addresses). The artifacts are the real
// outputs of `ip -j -d link show`, `ip -j addr show` and `iptables-save` in the namespace. The cluster is the iptables
// checks' clean bundle, plus the upstream node-local-dns DaemonSet (args as in its nodelocaldns.yaml) for NODE-021.
// Kernel modules (NODE-022): the plan's own `modules-available` script runs for real, in a mount namespace where an
// overlay on /usr/lib adds a modules directory for the running kernel (modules.builtin, modules.dep in the kernel's
// format: `kernel/net/netfilter/nf_tables.ko.zst: kernel/net/netfilter/nfnetlink.ko.zst`), since this test kernel is
// built without loadable modules and has no /lib/modules at all; /sys/module is the real one (so a module this kernel
// has in /sys/module cannot be made absent: modules-sctp-absent uses xt_sctp, which it lacks, with an SCTP Service).
// Needs root. Run: node --import tsx scripts/make-node-datapath-fixtures.ts
import {execFileSync} from 'node:child_process'
import {mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {MODULES_PROBED} from '../src/core/parse/kernel-modules.js'
import type {ClusterSnapshot, NodeSnapshot} from '../src/core/model/snapshot.js'
import type {DaemonSet, Service} from '../src/core/model/k8s.js'
import {readBundle, writeBundle} from '../src/transports/bundle/bundle.js'
import {captureInNs, inNs, planArgv, withNetns} from './lib/node-netns.js'

const ROOT = 'test/fixtures/checks/node-datapath'
const BASE = 'test/fixtures/checks/iptables/clean'
const base = await readBundle(BASE)
const kubeProxyRules = base.nodes[0]!.artifacts['iptables-save']!.content
const KUBE_DNS_IP = base.cluster.services.find((s) => s.metadata.namespace === 'kube-system' && s.metadata.name === 'kube-dns')?.spec.clusterIP ?? '172.30.0.10'
const LOCAL_IPS = ['169.254.20.10', KUBE_DNS_IP]

interface Case {
  dir: string
  hairpin: boolean
  nodeLocalDns?: {notrack: boolean}
  /** Modules left out of the constructed modules.dep (absent for the running kernel). */
  modulesAbsent?: string[]
  /** Lines appended to the kube-proxy ConfigMap's config.conf. */
  kubeProxyConfig?: string
  /** An SCTP Service added to the cluster after the node's rules were written (kube-proxy has not synced it). */
  sctpService?: boolean
}

const CASES: Case[] = [
  {dir: 'bridge-ok', hairpin: true, nodeLocalDns: {notrack: true}, modulesAbsent: []},
  {dir: 'hairpin-off', hairpin: false},
  {dir: 'nodelocaldns-notrack-missing', hairpin: true, nodeLocalDns: {notrack: false}},
  // The ConfigMap was switched to nftables (kube-proxy still runs iptables until it restarts) on a kernel without nf_tables.
  {dir: 'modules-nft-absent', hairpin: true, modulesAbsent: ['nf_tables'], kubeProxyConfig: 'mode: nftables\n'},
  // An SCTP Service created on a kernel without xt_sctp: kube-proxy's syncs since then fail, so the node holds its rules
  // from before it (NODE-022 judges the modules of the rules kube-proxy will write).
  {dir: 'modules-sctp-absent', hairpin: true, modulesAbsent: ['xt_sctp'], sctpService: true},
]

/** Runs the plan's `modules-available` command with a modules directory for the running kernel overlaid on /usr/lib. */
function modulesAvailable(absent: readonly string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'nd-mods-'))
  try {
    const release = execFileSync('uname', ['-r'], {encoding: 'utf8'}).trim()
    const kdir = join(dir, 'modules', release)
    mkdirSync(kdir, {recursive: true})
    const path = (m: string) => `kernel/net/netfilter/${m.startsWith('ip_vs') ? 'ipvs/' : ''}${m}.ko.zst`
    writeFileSync(join(kdir, 'modules.builtin'), 'kernel/net/ipv4/netfilter/nf_defrag_ipv4.ko\n')
    writeFileSync(join(kdir, 'modules.dep'), MODULES_PROBED.filter((m) => !absent.includes(m)).map((m) => `${path(m)}: kernel/net/netfilter/nfnetlink.ko.zst\n`).join(''))
    return execFileSync('unshare', ['-m', 'sh', '-c', `mount -t overlay overlay -o lowerdir=${dir}:/usr/lib /usr/lib && exec "$@"`, 'sh', ...planArgv('modules-available')], {encoding: 'utf8'})
  } finally {
    rmSync(dir, {recursive: true, force: true})
  }
}

/** node-cache's rules for one listen address, in the order it inserts them (each at the top of its chain). */
function nodeCacheRules(ip: string, notrack: boolean): string[][] {
  const rules: string[][] = []
  for (const p of ['tcp', 'udp']) if (notrack) rules.push(['-t', 'raw', '-I', 'PREROUTING', '-p', p, '-d', ip, '--dport', '53', '-j', 'NOTRACK'])
  for (const p of ['tcp', 'udp']) rules.push(['-t', 'filter', '-I', 'INPUT', '-p', p, '-d', ip, '--dport', '53', '-j', 'ACCEPT'])
  for (const p of ['tcp', 'udp']) if (notrack) rules.push(['-t', 'raw', '-I', 'OUTPUT', '-p', p, '-s', ip, '--sport', '53', '-j', 'NOTRACK'])
  for (const p of ['tcp', 'udp']) rules.push(['-t', 'filter', '-I', 'OUTPUT', '-p', p, '-s', ip, '--sport', '53', '-j', 'ACCEPT'])
  for (const p of ['tcp', 'udp']) if (notrack) rules.push(['-t', 'raw', '-I', 'OUTPUT', '-p', p, '-d', ip, '--dport', '53', '-j', 'NOTRACK'])
  if (notrack) rules.push(['-t', 'raw', '-I', 'OUTPUT', '-p', 'tcp', '-d', ip, '--dport', '8080', '-j', 'NOTRACK'], ['-t', 'raw', '-I', 'OUTPUT', '-p', 'tcp', '-s', ip, '--sport', '8080', '-j', 'NOTRACK'])
  return rules
}

function capture(c: Case): NodeSnapshot {
  return withNetns('nd-dp', (ns) => {
    inNs(ns, ['ip', 'link', 'set', 'lo', 'up'])
    inNs(ns, ['ip', 'link', 'add', 'cni0', 'type', 'bridge'])
    inNs(ns, ['ip', 'addr', 'add', '10.0.1.1/24', 'dev', 'cni0'])
    for (const [veth, peer] of [['veth3f2a1c9d', 'pod-a'], ['veth8b71e0aa', 'pod-b']] as const) {
      inNs(ns, ['ip', 'link', 'add', veth, 'type', 'veth', 'peer', 'name', peer])
      inNs(ns, ['ip', 'link', 'set', veth, 'master', 'cni0'])
      inNs(ns, ['ip', 'link', 'set', veth, 'type', 'bridge_slave', 'hairpin', c.hairpin ? 'on' : 'off'])
      inNs(ns, ['ip', 'link', 'set', veth, 'up'])
    }
    inNs(ns, ['ip', 'link', 'set', 'cni0', 'up'])
    inNs(ns, ['iptables-restore'], kubeProxyRules)
    if (c.nodeLocalDns) {
      inNs(ns, ['ip', 'link', 'add', 'nodelocaldns', 'type', 'bridge'])
      for (const ip of LOCAL_IPS) inNs(ns, ['ip', 'addr', 'add', `${ip}/32`, 'dev', 'nodelocaldns'])
      for (const ip of LOCAL_IPS) for (const r of nodeCacheRules(ip, c.nodeLocalDns.notrack)) inNs(ns, ['iptables', '-w', ...r])
    }
    const n = structuredClone(base.nodes[0]!)
    n.artifacts = {
      ...n.artifacts,
      'ip-link': captureInNs(ns, 'ip-link'),
      'ip-addr': captureInNs(ns, 'ip-addr'),
      'iptables-save': captureInNs(ns, 'iptables-save'),
    }
    if (c.modulesAbsent) n.artifacts['modules-available'] = {id: 'modules-available', source: 'sh -c <modules-available script>', exitCode: 0, content: modulesAvailable(c.modulesAbsent)}
    return n
  })
}

/** The upstream nodelocaldns.yaml DaemonSet, trimmed to what the checks read (name, labels, the node-cache args). */
function nodeLocalDnsDaemonSet(): DaemonSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: {name: 'node-local-dns', namespace: 'kube-system', labels: {'k8s-app': 'node-local-dns'}},
    spec: {
      selector: {matchLabels: {'k8s-app': 'node-local-dns'}},
      template: {spec: {containers: [{name: 'node-cache', image: 'registry.k8s.io/dns/k8s-dns-node-cache:1.26.4', args: ['-localip', LOCAL_IPS.join(','), '-conf', '/etc/Corefile', '-upstreamsvc', 'kube-dns-upstream']}]}},
    },
  } as DaemonSet
}

function clusterFor(c: Case): ClusterSnapshot {
  const cluster = structuredClone(base.cluster)
  if (c.nodeLocalDns) cluster.daemonSets = [...cluster.daemonSets, nodeLocalDnsDaemonSet()]
  if (c.sctpService) {
    cluster.services = [
      ...cluster.services,
      {apiVersion: 'v1', kind: 'Service', metadata: {name: 'sctp-echo', namespace: 'default'}, spec: {type: 'ClusterIP', clusterIP: '172.30.7.1', clusterIPs: ['172.30.7.1'], ports: [{name: 'echo', protocol: 'SCTP', port: 9999, targetPort: 9999}], selector: {app: 'sctp-echo'}}} as Service,
    ]
  }
  if (c.kubeProxyConfig) for (const cm of cluster.configMaps) if (cm.data?.['config.conf'] !== undefined) cm.data['config.conf'] = cm.data['config.conf'].replace(/^mode: .*\n/m, '') + c.kubeProxyConfig
  return cluster
}

for (const c of CASES) {
  const path = join(ROOT, c.dir)
  const node = capture(c)
  rmSync(path, {recursive: true, force: true})
  await writeBundle(path, {manifest: {...base.manifest, context: `fixture-node-datapath-${c.dir}`}, cluster: clusterFor(c), nodes: [node]})
  console.log(`wrote ${path}`)
}
const cases = {
  'NODE-020': {fire: 'hairpin-off', quiet: 'bridge-ok', node: 'node-a'},
  'NODE-021': {fire: 'nodelocaldns-notrack-missing', quiet: 'bridge-ok', node: 'node-a'},
  'NODE-022': {fire: 'modules-nft-absent', quiet: 'bridge-ok', node: 'node-a'},
}
mkdirSync(ROOT, {recursive: true})
writeFileSync(join(ROOT, 'cases.json'), JSON.stringify(cases, null, 2) + '\n')
