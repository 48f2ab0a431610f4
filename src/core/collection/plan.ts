// What to collect from a node, as data. Each item is a fixed command (no interpolation of API data) or a file.
import {type Area, AREAS} from '../model/report.js'
import {CONNTRACK_STATS_STAMP} from '../parse/conntrack.js'
import {modulesAvailableScript} from '../parse/kernel-modules.js'
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
  // `sh -c SCRIPT NAME ARGS...`: the script runs NAME (its $0), the tool a "not installed" error names.
  tool: argv[0] === 'cat' ? undefined : argv[0] === 'sh' && argv[1] === '-c' && argv[3] !== undefined ? argv[3] : argv[0],
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
      // The first "type" in the file, also when a one-line conflist holds several (grep -o lists them in order).
      'grep -o "\\"type\\"[[:space:]]*:[[:space:]]*\\"[^\\"]*\\"" "$first" | head -n 1 | sed "s/.*\\"\\([^\\"]*\\)\\"$/cni-first-type=\\1/"; fi',
    `for l in /sys/class/net/*; do n=\${l##*/}; case "$n" in ${exact.join('|')}) echo "link=$n";; ${prefixes.map((p) => `${p}*`).join('|')}) echo "link=$n";; esac; done`,
    'exit 0',
  ].join('\n')
}

/**
 * `conntrack -S` after a stamp with the node's uptime. The plan reads it first and last (CT-003 compares the two
 * reads: the node's own collection is the interval, so no sleep is added to any node's time).
 */
const CONNTRACK_STATS_ARGV = ['sh', '-c', `read up _ </proc/uptime; echo "${CONNTRACK_STATS_STAMP} $up"; exec conntrack -S`]

/** /proc/PID/comm names of the k3s process (it renames itself by role in newer releases), as a pgrep -x pattern. */
const K3S_PROCESS_NAMES = 'k3s|k3s-server|k3s-agent'
/** The --config-dir k3s gives its embedded kubelet (k3s docs: kubelet.conf.d/00-k3s-defaults.conf, v1.32+). */
export const K3S_KUBELET_CONF_D = '/var/lib/rancher/k3s/agent/etc/kubelet.conf.d'
/** k3s's bundled iptables (k3s-io/k3s#7206); `current` links to the running release's data. */
export const K3S_AUX_IPTABLES = '/var/lib/rancher/k3s/data/current/bin/aux/iptables'

/**
 * Kubelet config files by layout, in the order tried when no running kubelet names one with --config: EKS AL2,
 * EKS AL2023 (nodeadm), GKE COS, AKS, Bottlerocket, Talos, kubeadm (core/layout/known-layouts.ts has the sources).
 */
export const KUBELET_CONFIG_CANDIDATES: readonly string[] = [
  '/etc/kubernetes/kubelet/kubelet-config.json',
  '/etc/kubernetes/kubelet/config.json',
  '/home/kubernetes/kubelet-config.yaml',
  '/etc/default/kubeletconfig.json',
  '/etc/kubernetes/kubelet/config',
  // Talos (the table's path, unverified).
  '/etc/kubernetes/kubelet.yaml',
  '/var/lib/kubelet/config.yaml',
]

/** Header line before each file a script prints (split by core/checks/kubelet/view.ts). */
export const FILE_HEADER = '# node-doctor-file: '
/** The only line a script prints when the node has no such input on its layout, with the reason. */
export const ABSENT_HEADER = '# node-doctor-absent: '

/** The running kubelet's --config (`--config=X` or `--config X`); empty when none runs or it has none. */
const KUBELET_CONFIG_FLAG =
  "p=$(pgrep -o -x kubelet 2>/dev/null); f=; if [ -n \"$p\" ]; then " +
  "f=$(tr '\\0' '\\n' </proc/$p/cmdline | sed -n -e 's/^--config=//p' -e '/^--config$/{n;p;}' | tail -n 1); fi; "

/** Whether the kubelet is k3s's embedded one (no kubelet process, a k3s process). */
const K3S_EMBEDS_KUBELET = `[ -z "$p" ] && pgrep -x '${K3S_PROCESS_NAMES}' >/dev/null 2>&1`

