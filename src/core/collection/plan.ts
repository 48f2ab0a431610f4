// What to collect from a node, as data. Each item is a fixed command (no interpolation of API data) or a file.
import {type Area, AREAS} from '../model/report.js'
import {shellJoin} from './shell.js'

export type ProxyMode = 'iptables' | 'ipvs' | 'nftables'

export interface PlanItem {
  /** Artifact id: the key in NodeSnapshot.artifacts and the file name in bundles. */
  id: string
  description: string
  /** argv of the command to run; for files, `cat PATH`. */
  argv: string[]
  /** Areas that use it; collection for `--only` runs just what those areas need. */
  areas: Area[]
  /** Only worth collecting in these proxy modes (undefined = always). */
  modes?: ProxyMode[]
  /** The tool the command needs, for "not installed" errors. */
  tool?: string
  /** Whether a failure is a collection error (true) or just an absent optional input (false). */
  required: boolean
}

const item = (id: string, description: string, argv: string[], areas: Area[], extra: Partial<PlanItem> = {}): PlanItem => ({
  id,
  description,
  argv,
  areas,
  required: false,
  tool: argv[0] === 'cat' ? undefined : argv[0],
  ...extra,
})

const KUBE_PROXY_METRICS = 'http://127.0.0.1:10249'

/** Artifact ids of the kube-proxy version sources on the node (read by core/proxier/kube-proxy-version.ts). */
export const KUBE_PROXY_MANIFEST_ARTIFACT = 'kube-proxy-manifest'
export const KUBE_PROXY_DISTRIBUTION_ARTIFACT = 'kube-proxy-distribution'

/** Static pod manifests of kube-proxy: GKE, kubeadm-style, RKE2. The first that exists is printed. */
const KUBE_PROXY_MANIFESTS = ['/etc/kubernetes/manifests/kube-proxy.manifest', '/etc/kubernetes/manifests/kube-proxy.yaml', '/var/lib/rancher/rke2/agent/pod-manifests/kube-proxy.yaml']

/** `show protocols` on a BIRD control socket with birdcl (calico-node's client) or birdc (distribution packages). */
function birdShowProtocols(socket: string): string[] {
  return ['sh', '-c', `for c in birdcl birdc; do command -v "$c" >/dev/null 2>&1 && exec "$c" -s ${socket} show protocols; done; echo 'birdcl: command not found' >&2; exit 127`]
}

/**
 * Paths whose existence tells the distribution, where the kubelet's config lives and where kube-proxy runs
 * (docs/../reference: kubeadm, k3s, RKE2, EKS AL2/AL2023, GKE COS, AKS, Bottlerocket, Talos). Fixed list.
 */
export const LAYOUT_PATHS: readonly string[] = [
  '/var/lib/kubelet/config.yaml',
  '/var/lib/kubelet/kubeadm-flags.env',
  '/etc/kubernetes/kubelet.conf',
  '/etc/kubernetes/kubelet.yaml',
  '/etc/kubernetes/manifests',
  '/etc/kubernetes/kubelet.conf.d',
  '/etc/rancher/k3s/config.yaml',
  '/etc/rancher/k3s/config.yaml.d',
  '/var/lib/rancher/k3s/agent/etc/kubelet.conf.d',
  '/var/lib/rancher/k3s/agent/etc/containerd/config.toml',
  '/var/lib/rancher/k3s/data/current/bin/aux',
  '/etc/rancher/rke2/config.yaml',
  '/etc/rancher/rke2/config.yaml.d',
  '/var/lib/rancher/rke2/agent/pod-manifests',
  '/var/lib/rancher/rke2/agent/etc/kubelet.conf.d',
  '/var/lib/rancher/rke2/agent/etc/containerd/config.toml',
  '/etc/kubernetes/kubelet/kubelet-config.json',
  '/etc/kubernetes/kubelet/config.json',
  '/etc/kubernetes/kubelet/config.json.d',
  '/etc/eks/bootstrap.sh',
  '/usr/bin/nodeadm',
  '/home/kubernetes/kubelet-config.yaml',
  '/home/kubernetes/bin',
  '/etc/default/kubelet',
  '/etc/default/kubeletconfig.json',
  '/etc/kubernetes/kubelet/config',
  '/etc/containerd/config.toml',
  '/run/containerd/containerd.sock',
  '/run/k3s/containerd/containerd.sock',
  '/var/run/crio/crio.sock',
  '/var/run/cri-dockerd.sock',
  '/etc/cni/net.d',
  '/var/lib/rancher/k3s/agent/etc/cni/net.d',
]

