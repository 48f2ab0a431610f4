// What each collection-plan item needs from the node when it runs inside the in-cluster agent's container, as
// data: host network namespace, host PID namespace, capabilities, read-only host mounts. The agent's pod gets the
// union over the items of the selected areas and nothing more. Items a container cannot run without full
// privileges are listed as unavailable with the reason, and the agent records that reason as the artifact's error.
import {KUBELET_CONFIG_CANDIDATES, LAYOUT_LISTED_DIRS, LAYOUT_PATHS, type PlanItem, planFor} from '../collection/plan.js'
import {type Distribution, KNOWN_LAYOUT_HOST_PATHS, KNOWN_LAYOUTS} from '../layout/known-layouts.js'
import type {Area} from '../model/report.js'

export type Capability = 'NET_ADMIN' | 'NET_RAW'

/** A host directory or file mounted read-only at the same path, so the plan's `cat PATH` works unchanged. */
export interface HostMount {
  /** Volume name. */
  name: string
  path: string
  /** hostPath type: `File` must exist (the pod does not start otherwise); '' does no check. */
  type: '' | 'File'
  /** Why the mount is there (shown in docs and the golden manifests' review). */
  why: string
}

export interface ItemNeeds {
  hostNetwork?: boolean
  hostPID?: boolean
  capabilities?: Capability[]
  mounts?: HostMount[]
}

export type ItemPrivileges = ItemNeeds | {unavailable: string}

const MOUNT = {
  kubelet: {name: 'host-var-lib-kubelet', path: '/var/lib/kubelet', type: '', why: 'kubelet config.yaml and kubeadm-flags.env'},
  etcDefault: {name: 'host-etc-default', path: '/etc/default', type: '', why: 'kubelet flags from deb packages (/etc/default/kubelet)'},
  etcSysconfig: {name: 'host-etc-sysconfig', path: '/etc/sysconfig', type: '', why: 'kubelet flags from rpm packages (/etc/sysconfig/kubelet)'},
  containerd: {name: 'host-etc-containerd', path: '/etc/containerd', type: '', why: 'containerd config.toml'},
  resolv: {name: 'host-etc-resolv-conf', path: '/etc/resolv.conf', type: 'File', why: "the node's resolv.conf (replaces the one the runtime would write)"},
  // The discovery script reads /proc/1/root/etc/os-release first, which a container without CAP_SYS_PTRACE cannot
  // (the kernel's ptrace access check: PID 1 holds capabilities the agent lacks), and would then read the image's own
  // /etc/os-release as the node's.
  // `File`: every known layout's OS has one; a node without it fails this pod with a per-node error, never silently.
  osRelease: {name: 'host-etc-os-release', path: '/etc/os-release', type: 'File', why: "the node's os-release (distribution and OS name in the layout), over the image's"},
} as const satisfies Record<string, HostMount>

// -------------------------------------------------------------------------------------------------------------
// Mounts derived from the layout paths: the paths come from core/layout/known-layouts.ts and the scripts' path lists
// in core/collection/plan.ts; below are only the rules that turn them into mounts (which directories are shared,
// which hold secrets, which paths are deliberately not mounted).
//
// A hostPath of type '' whose path a node lacks is created there, empty, by the container runtime (the kubelet
// checks nothing for type ''; containerd's CRI plugin does MkdirAll(path, 0755) on a missing bind-mount source,
// internal/cri/opts/spec_linux_opts.go withMounts; CRI-O's addOCIBindMounts does the same). DirectoryOrCreate is
// not an option either, and `Directory` would keep the pod off every node of another layout. So each path is
// mounted through the shallowest directory that belongs to the layout (one level below a shared directory such as
// /etc or /var/lib), and the trade-off is: on a node of another layout that directory appears, empty and root-owned
// (e.g. /home/kubernetes on an EKS node). Guarded by two rules, both tested: a directory whose creation would make
// a path the discovery takes as evidence exist is never mounted (no false layout on the next run), and neither is a
// path itself (a missing file would be replaced by a directory).