/**
 * The kubelet's config file as the node's kubelet really uses it: the running kubelet's --config; none when a
 * kubelet runs without one (RKE2: drop-ins only) or k3s embeds it; else (no process visible) the first known
 * layout path that exists. Prints "# node-doctor-file: PATH" and the file, or one "# node-doctor-absent: why" line.
 */
export function kubeletConfigScript(): string {
  return (
    KUBELET_CONFIG_FLAG +
    `if [ -z "$f" ] && [ -n "$p" ]; then echo '${ABSENT_HEADER}the running kubelet has no --config (its configuration is its --config-dir drop-ins and flags)'; exit 0; fi; ` +
    `if [ -z "$f" ] && ${K3S_EMBEDS_KUBELET}; then echo '${ABSENT_HEADER}the kubelet runs inside k3s, configured by ${K3S_KUBELET_CONF_D} and kubelet-arg'; exit 0; fi; ` +
    `if [ -z "$f" ]; then for c in ${KUBELET_CONFIG_CANDIDATES.join(' ')}; do [ -f "$c" ] && { f=$c; break; }; done; fi; ` +
    `[ -n "$f" ] || { echo 'no kubelet config file: no kubelet process names one and none of ${KUBELET_CONFIG_CANDIDATES.join(', ')} exists' >&2; exit 1; }; ` +
    `[ -r "$f" ] || { echo "cannot read the kubelet config file $f" >&2; exit 1; }; printf '${FILE_HEADER}%s\\n' "$f"; exec cat -- "$f"`
  )
}

/** `systemctl cat kubelet`, or an absent line where k3s embeds the kubelet (no kubelet unit there). */
export function kubeletUnitScript(): string {
  return (
    'out=$(systemctl cat kubelet 2>&1); rc=$?; [ $rc -eq 0 ] && { printf \'%s\\n\' "$out"; exit 0; }; ' +
    `p=$(pgrep -o -x kubelet 2>/dev/null); if ${K3S_EMBEDS_KUBELET}; then echo '${ABSENT_HEADER}the kubelet runs inside k3s (its unit is k3s.service or k3s-agent.service)'; exit 0; fi; ` +
    'printf \'%s\\n\' "$out" >&2; exit $rc'
  )
}

/** The running kubelet's command line, or an absent line where k3s embeds the kubelet. */
export function kubeletCmdlineScript(): string {
  return (
    "p=$(pgrep -o -x kubelet 2>/dev/null); [ -n \"$p\" ] && exec tr '\\0' ' ' </proc/$p/cmdline; " +
    `if ${K3S_EMBEDS_KUBELET}; then echo '${ABSENT_HEADER}the kubelet runs inside k3s (no kubelet process)'; exit 0; fi; ` +
    "echo 'no kubelet process' >&2; exit 1"
  )
}

/** k3s and RKE2 read config.yaml, then config.yaml.d/*.yaml in name order (k3s docs "Configuration File"). */
export function rancherConfigScript(): string {
  return (
    'for r in k3s rke2; do for f in /etc/rancher/$r/config.yaml $(ls /etc/rancher/$r/config.yaml.d/*.yaml 2>/dev/null | LC_ALL=C sort); do ' +
    `[ -f "$f" ] || continue; printf '${FILE_HEADER}%s\\n' "$f"; cat -- "$f"; echo; done; done; exit 0`
  )
}

