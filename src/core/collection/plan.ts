// What to collect from a node, as data. Each item is a fixed command (no interpolation of API data) or a file.
import type {Area} from '../model/report.js'
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

/** The full plan. Order matters only for readability of bundles. */
export const COLLECTION_PLAN: readonly PlanItem[] = [
  item('uname', 'kernel release', ['uname', '-r'], ['proxy-mode', 'nftables', 'kubelet']),
  item('iptables-version', 'iptables version and backend', ['iptables', '--version'], ['iptables', 'proxy-mode']),
  item('iptables-save', 'IPv4 iptables rules', ['iptables-save'], ['iptables', 'proxy-mode', 'ipvs'], {required: true}),
  item('ip6tables-save', 'IPv6 iptables rules', ['ip6tables-save'], ['iptables']),
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
  item('kubeadm-flags', 'kubeadm kubelet flags', ['cat', '/var/lib/kubelet/kubeadm-flags.env'], ['kubelet']),
  item('kubelet-default-env', "the user's kubelet flags (KUBELET_EXTRA_ARGS, deb packages)", ['cat', '/etc/default/kubelet'], ['kubelet']),
  item('kubelet-sysconfig-env', "the user's kubelet flags (KUBELET_EXTRA_ARGS, rpm and pkgs.k8s.io packages)", ['cat', '/etc/sysconfig/kubelet'], ['kubelet']),
  item('kubelet-cmdline', 'running kubelet command line', ['sh', '-c', "tr '\\0' ' ' </proc/$(pgrep -o -x kubelet)/cmdline"], ['kubelet']),
  item('resolv-conf', 'the node\'s resolv.conf', ['cat', '/etc/resolv.conf'], ['kubelet', 'dns']),
  item('containerd-config', 'containerd config', ['cat', '/etc/containerd/config.toml'], ['kubelet']),
  item('proxy-mode', "kube-proxy's running mode", ['curl', '-sS', '--max-time', '5', `${KUBE_PROXY_METRICS}/proxyMode`], ['proxy-mode']),
  // Also read by the proxier areas: its kubernetes_build_info names the kube-proxy version that runs.
  item('kube-proxy-metrics', 'kube-proxy metrics', ['curl', '-sS', '--max-time', '5', `${KUBE_PROXY_METRICS}/metrics`], ['proxy-mode', 'iptables', 'ipvs', 'nftables']),
  item('kube-proxy-healthz', 'kube-proxy health', ['curl', '-sS', '--max-time', '5', 'http://127.0.0.1:10256/healthz'], ['proxy-mode']),
  item('modules', 'loaded kernel modules', ['cat', '/proc/modules'], ['proxy-mode', 'ipvs']),
  item(
    'sysctls',
    'networking sysctls',
    ['sysctl', 'net.ipv4.ip_forward', 'net.ipv4.conf.all.route_localnet', 'net.bridge.bridge-nf-call-iptables', 'net.netfilter.nf_conntrack_tcp_be_liberal', 'net.ipv4.vs.conntrack'],
    ['proxy-mode', 'iptables', 'ipvs'],
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
