// Catalog entries for kube-proxy's mode (configured vs running vs dataplane) and health on each node.
import type {CheckSpec} from '../types.js'

const MODE_LOOKS_AT =
  'The configured mode (ConfigMap kube-system/kube-proxy or kube-proxy-config, combined with the kube-proxy container\'s ' +
  'flags as kube-proxy does, defaults applied: "" means iptables), the running mode (`curl 127.0.0.1:10249/proxyMode`, ' +
  'else the "Using <mode> Proxier" line in the pod log) and the kube-proxy version from its image. Where the layout keeps ' +
  "the mode elsewhere: k3s's kube-proxy-arg (/etc/rancher/k3s/config.yaml and config.yaml.d; k3s's own default is iptables), " +
  "RKE2's kube-proxy-arg (/etc/rancher/rke2/config.yaml) or the flags of its static pod manifest " +
  '(/var/lib/rancher/rke2/agent/pod-manifests/kube-proxy.yaml), GKE\'s /etc/kubernetes/manifests/kube-proxy.manifest.'

export const PROXY_IPVS_FALLBACK: CheckSpec = {
  id: 'PROXY-001',
  area: 'proxy-mode',
  severity: 'error',
  title: 'kube-proxy is configured for IPVS but cannot use it (fell back to iptables, or refuses to start)',
  looksAt: `${MODE_LOOKS_AT} For the cause: /proc/modules (ip_vs, ip_vs_rr, ip_vs_wrr, ip_vs_sh, nf_conntrack), the ipset tool, and the log lines "Can't use ipvs proxier" / "can't use the IPVS proxier".`,
  why:
    'Up to v1.25 kube-proxy silently ran iptables mode when IPVS was unusable, so `mode: ipvs` in the ConfigMap proved nothing: ' +
    'the node runs a different dataplane from the rest of the cluster (different scaling, different behaviour for ' +
    'externalIPs and LoadBalancer IPs, IPVS tuning ignored). From v1.26 kube-proxy exits instead and the pod crash-loops, ' +
    'so no Service rule on the node is updated any more.',
  remedy:
    'Load the missing modules on the node (`modprobe -a ip_vs ip_vs_rr ip_vs_wrr ip_vs_sh nf_conntrack`, and list them in ' +
    '/etc/modules-load.d/ipvs.conf so they survive a reboot), install ipset (≥ 6.0), then restart the node\'s kube-proxy pod ' +
    'and confirm `curl -s 127.0.0.1:10249/proxyMode` prints ipvs. Better: IPVS is deprecated since v1.35, so switch the ' +
    'cluster to nftables instead (`kubectl node-doctor fix kube-proxy-mode --to nftables`). Afterwards clean up the other ' +
    "mode's leftovers (PROXY-005).",
  requires: [],
}

export const PROXY_USERSPACE: CheckSpec = {
  id: 'PROXY-002',
  area: 'proxy-mode',
  severity: 'error',
  title: 'kube-proxy is configured for the userspace mode, which was removed in v1.26',
  looksAt: MODE_LOOKS_AT,
  why:
    'The userspace proxier was removed in v1.26: from then on kube-proxy rejects `mode: userspace` and does not start, so ' +
    'Service rules on the node are never updated. On older versions it still runs, but it proxies every connection ' +
    'through the kube-proxy process (slow, and every connection breaks when kube-proxy restarts).',
  remedy:
    'Set `mode: nftables` (v1.31+; `iptables` on older clusters) in the kube-proxy ConfigMap (and drop any ' +
    '`--proxy-mode=userspace` flag), then restart the kube-proxy pods one node at a time: ' +
    '`kubectl node-doctor fix kube-proxy-mode --to nftables` does both.',
  requires: [],
}

export const PROXY_MODE_MISMATCH: CheckSpec = {
  id: 'PROXY-003',
  area: 'proxy-mode',
  severity: 'warning',
  title: 'kube-proxy runs a different mode from the one configured',
  looksAt: MODE_LOOKS_AT,
  why:
    'kube-proxy reads its mode only when it starts. A different running mode means the ConfigMap (or the DaemonSet flags) ' +
    'was changed and this pod was not restarted, so nodes run different dataplanes until they happen to restart, and ' +
    'the next restart switches this node without warning. (A `--proxy-mode` flag next to `--config` is ignored: the file wins.)',
  remedy:
    'Decide which mode is wanted. To apply the configured one, restart the pod on this node ' +
    '(`kubectl -n kube-system delete pod <kube-proxy pod on NODE>`, or `kubectl -n kube-system rollout restart ds/kube-proxy` ' +
    'for all nodes; on k3s `systemctl restart k3s` or `k3s-agent`, on RKE2 `systemctl restart rke2-server` or `rke2-agent`), ' +
    'confirm `curl -s 127.0.0.1:10249/proxyMode`, then remove the old mode\'s leftovers (PROXY-005). ' +
    'To keep the running mode, put it back where it is configured (the ConfigMap, or kube-proxy-arg on k3s/RKE2).',
  requires: [],
}

