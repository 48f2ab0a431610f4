// The node layouts node-doctor knows, as data: where each distribution keeps the kubelet's configuration and its
// flags, where kube-proxy runs and is configured, and the defaults that differ from kubeadm's. Sources are noted per
// row (/work/shared/reference/layouts.md collects them); "unverified" marks what no primary source confirmed.

export type Distribution = 'kubeadm' | 'k3s' | 'rke2' | 'eks-al2' | 'eks-al2023' | 'gke-cos' | 'aks' | 'bottlerocket' | 'talos' | 'unknown'

/** Where kube-proxy runs on a node of this layout, and where its intended configuration lives. */
export type KubeProxyPlacement =
  | {kind: 'daemonset'; daemonSet: string; configMap: {name: string; key: string}}
  | {kind: 'static-pod'; manifest: string}
  | {kind: 'embedded'; in: 'k3s'; flags: string}
  | {kind: 'none'}
  | {kind: 'unknown'}

export interface KnownLayout {
  distribution: Distribution
  /** As printed: `k3s`, `EKS (AL2023)`. */
  title: string
  kubelet: {
    /** Config files, in the order the kubelet reads them. */
    configPaths: string[]
    /** --config-dir drop-in directories. */
    configDirs: string[]
    /** Where its flags come from. */
    flagsSource: string
  }
  kubeProxy: KubeProxyPlacement
  /** The kubelet's clusterDNS when the distribution sets a default of its own. */
  clusterDNS?: string
  containerd?: {config: string; socket: string}
  /** Where the row's facts come from. */
  sources: string[]
}

const KUBEADM_KUBE_PROXY: KubeProxyPlacement = {kind: 'daemonset', daemonSet: 'kube-system/kube-proxy', configMap: {name: 'kube-proxy', key: 'config.conf'}}
const EKS_KUBE_PROXY: KubeProxyPlacement = {kind: 'daemonset', daemonSet: 'kube-system/kube-proxy', configMap: {name: 'kube-proxy-config', key: 'config'}}
const CONTAINERD = {config: '/etc/containerd/config.toml', socket: '/run/containerd/containerd.sock'}