/** Directories every node shares: never mounted whole, the mount goes one level below. */
const SHARED_DIRS: ReadonlySet<string> = new Set(['/', '/etc', '/home', '/opt', '/srv', '/usr', '/usr/lib', '/usr/local', '/var', '/var/lib', '/var/log', '/run', '/var/run'])

/**
 * Directories that hold secrets beside the layout's config files: the mount goes below them. k3s/RKE2 keep the
 * server's datastore, token and CA keys under /var/lib/rancher/{k3s,rke2}/server and the kubelet's and kube-proxy's
 * client keys in .../agent; the config the agent reads is in .../agent/etc.
 */
const DESCEND_PAST: ReadonlySet<string> = new Set(['/var/lib/rancher', '/var/lib/rancher/k3s', '/var/lib/rancher/rke2', '/var/lib/rancher/k3s/agent', '/var/lib/rancher/rke2/agent'])

/** Paths the agent deliberately does not mount, with the reason (the first matching rule). */
const NOT_MOUNTED: ReadonlyArray<{match: (path: string) => boolean; why: string}> = [
  {
    match: (p) => p.endsWith('.sock'),
    why: "a container runtime socket: connect() works through a read-only mount, so mounting it would hand the agent the runtime (root on the node); the runtime is told by its process",
  },
  {match: (p) => p.startsWith('/usr/'), why: "a binary under /usr: only a File mount could carry it, and that keeps the pod off nodes without it; nodeadm's config.json is mounted instead"},
  {match: (p) => p.startsWith('/var/lib/rancher/k3s/data/'), why: "k3s's unpacked binaries: only the k3s-iptables-version item reads them, and the agent does not run it"},
  {match: (p) => p.startsWith('/etc/eks/'), why: "EKS AL2 is told by /etc/kubernetes/kubelet/kubelet-config.json (mounted) and the Node's providerID: not worth an empty /etc/eks on every other node"},
]

/** The paths whose existence the layout discovery takes as evidence (a mount must never create one). */
export const LAYOUT_EVIDENCE_PATHS: readonly string[] = [...new Set([...LAYOUT_PATHS, ...LAYOUT_LISTED_DIRS, ...KUBELET_CONFIG_CANDIDATES])]

/** `/var/lib/rancher/k3s/agent/etc` -> `host-var-lib-rancher-k3s-agent-etc` (a DNS label, as volume names must be). */
function volumeName(path: string): string {
  return `host${path.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}`.replace(/-+$/, '')
}

export interface MountPlan {
  mounts: HostMount[]
  /** Paths no mount covers, and why. */
  unmounted: Array<{path: string; why: string}>
}

/** The read-only directory mounts that cover `paths` (see the rules above), sorted by path. */
export function hostMountsFor(paths: readonly string[], purpose: string): MountPlan {
  const byAnchor = new Map<string, string[]>()
  const unmounted: MountPlan['unmounted'] = []
  for (const path of [...new Set(paths)]) {
    const rule = NOT_MOUNTED.find((r) => r.match(path))
    if (rule) {
      unmounted.push({path, why: rule.why})
      continue
    }
    const parts = path.split('/').filter((x) => x !== '')
    let anchor = ''
    for (let i = 1; i <= parts.length; i++) {
      const prefix = `/${parts.slice(0, i).join('/')}`
      if (!SHARED_DIRS.has(prefix) && !DESCEND_PAST.has(prefix)) {
        anchor = prefix
        break
      }
    }
    if (anchor === '' || anchor === path) {
      unmounted.push({path, why: 'only the path itself could be mounted, and on a node without it the runtime would create a directory in its place'})
      continue
    }
    const evidence = LAYOUT_EVIDENCE_PATHS.find((e) => e === anchor || anchor.startsWith(`${e}/`))
    if (evidence) {
      unmounted.push({path, why: `mounting ${anchor} would create it on nodes without it, and ${evidence} is evidence of a layout`})
      continue
    }
    byAnchor.set(anchor, [...(byAnchor.get(anchor) ?? []), path])
  }
  const mounts = [...byAnchor.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([path, covered]): HostMount => ({name: volumeName(path), path, type: '', why: `${purpose}: ${covered.join(', ')}`}))
  return {mounts, unmounted: unmounted.sort((a, b) => a.path.localeCompare(b.path))}
}

