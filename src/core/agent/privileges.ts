// What each collection-plan item needs from the node when it runs inside the in-cluster agent's container, as
// data: host network namespace, host PID namespace, capabilities, read-only host mounts. The agent's pod gets the
// union over the items of the selected areas and nothing more. Items a container cannot run without full
// privileges are listed as unavailable with the reason, and the agent records that reason as the artifact's error.
import {type PlanItem, planFor} from '../collection/plan.js'
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
  kubernetes: {name: 'host-etc-kubernetes', path: '/etc/kubernetes', type: '', why: 'kubelet --config-dir drop-ins (default /etc/kubernetes/kubelet.conf.d)'},
  etcDefault: {name: 'host-etc-default', path: '/etc/default', type: '', why: 'kubelet flags from deb packages (/etc/default/kubelet)'},
  etcSysconfig: {name: 'host-etc-sysconfig', path: '/etc/sysconfig', type: '', why: 'kubelet flags from rpm packages (/etc/sysconfig/kubelet)'},
  containerd: {name: 'host-etc-containerd', path: '/etc/containerd', type: '', why: 'containerd config.toml'},
  resolv: {name: 'host-etc-resolv-conf', path: '/etc/resolv.conf', type: 'File', why: "the node's resolv.conf (replaces the one the runtime would write)"},
} as const satisfies Record<string, HostMount>

/** Netfilter and IPVS state: the host's network namespace, and NET_ADMIN (+ NET_RAW for the xtables getsockopt). */
const NETFILTER: ItemNeeds = {hostNetwork: true, capabilities: ['NET_ADMIN', 'NET_RAW']}
const NETLINK_ADMIN: ItemNeeds = {hostNetwork: true, capabilities: ['NET_ADMIN']}
const HOST_NET: ItemNeeds = {hostNetwork: true}

/**
 * Per plan item id. NOTE: /proc/modules and `uname -r` are not namespaced, so they need nothing; `sysctl net.*`
 * reads the network namespace's values, so it needs the host's.
 */
export const AGENT_PRIVILEGES: Readonly<Record<string, ItemPrivileges>> = {
  layout: {unavailable: 'layout discovery reads host paths the agent does not mount (/etc/rancher, /var/lib/rancher, /etc/cni/net.d, /home/kubernetes); the layout is resolved from the API alone'},
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
  'kubelet-config': {mounts: [MOUNT.kubelet]},
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
  'kubelet-dropins': {hostPID: true, mounts: [MOUNT.kubernetes]},
  // NOTE: version fallbacks only (a static pod has a mirror pod in the API, which names its image); not worth a host
  // mount or the host PID namespace in the agent, whose --only iptables|ipvs|nftables pods have neither.
  'kube-proxy-manifest': {unavailable: 'static pod manifests are not mounted into the agent; kube-proxy\'s version comes from its (mirror) pod; use --via ssh or --via pod to read the manifest'},
  swaps: {},
  'rancher-config': {unavailable: '/etc/rancher is not mounted into the agent; use --via ssh or --via pod to read the k3s/RKE2 config.yaml'},
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
 * no privilege is granted that nobody declared).
 */
export function agentPlan(areas?: readonly Area[]): AgentPlan {
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
    for (const m of p.mounts ?? []) mounts.set(m.path, m)
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