export const KNOWN_LAYOUTS: readonly KnownLayout[] = [
  {
    distribution: 'kubeadm',
    title: 'kubeadm',
    kubelet: {configPaths: ['/var/lib/kubelet/config.yaml'], configDirs: [], flagsSource: '/var/lib/kubelet/kubeadm-flags.env and the 10-kubeadm.conf drop-in'},
    kubeProxy: KUBEADM_KUBE_PROXY,
    containerd: CONTAINERD,
    sources: ['kubeadm: kubelet config.yaml and kubeadm-flags.env; ConfigMap kube-system/kube-proxy key config.conf'],
  },
  {
    distribution: 'k3s',
    title: 'k3s',
    kubelet: {
      configPaths: [],
      configDirs: ['/var/lib/rancher/k3s/agent/etc/kubelet.conf.d'],
      flagsSource: "the k3s process's command line and /etc/rancher/k3s/config.yaml (kubelet-arg)",
    },
    kubeProxy: {kind: 'embedded', in: 'k3s', flags: 'kube-proxy-arg in /etc/rancher/k3s/config.yaml or the k3s command line'},
    clusterDNS: '10.43.0.10',
    containerd: {config: '/var/lib/rancher/k3s/agent/etc/containerd/config.toml', socket: '/run/k3s/containerd/containerd.sock'},
    sources: [
      'k3s-io/k3s pkg/daemons/control: defaults cluster-dns 10.43.0.10, cluster-cidr 10.42.0.0/16, service CIDR 10.43.0.0/16',
      'k3s-io/k3s pkg/daemons/agent: the kubelet gets --config-dir=agent/etc/kubelet.conf.d (00-k3s-defaults.conf) and --read-only-port=0; kube-proxy gets --proxy-mode=iptables and --cluster-cidr',
      'the data dir can be moved (kube-bench#1973)',
    ],
  },
  {
    distribution: 'rke2',
    title: 'RKE2',
    kubelet: {configPaths: [], configDirs: ['/var/lib/rancher/rke2/agent/etc/kubelet.conf.d'], flagsSource: 'the kubelet command line rke2 builds from /etc/rancher/rke2/config.yaml (kubelet-arg)'},
    kubeProxy: {kind: 'static-pod', manifest: '/var/lib/rancher/rke2/agent/pod-manifests/kube-proxy.yaml'},
    clusterDNS: '10.43.0.10',
    containerd: {config: '/var/lib/rancher/rke2/agent/etc/containerd/config.toml', socket: '/run/k3s/containerd/containerd.sock'},
    sources: [
      "rancher/rke2 pkg/podexecutor/staticpod.go: the kubelet is a process of its own started with --volume-plugin-dir=/var/lib/kubelet/volumeplugins --file-check-frequency=5s --sync-frequency=30s, then k3s's agent arguments (RKE2 builds k3s with Program=rke2): --config-dir=/var/lib/rancher/rke2/agent/etc/kubelet.conf.d, --read-only-port=0 (k3s-io/k3s pkg/daemons/agent/agent_linux.go kubeletArgsAndConfig)",
      'k3s-io/k3s pkg/daemons/agent writeKubeletConfig: clusterDNS (cluster-dns, default 10.43.0.10; docs.rke2.io server config) goes into 00-rke2-defaults.conf in that directory',
      'rancher/rke2 pkg/podexecutor/staticpod.go: the kube-proxy static pod manifest is removed when rke2 starts and written again from the kube-proxy arguments (kube-proxy-arg over k3s\'s --proxy-mode=iptables); rancher/rke2#751, #251 (containerd socket)',
      'unverified: that every RKE2 release before the stored sources did the same (older ones passed the kubelet settings as flags)',
    ],
  },
  {
    distribution: 'eks-al2',
    title: 'EKS (AL2)',
    kubelet: {configPaths: ['/etc/kubernetes/kubelet/kubelet-config.json'], configDirs: [], flagsSource: 'the kubelet systemd unit written by /etc/eks/bootstrap.sh'},
    kubeProxy: EKS_KUBE_PROXY,
    containerd: CONTAINERD,
    sources: ['amazon-eks-ami (AL2 bootstrap.sh); ConfigMap kube-system/kube-proxy-config key config'],
  },
  {
    distribution: 'eks-al2023',
    title: 'EKS (AL2023)',
    kubelet: {configPaths: ['/etc/kubernetes/kubelet/config.json'], configDirs: ['/etc/kubernetes/kubelet/config.json.d'], flagsSource: 'nodeadm (the kubelet systemd unit it writes)'},
    kubeProxy: EKS_KUBE_PROXY,
    containerd: CONTAINERD,
    sources: ['kube-bench#1740, amazon-eks-ami#1988 (nodeadm config.json + config.json.d)'],
  },
  {
    distribution: 'gke-cos',
    title: 'GKE (COS)',
    kubelet: {configPaths: ['/home/kubernetes/kubelet-config.yaml'], configDirs: [], flagsSource: 'the kubelet systemd unit (binaries in /home/kubernetes/bin)'},
    kubeProxy: {kind: 'static-pod', manifest: '/etc/kubernetes/manifests/kube-proxy.manifest'},
    containerd: CONTAINERD,
    sources: ['kube-bench cfg (GKE paths); GKE Dataplane V2 runs no kube-proxy'],
  },
  {
    distribution: 'aks',
    title: 'AKS',
    kubelet: {configPaths: ['/etc/default/kubeletconfig.json'], configDirs: [], flagsSource: '/etc/default/kubelet'},
    kubeProxy: KUBEADM_KUBE_PROXY,
    containerd: CONTAINERD,
    sources: ['Azure/AgentBaker (kubelet flags and kubeletconfig.json); the kube-proxy ConfigMap name on AKS is unverified'],
  },
  {
    distribution: 'bottlerocket',
    title: 'Bottlerocket',
    kubelet: {configPaths: ['/etc/kubernetes/kubelet/config'], configDirs: [], flagsSource: 'generated from apiclient settings (no host shell)'},
    kubeProxy: EKS_KUBE_PROXY,
    sources: ['kube-bench#887, bottlerocket-os/bottlerocket#4011; on EKS the kube-proxy ConfigMap is kube-proxy-config'],
  },
  {
    distribution: 'talos',
    title: 'Talos',
    kubelet: {configPaths: ['/etc/kubernetes/kubelet.yaml'], configDirs: [], flagsSource: 'the Talos machine config (no host shell)'},
    kubeProxy: KUBEADM_KUBE_PROXY,
    sources: ['kube-bench cfg lists /etc/kubernetes/kubelet.yaml (unverified); kube-proxy DaemonSet unless Cilium replaces it'],
  },
  {
    distribution: 'unknown',
    title: 'unknown layout',
    kubelet: {configPaths: [], configDirs: [], flagsSource: 'unknown'},
    kubeProxy: {kind: 'unknown'},
    sources: [],
  },
]

export function knownLayout(d: Distribution): KnownLayout {
  return KNOWN_LAYOUTS.find((l) => l.distribution === d)!
}

/**
 * Every host path the table names (kubelet config files and drop-in directories, static pod manifests, containerd
 * config and socket), de-duplicated in table order. The in-cluster agent derives its read-only mounts from it
 * (core/agent/privileges.ts), so a new row is mounted without a second list.
 */
export const KNOWN_LAYOUT_HOST_PATHS: readonly string[] = [
  ...new Set(
    KNOWN_LAYOUTS.flatMap((l) => [
      ...l.kubelet.configPaths,
      ...l.kubelet.configDirs,
      ...(l.kubeProxy.kind === 'static-pod' ? [l.kubeProxy.manifest] : []),
      ...(l.containerd ? [l.containerd.config, l.containerd.socket] : []),
    ]),
  ),
]