export const PROXY_IPVS_DEPRECATED: CheckSpec = {
  id: 'PROXY-004',
  area: 'proxy-mode',
  severity: 'warning',
  title: 'kube-proxy runs IPVS mode, deprecated since v1.35',
  looksAt: `${MODE_LOOKS_AT} Applies from kube-proxy v1.35.`,
  why:
    'IPVS mode is deprecated since v1.35 (KEP-5495): kube-proxy logs a deprecation warning and raises an IPVSDeprecation ' +
    'event, from v1.37 it sits behind the KubeProxyIPVS feature gate, and the plan is to turn that gate off by default ' +
    'around v1.40 and remove the mode later. An upgrade can then leave the node without Service routing.',
  remedy:
    'Plan the move to nftables mode (the replacement with comparable scaling): `kubectl node-doctor fix kube-proxy-mode --to nftables` ' +
    'sets the mode and restarts kube-proxy node by node; then remove the IPVS leftovers (PROXY-005). Check first that ' +
    'nothing relies on IPVS specifics (kube-ipvs0 addresses, strictARP for MetalLB/kube-vip, IPVS schedulers).',
  requires: [],
}

export const PROXY_LEFTOVERS: CheckSpec = {
  id: 'PROXY-005',
  area: 'proxy-mode',
  severity: 'warning',
  title: "Another proxy mode's rules are still on the node",
  looksAt:
    'The running mode (/proxyMode or the pod log) against each dataplane: KUBE-SVC/SEP/EXT/FW/SVL chains in iptables-save ' +
    '(iptables mode), IPVS virtual servers (`ipvsadm -Sn`) and the kube-ipvs0 link (IPVS mode), and the `kube-proxy` ' +
    'nft table (nftables mode).',
  why:
    'After a mode switch the old rules stay until someone removes them. They confuse every diagnosis (which rules are live?), ' +
    'stale IPVS virtual servers and kube-ipvs0 addresses keep capturing traffic for Service IPs on the node, and stale ' +
    'iptables or nft rules send traffic to endpoints that are long gone if anything still reaches them.',
  remedy:
    "Remove only the other mode's objects (the finding gives the commands). Never run `kube-proxy --cleanup` blindly on an " +
    'IPVS node: it flushes ALL IPVS virtual servers, including the live ones and any not owned by kube-proxy.',
  requires: [],
}

export const PROXY_POD_UNHEALTHY: CheckSpec = {
  id: 'PROXY-006',
  area: 'proxy-mode',
  severity: 'error',
  title: "The node's kube-proxy pod is not ready, crash-looping or restarting often",
  looksAt: 'The kube-system kube-proxy pod scheduled on the node: phase, Ready, container state, restart count and last termination, plus fatal lines in its log.',
  why:
    'While kube-proxy is down nothing updates the node\'s Service rules: new Services and endpoint changes never reach ' +
    'the node, and connections keep going to deleted pods. Frequent restarts mean the rules are rebuilt over and over.',
  remedy:
    'Read why it stops: `kubectl -n kube-system logs <pod> --previous` and `kubectl -n kube-system describe pod <pod>`. ' +
    'Common causes: an invalid configuration (strict decoding errors, removed fields or modes), IPVS unusable (PROXY-001), ' +
    'conntrack sysctls it cannot write, or no access to the API server. Fix the cause, then delete the pod so it starts clean.',
  requires: ['cluster:pods'],
}

export const PROXY_HEALTHZ: CheckSpec = {
  id: 'PROXY-007',
  area: 'proxy-mode',
  severity: 'error',
  title: "kube-proxy's /healthz reports it is not programming rules in time",
  looksAt: "`curl 127.0.0.1:10256/healthz` on the node: whether it answers, and lastUpdated against currentTime (unhealthy after 2 × syncPeriod, as kube-proxy's own health server decides).",
  why:
    'kube-proxy\'s health server fails once a rule sync is overdue. Cloud load balancers probe this port and take the node ' +
    'out of rotation for externalTrafficPolicy=Cluster Services, and the node\'s Service rules are out of date.',
  remedy:
    "Look at kube-proxy's log for sync errors (iptables-restore/nft failures, lock contention with another iptables user, " +
    'API watch errors) and at PROXY-008/PROXY-009. Restart the pod if it is stuck: `kubectl -n kube-system delete pod <kube-proxy pod on NODE>`.',
  requires: [],
}