/** The default --config-dir of the kubelet (the kubelet-dropins script's fallback). */
const KUBELET_DEFAULT_CONFIG_DIR = '/etc/kubernetes/kubelet.conf.d'

/** The layout discovery script: every path it tests or lists, plus every path the known-layouts table names. */
export const LAYOUT_MOUNTS: MountPlan = hostMountsFor([...LAYOUT_EVIDENCE_PATHS, ...KNOWN_LAYOUT_HOST_PATHS], 'layout discovery')
/** The kubelet-config script: the running kubelet's --config (any known layout's file) or the layouts' known paths. */
export const KUBELET_CONFIG_MOUNTS: MountPlan = hostMountsFor([...KUBELET_CONFIG_CANDIDATES, ...KNOWN_LAYOUTS.flatMap((l) => l.kubelet.configPaths)], 'kubelet config')
/** The kubelet-dropins script: the running kubelet's --config-dir (any known layout's) or the kubelet's default. */
export const KUBELET_DROPIN_MOUNTS: MountPlan = hostMountsFor([KUBELET_DEFAULT_CONFIG_DIR, ...KNOWN_LAYOUTS.flatMap((l) => l.kubelet.configDirs)], 'kubelet drop-ins')

// -------------------------------------------------------------------------------------------------------------
// Which layouts have each mount's directory. A run mounts a directory only when a target node's layout has it
// (core/agent/layout-scope.ts resolves each node's layout from the API before the DaemonSet is created), so the
// runtime does not create it, empty, on nodes of other layouts. The agent is one DaemonSet for every target node:
// the mounts are the union over the target nodes' layouts. A node whose layout the API does not tell (`unknown`)
// gets every layout's directories, as before, and the run says so.

/**
 * The directories only some layouts have, with those layouts. Every other mount is kept on every run: /var/lib/kubelet
 * is the kubelet's root directory on every layout (k3s's and RKE2's kubelets included); /etc/kubernetes (kubeadm's
 * kubelet.conf and manifests, EKS's, Bottlerocket's and Talos's kubelet config, GKE's manifests, the kubelet's default
 * --config-dir), /etc/default (deb packages' kubelet flags, AKS's kubelet config), /etc/containerd and /etc/cni are
 * kubeadm's or the packages' paths that most nodes have, whatever built them; /etc/os-release and /etc/resolv.conf
 * are `File` mounts (never created). NOTE: that k3s and RKE2 nodes have no /etc/kubernetes or /etc/containerd
 * unless something else made them is unverified, so those stay on every run (the docs name them).
 */
export const LAYOUT_SCOPED_MOUNTS: Readonly<Record<string, readonly Distribution[]>> = {
  '/etc/rancher': ['k3s', 'rke2'],
  '/home/kubernetes': ['gke-cos'],
  '/var/lib/rancher/k3s/agent/etc': ['k3s'],
  '/var/lib/rancher/rke2/agent/etc': ['rke2'],
}

/** Whether a run for nodes of these layouts mounts `path` (every layout's directories when a layout is unknown). */
export function mountedFor(path: string, layouts: readonly Distribution[] | undefined): boolean {
  const only = LAYOUT_SCOPED_MOUNTS[path]
  if (only === undefined || layouts === undefined || layouts.includes('unknown')) return true
  return only.some((l) => layouts.includes(l))
}