/** Directories whose entries are listed: static pod manifests, kubelet drop-ins, CNI configs. */
export const LAYOUT_LISTED_DIRS: readonly string[] = [
  '/etc/kubernetes/manifests',
  '/var/lib/rancher/rke2/agent/pod-manifests',
  '/etc/kubernetes/kubelet.conf.d',
  '/var/lib/rancher/k3s/agent/etc/kubelet.conf.d',
  '/var/lib/rancher/rke2/agent/etc/kubelet.conf.d',
  '/etc/kubernetes/kubelet/config.json.d',
]

/** Processes (by /proc/PID/comm) whose command lines tell who runs the kubelet, kube-proxy, the runtime and the CNI. */
export const LAYOUT_PROCESS_NAMES: readonly string[] = [
  'kubelet', 'kube-proxy', 'k3s', 'k3s-server', 'k3s-agent', 'rke2', 'hyperkube', 'containerd', 'crio', 'dockerd',
  'cilium-agent', 'calico-node', 'flanneld', 'kube-router', 'ovnkube', 'antrea-agent', 'aws-k8s-agent',
]

/** Links that name the CNI or the Services dataplane; `*` entries are counted by prefix instead of listed. */
export const LAYOUT_LINKS: readonly string[] = [
  'tunl0', 'vxlan.calico', 'vxlan-v6.calico', 'wireguard.cali', 'flannel.1', 'flannel-wg', 'cni0', 'cilium_host', 'cilium_net',
  'cilium_vxlan', 'cilium_geneve', 'kube-ipvs0', 'ovn-k8s-mp0', 'br-int', 'kube-bridge', 'kube-dummy-if', 'antrea-gw0',
  'weave', 'eni*', 'azv*', 'cali*', 'lxc*', 'genev_sys_*', 'gke*',
]

/**
 * The `layout` discovery script: fixed text, POSIX sh, read-only. Prints `key=value` lines (parsed by
 * core/parse/layout-discovery.ts): os-release, the processes above with their command lines, which well-known paths
 * exist, the entries of the listed directories, the CNI config files and the first one's type, the links above.
 */
export function layoutDiscoveryScript(): string {
  const q = (xs: readonly string[]) => xs.join(' ')
  const exact = LAYOUT_LINKS.filter((l) => !l.endsWith('*'))
  const prefixes = LAYOUT_LINKS.filter((l) => l.endsWith('*')).map((l) => l.slice(0, -1))
  return [
    'echo format=node-doctor-layout/1',
    // The host's os-release: through PID 1's root when readable (a debug pod sharing the host's PID namespace).
    'for f in /proc/1/root/etc/os-release /etc/os-release /usr/lib/os-release; do [ -r "$f" ] || continue; echo "os-release=$f"; ' +
      'sed -n -e "s/^ID=/os-id=/p" -e "s/^VERSION_ID=/os-version-id=/p" -e "s/^PRETTY_NAME=/os-pretty-name=/p" "$f" | tr -d "\\"\'"; break; done',
    `for c in $(grep -l -x -E '${LAYOUT_PROCESS_NAMES.join('|')}' /proc/[0-9]*/comm 2>/dev/null); do d=\${c%/comm}; ` +
      'n=$(cat "$c" 2>/dev/null) || continue; a=$(tr "\\000\\n" "  " <"$d/cmdline" 2>/dev/null) || continue; echo "process=${d#/proc/} $n $a"; done',
    `for p in ${q(LAYOUT_PATHS)}; do [ -e "$p" ] && echo "path=$p"; done`,
    `for d in ${q(LAYOUT_LISTED_DIRS)}; do [ -d "$d" ] || continue; for f in "$d"/*; do [ -e "$f" ] && echo "file=$f"; done; done`,
    // The CNI config the runtime loads is the lexically first *.conflist/*.conf/*.json (libcni's order).
    'first=; for d in /etc/cni/net.d /var/lib/rancher/k3s/agent/etc/cni/net.d; do [ -d "$d" ] || continue; for f in $(LC_ALL=C ls "$d"); do ' +
      'echo "cni-file=$d/$f"; case "$f" in *.conflist|*.conf|*.json) [ -n "$first" ] || first=$d/$f;; esac; done; done; ' +
      'if [ -n "$first" ]; then echo "cni-first=$first"; ' +
      'sed -n "s/.*\\"type\\"[[:space:]]*:[[:space:]]*\\"\\([^\\"]*\\)\\".*/cni-first-type=\\1/p" "$first" | head -n 1; fi',
    `for l in /sys/class/net/*; do n=\${l##*/}; case "$n" in ${exact.join('|')}) echo "link=$n";; ${prefixes.map((p) => `${p}*`).join('|')}) echo "link=$n";; esac; done`,
    'exit 0',
  ].join('\n')
}