export const PROXY_SYNC_STUCK: CheckSpec = {
  id: 'PROXY-008',
  area: 'proxy-mode',
  severity: 'error',
  title: 'kube-proxy has queued changes it has not synced ("healthy but stuck")',
  looksAt: "kube-proxy /metrics: kubeproxy_sync_proxy_rules_last_queued_timestamp_seconds against kubeproxy_sync_proxy_rules_last_timestamp_seconds (per ip_family), compared with 2 × syncPeriod.",
  why:
    'A change was queued (a Service or endpoint changed) and no sync has succeeded since: the node\'s rules are stale even ' +
    'though the pod looks Running. Typical causes are a hung iptables-restore/nft, the xtables lock held by another ' +
    'agent, or a deadlock in kube-proxy.',
  remedy:
    "Check the log for the last \"syncProxyRules\" / restore errors and for processes holding /run/xtables.lock (`fuser -v /run/xtables.lock`). " +
    'Then restart the pod: `kubectl -n kube-system delete pod <kube-proxy pod on NODE>`, and confirm the two timestamps converge.',
  requires: ['kube-proxy-metrics'],
}

export const PROXY_RESTORE_FAILURES: CheckSpec = {
  id: 'PROXY-009',
  area: 'proxy-mode',
  severity: 'warning',
  title: 'kube-proxy has failed to apply its rules since it started',
  looksAt: 'kube-proxy /metrics: kubeproxy_sync_proxy_rules_iptables_restore_failures_total, _iptables_partial_restore_failures_total and _nftables_sync_failures_total (counters since the pod started).',
  why:
    'Each failure is a sync whose rules did not reach the kernel; a partial restore failure leaves some Services with old ' +
    'rules. kube-proxy retries, so a small count after a transient lock clash is harmless, but a growing count means ' +
    'some Service rules are wrong right now.',
  remedy:
    'Find the failing restore in the log ("Failed to execute iptables-restore" / "nftables sync failed" with the offending line). ' +
    'Usual causes: another agent holding the xtables lock, a rule the kernel rejects (missing module), or iptables-legacy/nft ' +
    'mixing (PROXY-010). Fix it, restart the pod, and watch that the counters stay at 0.',
  requires: ['kube-proxy-metrics'],
}

export const PROXY_DUAL_BACKEND: CheckSpec = {
  id: 'PROXY-010',
  area: 'proxy-mode',
  severity: 'error',
  title: "kube-proxy's chains exist in both iptables-legacy and iptables-nft",
  looksAt: 'KUBE-* chains in `iptables-legacy-save` and `iptables-nft-save` on the node (ignoring the kubelet-only KUBE-IPTABLES-HINT, KUBE-KUBELET-CANARY and KUBE-FIREWALL), and `iptables --version` for the backend the host uses.',
  why:
    'Both backends are evaluated by the kernel. Rules kube-proxy no longer updates in one backend keep DNATing Service ' +
    'traffic to old endpoints or dropping it, whatever the other backend says. It happens when kube-proxy\'s image picks ' +
    'a different backend from the host (old images without iptables-wrapper, or a host switched between backends).',
  remedy:
    'Keep the backend the host and kubelet use (`iptables --version` prints "(nf_tables)" or "(legacy)"; the kubelet marks ' +
    'it with KUBE-IPTABLES-HINT) and make kube-proxy use it (a kube-proxy image with iptables-wrapper, v1.17+). In the other ' +
    "backend remove only kube-proxy's chains (commands in the finding). Do not flush the backend the node uses.",
  requires: ['iptables-legacy-save', 'iptables-nft-save'],
}

export const PROXY_MODE_SPECS: readonly CheckSpec[] = [
  PROXY_IPVS_FALLBACK,
  PROXY_USERSPACE,
  PROXY_MODE_MISMATCH,
  PROXY_IPVS_DEPRECATED,
  PROXY_LEFTOVERS,
  PROXY_POD_UNHEALTHY,
  PROXY_HEALTHZ,
  PROXY_SYNC_STUCK,
  PROXY_RESTORE_FAILURES,
  PROXY_DUAL_BACKEND,
]