/** Netfilter and IPVS state: the host's network namespace, and NET_ADMIN (+ NET_RAW for the xtables getsockopt). */
const NETFILTER: ItemNeeds = {hostNetwork: true, capabilities: ['NET_ADMIN', 'NET_RAW']}
const NETLINK_ADMIN: ItemNeeds = {hostNetwork: true, capabilities: ['NET_ADMIN']}
const HOST_NET: ItemNeeds = {hostNetwork: true}

/**
 * Per plan item id. NOTE: /proc/modules and `uname -r` are not namespaced, so they need nothing; `sysctl net.*`
 * reads the network namespace's values, so it needs the host's.
 */
export const AGENT_PRIVILEGES: Readonly<Record<string, ItemPrivileges>> = {
  // Processes and their command lines (host PID namespace), links (/sys/class/net of the host's network namespace),
  // os-release and the known paths (LAYOUT_MOUNTS.unmounted lists the few it cannot see, e.g. runtime sockets).
  layout: {hostPID: true, hostNetwork: true, mounts: [MOUNT.osRelease, ...LAYOUT_MOUNTS.mounts]},
  uname: {},
  'iptables-version': {},
  'iptables-save': NETFILTER,
  'ip6tables-save': NETFILTER,
  'iptables-legacy-save': NETFILTER,
  'iptables-nft-save': NETFILTER,
  ipvsadm: NETLINK_ADMIN,
  ipset: NETLINK_ADMIN,
  'nft-ruleset': NETLINK_ADMIN,
  'nft-version': {},
  'ip-route': HOST_NET,
  'ip6-route': HOST_NET,
  'ip-addr': HOST_NET,
  'ip-link': HOST_NET,
  // The running kubelet's --config from /proc/<pid>/cmdline (host PID namespace), the file under any known layout.
  'kubelet-config': {hostPID: true, mounts: KUBELET_CONFIG_MOUNTS.mounts},
  'kubelet-unit': {unavailable: "systemctl asks the host's systemd, which the agent container cannot reach without full privileges; use --via ssh or --via pod for the kubelet unit"},
  'kubelet-systemd-state': {unavailable: "systemctl asks the host's systemd, which the agent container cannot reach without full privileges; use --via ssh or --via pod for the kubelet unit state"},
  'kubeadm-flags': {mounts: [MOUNT.kubelet]},
  'kubelet-default-env': {mounts: [MOUNT.etcDefault]},
  'kubelet-sysconfig-env': {mounts: [MOUNT.etcSysconfig]},
  'kubelet-cmdline': {hostPID: true},
  'resolv-conf': {mounts: [MOUNT.resolv]},
  'containerd-config': {mounts: [MOUNT.containerd]},
  'proxy-mode': HOST_NET,
  'kube-proxy-metrics': HOST_NET,
  'kube-proxy-healthz': HOST_NET,
  'kube-proxy-configz': HOST_NET,
  modules: {},
  'modules-available': {unavailable: 'the module check reads /lib/modules of the host, which the agent does not mount; /proc/modules (the modules artifact) is still read'},
  sysctls: HOST_NET,
  nfacct: NETLINK_ADMIN,
  'conntrack-udp': NETLINK_ADMIN,
  'conntrack-stats': NETLINK_ADMIN,
  'conntrack-stats-end': NETLINK_ADMIN,
  'bird-protocols': {unavailable: "Calico's BIRD client (birdcl) is not in the agent image; use --via ssh or --via pod for BGP peer state"},
  'bird6-protocols': {unavailable: "Calico's BIRD client (birdcl) is not in the agent image; use --via ssh or --via pod for BGP peer state"},
  'calico-node-status': {unavailable: 'calicoctl is not in the agent image; use --via ssh or --via pod for calicoctl node status'},
  'kubelet-dropins': {hostPID: true, mounts: KUBELET_DROPIN_MOUNTS.mounts},
  // NOTE: version fallbacks only (a static pod has a mirror pod in the API, which names its image). GKE's and
  // kubeadm-style manifests are under the mounted /etc/kubernetes, RKE2's are not (LAYOUT_MOUNTS.unmounted): reading
  // some layouts' and silently missing RKE2's is worse than the mirror pod every layout has.
  'kube-proxy-manifest': {unavailable: "not read by the agent (RKE2's pod-manifests directory cannot be mounted without creating it on other nodes); kube-proxy's version comes from its (mirror) pod; use --via ssh or --via pod to read the manifest"},
  swaps: {},
  // NOTE: /etc/rancher is mounted (layout discovery), but config.yaml holds the cluster's token and the agent's
  // document reaches the pod log unredacted (only bundles are redacted): the file itself is not read here.
  'rancher-config': {unavailable: "the k3s/RKE2 config.yaml holds the cluster's token, and the agent's result travels through its pod log unredacted; use --via ssh or --via pod to read config.yaml (kubelet-arg, kube-proxy-arg)"},
  'k3s-iptables-version': {unavailable: "k3s's data dir is not mounted into the agent; use --via ssh or --via pod to read the backend of k3s's own iptables"},
  'kube-proxy-distribution': {unavailable: 'the k3s/rke2 binary is not in the agent image; use --via ssh or --via pod to read the k3s/RKE2 version'},
  // Netlink dumps of the host's namespace: no capability needed (iproute2 in the agent image ships `bridge`).
  'ip-neigh': HOST_NET,
  'bridge-fdb': HOST_NET,
  'flannel-subnet-env': {unavailable: 'the agent does not mount /run/flannel; use --via ssh or --via pod to read FLANNEL_MTU'},
}