/** The full plan. Order matters only for readability of bundles, and for the two conntrack-stats reads (first and last). */
export const COLLECTION_PLAN: readonly PlanItem[] = [
  // What runs where (distribution, kubelet, kube-proxy, runtime, CNI): read by core/layout for every area.
  item('layout', 'layout discovery: processes, well-known paths, CNI configs and links', ['sh', '-c', layoutDiscoveryScript()], [...AREAS], {tool: 'sh'}),
  item('conntrack-stats', 'per-CPU conntrack counters, first read (with the uptime)', CONNTRACK_STATS_ARGV, ['conntrack'], {tool: 'conntrack'}),
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
  item('kubelet-config', 'the kubelet config file the node uses, after a "# node-doctor-file: PATH" line', ['sh', '-c', kubeletConfigScript()], ['kubelet', 'dns'], {tool: 'sh'}),
  item('kubelet-unit', 'kubelet systemd unit and drop-ins', ['sh', '-c', kubeletUnitScript()], ['kubelet'], {tool: 'systemctl'}),
  // Whether the unit files changed since systemd loaded them, and since when the kubelet runs (core/checks/kubelet/daemon-reload.ts).
  item('kubelet-systemd-state', 'kubelet unit state (pending daemon-reload, start times)', ['systemctl', 'show', 'kubelet', '-p', 'NeedDaemonReload,ActiveEnterTimestamp,ExecMainStartTimestamp,FragmentPath,DropInPaths'], ['kubelet']),
  item('kubeadm-flags', 'kubeadm kubelet flags', ['cat', '/var/lib/kubelet/kubeadm-flags.env'], ['kubelet']),
  item('kubelet-default-env', "the user's kubelet flags (KUBELET_EXTRA_ARGS, deb packages)", ['cat', '/etc/default/kubelet'], ['kubelet']),
  item('kubelet-sysconfig-env', "the user's kubelet flags (KUBELET_EXTRA_ARGS, rpm and pkgs.k8s.io packages)", ['cat', '/etc/sysconfig/kubelet'], ['kubelet']),
  item('kubelet-cmdline', 'running kubelet command line', ['sh', '-c', kubeletCmdlineScript()], ['kubelet'], {tool: 'sh'}),
  item('resolv-conf', 'the node\'s resolv.conf', ['cat', '/etc/resolv.conf'], ['kubelet', 'dns']),
  item('containerd-config', 'containerd config', ['cat', '/etc/containerd/config.toml'], ['kubelet']),
  item('proxy-mode', "kube-proxy's running mode", ['curl', '-sS', '--max-time', '5', `${KUBE_PROXY_METRICS}/proxyMode`], ['proxy-mode']),
  // Also read by the proxier areas: its kubernetes_build_info names the kube-proxy version that runs.
  item('kube-proxy-metrics', 'kube-proxy metrics', ['curl', '-sS', '--max-time', '5', `${KUBE_PROXY_METRICS}/metrics`], ['proxy-mode', 'iptables', 'ipvs', 'nftables']),
  // The configuration the running kube-proxy was started with (it does not reload it): the running side beside the ConfigMap.
  item('kube-proxy-configz', "kube-proxy's running configuration", ['curl', '-sS', '--max-time', '5', `${KUBE_PROXY_METRICS}/configz`], ['proxy-mode', 'iptables', 'ipvs', 'nftables']),
  item('kube-proxy-healthz', 'kube-proxy health', ['curl', '-sS', '--max-time', '5', 'http://127.0.0.1:10256/healthz'], ['proxy-mode']),
  item('modules', 'loaded kernel modules', ['cat', '/proc/modules'], ['proxy-mode', 'ipvs', 'routes']),
  // Whether each module kube-proxy's modes use is loaded, built in or installed for the running kernel (NODE-022).
  item('modules-available', "kernel modules kube-proxy's modes use: loaded, built in, loadable or absent", ['sh', '-c', modulesAvailableScript()], ['proxy-mode'], {tool: 'sh'}),
  item(
    'sysctls',
    'networking sysctls',
    [
      // The keys below through sysctl (its exit code kept: non-zero for a key the kernel lacks), then every interface's
      // rp_filter in one read (NODE-005/006: the per-interface keys cannot be named in advance).
      'sh',
      '-c',
      'sysctl "$@"; rc=$?; grep -H . /proc/sys/net/ipv4/conf/*/rp_filter 2>/dev/null; exit $rc',
      'sysctl',
      'net.ipv4.ip_forward',
      'net.ipv6.conf.all.forwarding',
      'net.ipv4.conf.all.route_localnet',
      'net.bridge.bridge-nf-call-iptables',
      'net.bridge.bridge-nf-call-ip6tables',
      'net.netfilter.nf_conntrack_tcp_be_liberal',
      'net.ipv4.vs.conntrack',
      'net.netfilter.nf_conntrack_count',
      'net.netfilter.nf_conntrack_max',
    ],
    // routes: the node forwarding prerequisites (checks/node) read ip_forward and the br_netfilter keys.
    // conntrack: the table's fill (count vs max, CT-002) and kube-proxy's conntrack settings (CT-004).
    ['proxy-mode', 'iptables', 'ipvs', 'routes', 'conntrack'],
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
      "d=$(tr '\\0' '\\n' </proc/$(pgrep -o -x kubelet)/cmdline 2>/dev/null | sed -n -e 's/^--config-dir=//p' -e '/^--config-dir$/{n;p;}' | tail -n 1); " +
        // The kubelet embedded in k3s has no process of its own: k3s starts it with --config-dir=K3S_KUBELET_CONF_D.
        `[ -z "$d" ] && ! pgrep -x kubelet >/dev/null 2>&1 && pgrep -x '${K3S_PROCESS_NAMES}' >/dev/null 2>&1 && d=${K3S_KUBELET_CONF_D}; ` +
        'd=${d:-/etc/kubernetes/kubelet.conf.d}; [ -d "$d" ] || exit 0; ' +
        'find "$d" -type f -name \'*.conf\' | LC_ALL=C sort | while IFS= read -r f; do [ -r "$f" ] || { echo "cannot read $f" >&2; continue; }; printf \'# node-doctor-file: %s\\n\' "$f"; cat "$f"; echo; done',
    ],
    ['kubelet'],
    {tool: 'sh'},
  ),
  // Whether the node swaps at all (KUBELET-025: failSwapOn false is harmless without swap). /proc/swaps is not namespaced.
  item('swaps', 'active swap areas', ['cat', '/proc/swaps'], ['kubelet']),
  // k3s/RKE2: their config.yaml and config.yaml.d (kubelet-arg, kube-proxy-arg), each after "# node-doctor-file: PATH".
  item('rancher-config', 'k3s/RKE2 config.yaml and config.yaml.d files (kubelet-arg, kube-proxy-arg)', ['sh', '-c', rancherConfigScript()], ['kubelet', 'dns', 'proxy-mode', 'iptables', 'ipvs', 'nftables'], {tool: 'sh'}),
  // k3s's own iptables (the one its embedded kube-proxy runs): which backend it uses (PROXY-010 on k3s).
  item(
    'k3s-iptables-version',
    "the iptables bundled with k3s (its data dir's bin/aux), whose backend k3s's kube-proxy uses",
    ['sh', '-c', `b=${K3S_AUX_IPTABLES}; [ -x "$b" ] || exit 0; exec "$b" --version`],
    ['iptables', 'proxy-mode'],
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
  // flannel VXLAN keeps each remote node's VTEP in the neighbour table (gateway -> VtepMAC) and the forwarding
  // database (VtepMAC -> public IP) of flannel.1: read by the flannel route checks (checks/routes/flannel.ts).
  item('ip-neigh', 'neighbour (ARP/NDP) entries', ['ip', '-j', 'neigh', 'show'], ['routes']),
  item('bridge-fdb', 'bridge and VXLAN forwarding database', ['bridge', '-j', 'fdb', 'show'], ['routes']),
  // flannel's own record of the MTU it gives pods (FLANNEL_MTU): the CNI MTU checks (checks/node/mtu-config.ts). Absent on
  // nodes without flannel: an absent optional input, not an error.
  item('flannel-subnet-env', "flannel's subnet.env (FLANNEL_MTU, FLANNEL_SUBNET)", ['cat', '/run/flannel/subnet.env'], ['routes']),
  // Second read of the conntrack counters, last so that the collection in between is the interval (CT-003).
  item('conntrack-stats-end', 'per-CPU conntrack counters, second read (with the uptime)', CONNTRACK_STATS_ARGV, ['conntrack'], {tool: 'conntrack'}),
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