/** The full plan. Order matters only for readability of bundles. */
export const COLLECTION_PLAN: readonly PlanItem[] = [
  // What runs where (distribution, kubelet, kube-proxy, runtime, CNI): read by core/layout for every area.
  item('layout', 'layout discovery: processes, well-known paths, CNI configs and links', ['sh', '-c', layoutDiscoveryScript()], [...AREAS], {tool: 'sh'}),
  item('uname', 'kernel release', ['uname', '-r'], ['proxy-mode', 'nftables', 'kubelet']),
  item('iptables-version', 'iptables version and backend', ['iptables', '--version'], ['iptables', 'proxy-mode']),
  item('iptables-save', 'IPv4 iptables rules', ['iptables-save'], ['iptables', 'proxy-mode', 'ipvs'], {required: true}),
  item('ip6tables-save', 'IPv6 iptables rules', ['ip6tables-save'], ['iptables', 'ipvs']),
  item('iptables-legacy-save', 'rules in the legacy backend', ['iptables-legacy-save'], ['iptables', 'proxy-mode']),
  item('iptables-nft-save', 'rules in the nf_tables backend', ['iptables-nft-save'], ['iptables', 'proxy-mode']),
  item('ipvsadm', 'IPVS virtual and real servers', ['ipvsadm', '-Sn'], ['ipvs', 'proxy-mode']),
  item('ipset', 'ipsets (IPVS mode)', ['ipset', 'save'], ['ipvs']),
  item('nft-ruleset', 'nftables ruleset', ['nft', 'list', 'ruleset'], ['nftables', 'proxy-mode']),
  item('nft-version', 'nft version', ['nft', '--version'], ['nftables', 'proxy-mode']),
  item('ip-route', 'IPv4 routes (all tables)', ['ip', '-d', 'route', 'show', 'table', 'all'], ['routes']),
  item('ip6-route', 'IPv6 routes', ['ip', '-6', 'route', 'show'], ['routes']),
  item('ip-addr', 'interface addresses', ['ip', '-j', 'addr', 'show'], ['iptables', 'ipvs', 'nftables', 'routes', 'proxy-mode']),
  item('ip-link', 'links with details', ['ip', '-j', '-d', 'link', 'show'], ['routes', 'ipvs']),
  item('kubelet-config', 'kubelet config file', ['cat', '/var/lib/kubelet/config.yaml'], ['kubelet', 'dns']),
  item('kubelet-unit', 'kubelet systemd unit and drop-ins', ['systemctl', 'cat', 'kubelet'], ['kubelet']),
  // Whether the unit files changed since systemd loaded them, and since when the kubelet runs (core/checks/kubelet/daemon-reload.ts).
  item('kubelet-systemd-state', 'kubelet unit state (pending daemon-reload, start times)', ['systemctl', 'show', 'kubelet', '-p', 'NeedDaemonReload,ActiveEnterTimestamp,ExecMainStartTimestamp,FragmentPath,DropInPaths'], ['kubelet']),
  item('kubeadm-flags', 'kubeadm kubelet flags', ['cat', '/var/lib/kubelet/kubeadm-flags.env'], ['kubelet']),
  item('kubelet-default-env', "the user's kubelet flags (KUBELET_EXTRA_ARGS, deb packages)", ['cat', '/etc/default/kubelet'], ['kubelet']),
  item('kubelet-sysconfig-env', "the user's kubelet flags (KUBELET_EXTRA_ARGS, rpm and pkgs.k8s.io packages)", ['cat', '/etc/sysconfig/kubelet'], ['kubelet']),
  item('kubelet-cmdline', 'running kubelet command line', ['sh', '-c', "tr '\\0' ' ' </proc/$(pgrep -o -x kubelet)/cmdline"], ['kubelet']),
  item('resolv-conf', 'the node\'s resolv.conf', ['cat', '/etc/resolv.conf'], ['kubelet', 'dns']),
  item('containerd-config', 'containerd config', ['cat', '/etc/containerd/config.toml'], ['kubelet']),
  item('proxy-mode', "kube-proxy's running mode", ['curl', '-sS', '--max-time', '5', `${KUBE_PROXY_METRICS}/proxyMode`], ['proxy-mode']),
  // Also read by the proxier areas: its kubernetes_build_info names the kube-proxy version that runs.
  item('kube-proxy-metrics', 'kube-proxy metrics', ['curl', '-sS', '--max-time', '5', `${KUBE_PROXY_METRICS}/metrics`], ['proxy-mode', 'iptables', 'ipvs', 'nftables']),
  // The configuration the running kube-proxy was started with (it does not reload it): the running side beside the ConfigMap.
  item('kube-proxy-configz', "kube-proxy's running configuration", ['curl', '-sS', '--max-time', '5', `${KUBE_PROXY_METRICS}/configz`], ['proxy-mode', 'iptables', 'ipvs', 'nftables']),
  item('kube-proxy-healthz', 'kube-proxy health', ['curl', '-sS', '--max-time', '5', 'http://127.0.0.1:10256/healthz'], ['proxy-mode']),
  item('modules', 'loaded kernel modules', ['cat', '/proc/modules'], ['proxy-mode', 'ipvs', 'routes']),
  item(
    'sysctls',
    'networking sysctls',
    [
      'sysctl',
      'net.ipv4.ip_forward',
      'net.ipv6.conf.all.forwarding',
      'net.ipv4.conf.all.route_localnet',
      'net.bridge.bridge-nf-call-iptables',
      'net.bridge.bridge-nf-call-ip6tables',
      'net.netfilter.nf_conntrack_tcp_be_liberal',
      'net.ipv4.vs.conntrack',
    ],
    // routes: the node forwarding prerequisites (checks/node) read ip_forward and the br_netfilter keys.
    ['proxy-mode', 'iptables', 'ipvs', 'routes'],
  ),
  item('nfacct', 'nfacct counters', ['nfacct', 'list'], ['iptables']),
  item('conntrack-udp', 'UDP conntrack entries', ['conntrack', '-L', '-p', 'udp'], ['conntrack']),
  // Calico's BGP sessions (BIRD's protocol table through its control socket, which calico-node keeps on the host),
  // and calicoctl's summary as the fallback where no BIRD client is installed.
  item('bird-protocols', 'Calico BGP peers (BIRD, IPv4)', birdShowProtocols('/var/run/calico/bird.ctl'), ['routes'], {tool: 'birdcl'}),
  item('bird6-protocols', 'Calico BGP peers (BIRD, IPv6)', birdShowProtocols('/var/run/calico/bird6.ctl'), ['routes'], {tool: 'birdcl'}),
  item('calico-node-status', 'Calico node status (BGP peers)', ['calicoctl', 'node', 'status'], ['routes']),
  // The kubelet's --config-dir drop-ins (read from the running kubelet's command line, default
  // /etc/kubernetes/kubelet.conf.d), each file preceded by "# node-doctor-file: PATH" (split by the kubelet checks).
  item(
    'kubelet-dropins',
    'kubelet --config-dir drop-in files',
    [
      'sh',
      '-c',
      "d=$(tr '\\0' '\\n' </proc/$(pgrep -o -x kubelet)/cmdline 2>/dev/null | sed -n 's/^--config-dir=//p' | tail -n 1); " +
        'd=${d:-/etc/kubernetes/kubelet.conf.d}; [ -d "$d" ] || exit 0; ' +
        'find "$d" -type f -name \'*.conf\' | LC_ALL=C sort | while IFS= read -r f; do printf \'# node-doctor-file: %s\\n\' "$f"; cat "$f"; echo; done',
    ],
    ['kubelet'],
    {tool: 'sh'},
  ),
  // Where the kube-proxy version can be read on the node when its pod and metrics do not say (version resolution:
  // core/proxier/kube-proxy-version.ts). Both print nothing and exit 0 where there is nothing to read.
  item(
    KUBE_PROXY_MANIFEST_ARTIFACT,
    'kube-proxy static pod manifest (GKE, kubeadm-style, RKE2), after a "# node-doctor-file: PATH" line',
    ['sh', '-c', `for f in ${KUBE_PROXY_MANIFESTS.join(' ')}; do [ -f "$f" ] || continue; printf '# node-doctor-file: %s\\n' "$f"; cat "$f"; exit 0; done; exit 0`],
    ['proxy-mode', 'iptables', 'ipvs', 'nftables'],
    {tool: 'sh'},
  ),
  item(
    KUBE_PROXY_DISTRIBUTION_ARTIFACT,
    'k3s/RKE2 version (k3s embeds kube-proxy): `k3s --version` or `rke2 --version`, else the running binary\'s',
    [
      'sh',
      '-c',
      'for b in k3s rke2; do command -v "$b" >/dev/null 2>&1 && exec "$b" --version; done; ' +
        'p=$(pgrep -o -x k3s-server || pgrep -o -x k3s-agent || pgrep -o -x k3s || pgrep -o -x rke2); ' +
        '[ -n "$p" ] && exec /proc/$p/exe --version; exit 0',
    ],
    ['proxy-mode', 'iptables', 'ipvs', 'nftables'],
    {tool: 'sh'},
  ),
]

/** The plan items needed for the given areas (all when none given). */
export function planFor(areas?: readonly Area[]): PlanItem[] {
  if (!areas || areas.length === 0) return [...COLLECTION_PLAN]
  return COLLECTION_PLAN.filter((p) => p.areas.some((a) => areas.includes(a)))
}

/** The command line sent to the node for an item, optionally through `sudo -n`. */
export function commandLine(p: PlanItem, sudo: boolean): string {
  const cmd = shellJoin(p.argv)
  return sudo ? `sudo -n ${cmd}` : cmd
}