/** The union of what the agent's pod needs. Sorted, so generated manifests are stable. */
export interface AgentPrivileges {
  hostNetwork: boolean
  hostPID: boolean
  capabilities: Capability[]
  mounts: HostMount[]
}

export interface AgentPlan {
  /** What the agent runs. */
  plan: PlanItem[]
  /** What it does not run, and why (recorded as artifact errors). */
  skipped: Array<{item: PlanItem; reason: string}>
  privileges: AgentPrivileges
}

/**
 * The plan for the selected areas (all when none), split into what the agent can run and what it cannot, with the
 * privileges the runnable part needs. A plan item without an entry in AGENT_PRIVILEGES is skipped (fail closed:
 * no privilege is granted that nobody declared). `layouts`: the target nodes' layouts; the directories of other layouts
 * are not mounted (LAYOUT_SCOPED_MOUNTS); absent, or with `unknown` among them, every layout's are.
 */
export function agentPlan(areas?: readonly Area[], layouts?: readonly Distribution[]): AgentPlan {
  const plan: PlanItem[] = []
  const skipped: AgentPlan['skipped'] = []
  const caps = new Set<Capability>()
  const mounts = new Map<string, HostMount>()
  let hostNetwork = false
  let hostPID = false
  for (const item of planFor(areas)) {
    const p = AGENT_PRIVILEGES[item.id]
    if (p === undefined) {
      skipped.push({item, reason: `the in-cluster agent declares no privileges for "${item.id}" yet; use --via ssh or --via pod for it`})
      continue
    }
    if ('unavailable' in p) {
      skipped.push({item, reason: `not collected by the in-cluster agent: ${p.unavailable}`})
      continue
    }
    plan.push(item)
    hostNetwork ||= p.hostNetwork === true
    hostPID ||= p.hostPID === true
    for (const c of p.capabilities ?? []) caps.add(c)
    for (const m of p.mounts ?? []) if (mountedFor(m.path, layouts)) mounts.set(m.path, m)
  }
  return {
    plan,
    skipped,
    privileges: {
      hostNetwork,
      hostPID,
      capabilities: [...caps].sort(),
      mounts: [...mounts.values()].sort((a, b) => a.path.localeCompare(b.path)),
    },
  }
}
