// Catalog entries for the kubelet checks (area `kubelet`; clusterDNS/clusterDomain/resolvConf in area `dns`).
// Facts: node-state.md E.4–E.9. Remedies name exact edits: the kubelet reads its config only at start.
import type {CheckSpec} from '../types.js'

const RESTART = '`sudo systemctl restart kubelet` (then `kubectl node-doctor check NODE --only kubelet` to confirm)'
const FIX_SET = (field: string, value: string): string => `\`kubectl node-doctor fix kubelet NODE --set ${field}=${value}\``
const EDIT = (field: string, value: string): string =>
  `Set \`${field}: ${value}\` in /var/lib/kubelet/config.yaml (${FIX_SET(field, value)} does this), make the same change in \`kubectl -n kube-system edit cm kubelet-config\` so new and upgraded nodes get it, and remove any flag that overrides it in /var/lib/kubelet/kubeadm-flags.env or /etc/default/kubelet; then ${RESTART}.`
const FILES = '/var/lib/kubelet/config.yaml, the --config-dir drop-ins, and the kubelet flags (systemctl cat kubelet, /var/lib/kubelet/kubeadm-flags.env)'
const EFFECTIVE = `The running configuration (/configz) when it could be read, else ${FILES}, with the kubelet's defaults for its version applied.`

export const KUBELET_NOT_RESTARTED: CheckSpec = {
  id: 'KUBELET-001',
  area: 'kubelet',
  severity: 'warning',
  title: 'The kubelet config on disk differs from what the kubelet runs (edited but not restarted)',
  looksAt: `${FILES} with defaults applied, compared field by field with the running kubelet's /configz.`,
  why:
    'The kubelet reads its configuration only at start. A difference means someone edited the files without restarting (the change is not in effect, ' +
    'and the next reboot or upgrade applies it by surprise), or something the files do not show overrides them.',
  remedy:
    `Decide which side is right for each field shown. If the files are right: ${RESTART}, and watch \`journalctl -u kubelet -f\` for a startup error; ` +
    'if KUBELET-019 reports a flag the kubelet rejects in the same files, remove it first: the restart fails until it is gone. ' +
    'If the running value is right: put it back in the file (`kubectl node-doctor fix kubelet NODE --set FIELD=VALUE`). If nothing in the files explains ' +
    "the running value, look for a flag in the running command line: `tr '\\0' ' ' </proc/$(pgrep -o -x kubelet)/cmdline`.",
  requires: ['kubelet-config', 'cluster:configz'],
}

export const KUBELET_DRIFT_FROM_INTENDED: CheckSpec = {
  id: 'KUBELET-002',
  area: 'kubelet',
  severity: 'warning',
  title: "The node's kubelet config drifted from the cluster's intended config (kubeadm kubelet-config ConfigMap)",
  looksAt: '/var/lib/kubelet/config.yaml and its drop-ins, compared field by field with the KubeletConfiguration in ConfigMap kube-system/kubelet-config (key `kubelet`), both with defaults applied.',
  why:
    'kubeadm writes config.yaml from the ConfigMap at join and rewrites it on `kubeadm upgrade node`: a hand edit on one node is silently lost on the next upgrade, ' +
    'and a node that was never refreshed keeps settings the cluster changed long ago. Nodes that should be identical behave differently.',
  remedy:
    'If the ConfigMap is right, refresh the node from it: `sudo kubeadm upgrade node phase kubelet-config` (or copy the ConfigMap\'s `kubelet` key to /var/lib/kubelet/config.yaml), ' +
    `then ${RESTART}. If the node's value is right for every node, put it in the ConfigMap: \`kubectl -n kube-system edit cm kubelet-config\`. ` +
    'Node-specific settings belong in a --config-dir drop-in or kubeadm\'s patches (`--patches`), not in a hand-edited config.yaml.',
  requires: ['kubelet-config', 'cluster:configMaps'],
}

export const KUBELET_SCHEMA: CheckSpec = {
  id: 'KUBELET-003',
  area: 'kubelet',
  severity: 'error',
  title: 'The kubelet config file has unknown fields, wrong types or invalid values',
  looksAt: '/var/lib/kubelet/config.yaml and the --config-dir drop-ins, decoded against the KubeletConfiguration v1beta1 schema of the node\'s kubelet version.',
  why:
    'A wrong type, an invalid duration or quantity, a missing kind/apiVersion or a file that is not YAML makes the kubelet exit at start: systemd restarts it every ' +
    '10 s and the node goes NotReady after the next restart. Unknown fields (often typos or fields of another version) are ignored without a word, so the setting you think you made is not in effect.',
  remedy:
    'Fix the line shown in the file (durations are Go durations like `4h0m0s`, quantities like `100Mi`, booleans unquoted). Validate before restarting: ' +
    '`kubectl node-doctor kubelet show --from-file /var/lib/kubelet/config.yaml --kubelet-version 1.NN`, then `sudo systemctl restart kubelet` and `journalctl -u kubelet -n 50`.',
  requires: ['kubelet-config'],
}

export const KUBELET_VALIDATION: CheckSpec = {
  id: 'KUBELET-004',
  area: 'kubelet',
  severity: 'error',
  title: 'The kubelet configuration holds values the kubelet rejects at start',
  looksAt: `${FILES} with defaults applied, against the kubelet's startup validation (pkg/kubelet/apis/config/validation).`,
  why:
    'The kubelet validates its merged configuration at start and exits on the first failure ("invalid configuration: ..."). A running kubelet with such a file is a time bomb: ' +
    'the next restart, reboot or upgrade leaves the node NotReady.',
  remedy:
    'Correct the field named in the finding in the file shown (or remove the flag that sets it), then restart and watch the log: `sudo systemctl restart kubelet && journalctl -u kubelet -f`. ' +
    'Use `kubectl node-doctor fix kubelet NODE --set FIELD=VALUE` to edit config.yaml in place with a backup.',
  requires: ['kubelet-config'],
}

export const KUBELET_ANONYMOUS_AUTH: CheckSpec = {
  id: 'KUBELET-005',
  area: 'kubelet',
  profile: 'hygiene', // security posture (CIS 4.2.1): anonymous access breaks no traffic
  severity: 'error',
  title: 'Anonymous requests to the kubelet API are allowed (CIS 4.2.1)',
  looksAt: `authentication.anonymous.enabled (--anonymous-auth). ${EFFECTIVE}`,
  why:
    'With anonymous auth on, anyone who reaches port 10250 is `system:anonymous`; with authorization AlwaysAllow that means exec into any pod on the node. ' +
    'The flag default is true, so a kubelet started without --config is exposed.',
  remedy: EDIT('authentication.anonymous.enabled', 'false'),
  requires: [],
}

export const KUBELET_AUTHZ_ALWAYS_ALLOW: CheckSpec = {
  id: 'KUBELET-006',
  area: 'kubelet',
  profile: 'hygiene', // security posture (CIS 4.2.2): AlwaysAllow breaks no traffic
  severity: 'error',
  title: 'The kubelet authorizes every request (authorization.mode AlwaysAllow, CIS 4.2.2)',
  looksAt: `authorization.mode (--authorization-mode). ${EFFECTIVE}`,
  why: 'AlwaysAllow lets any authenticated (or anonymous) client run commands in pods, read logs and secrets mounted on the node through the kubelet API.',
  remedy: `${EDIT('authorization.mode', 'Webhook')} Webhook mode needs \`authentication.webhook.enabled: true\` and the API server's kubelet client certificate bound to the system:kubelet-api-admin role (kubeadm sets this up).`,
  requires: [],
}

export const KUBELET_READ_ONLY_PORT: CheckSpec = {
  id: 'KUBELET-007',
  area: 'kubelet',
  profile: 'hygiene', // security posture (CIS 4.2.4): an open read-only port breaks nothing
  severity: 'warning',
  title: 'The unauthenticated read-only port is open (readOnlyPort ≠ 0, CIS 4.2.4)',
  looksAt: `readOnlyPort (--read-only-port). ${EFFECTIVE}`,
  why: 'Port 10255 serves pod specs (with environment variables), node stats and metrics over plain HTTP with no authentication to anyone who can reach the node.',
  remedy:
    `${EDIT('readOnlyPort', '0')} Before that, move anything scraping :10255 (old Prometheus or Heapster setups, some monitoring agents) to the authenticated port 10250 (/metrics, /stats/summary).`,
  requires: [],
}

export const KUBELET_NO_CLIENT_CA: CheckSpec = {
  id: 'KUBELET-008',
  area: 'kubelet',
  severity: 'warning',
  title: 'No client CA file: the kubelet cannot authenticate clients by certificate (CIS 4.2.3)',
  looksAt: `authentication.x509.clientCAFile (--client-ca-file). ${EFFECTIVE}`,
  why:
    'Without a client CA the kubelet cannot verify the API server\'s client certificate: `kubectl logs/exec/port-forward` fail with 401, or, with anonymous auth on, ' +
    'succeed for anyone.',
  remedy: EDIT('authentication.x509.clientCAFile', '/etc/kubernetes/pki/ca.crt'),
  requires: [],
}

export const KUBELET_CERT_ROTATION: CheckSpec = {
  id: 'KUBELET-009',
  area: 'kubelet',
  profile: 'hygiene', // CIS 4.2.10/11: rotation off breaks nothing until a certificate expires (KUBELET certificate expiry is not judged here)
  severity: 'warning',
  title: 'Kubelet certificate rotation is off (CIS 4.2.10/4.2.11)',
  looksAt: `rotateCertificates (--rotate-certificates) and featureGates.RotateKubeletServerCertificate. ${EFFECTIVE}`,
  why:
    'Without client certificate rotation the kubelet\'s client certificate (a year by default with kubeadm) expires and the node drops to NotReady with ' +
    '"x509: certificate has expired" in the kubelet log; disabling serving certificate rotation keeps an old, never-renewed serving certificate.',
  remedy: `${EDIT('rotateCertificates', 'true')} Remove \`RotateKubeletServerCertificate: false\` from featureGates if present. Check the current certificate: \`sudo openssl x509 -enddate -noout -in /var/lib/kubelet/pki/kubelet-client-current.pem\`.`,
  requires: [],
}

export const KUBELET_WEAK_CIPHERS: CheckSpec = {
  id: 'KUBELET-010',
  area: 'kubelet',
  profile: 'hygiene', // CIS 4.2.12: weak ciphers offered break no traffic
  severity: 'warning',
  title: 'The kubelet offers weak TLS cipher suites (CIS 4.2.12)',
  looksAt: `tlsCipherSuites (--tls-cipher-suites) against the CIS strong list, and tlsMinVersion. ${EFFECTIVE}`,
  why: 'CBC, RC4, 3DES and non-ECDHE suites allow downgrade and padding-oracle attacks on the kubelet API, which carries exec sessions and logs.',
  remedy:
    'Set `tlsCipherSuites: [TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305, ' +
    'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384, TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305, TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384]` in /var/lib/kubelet/config.yaml ' +
    `(or remove the field to use Go's defaults), the same in the kube-system/kubelet-config ConfigMap, then ${RESTART}.`,
  requires: [],
}

export const KUBELET_STREAMING_TIMEOUT: CheckSpec = {
  id: 'KUBELET-011',
  area: 'kubelet',
  profile: 'hygiene', // CIS 4.2.5: idle sessions kept open break nothing
  severity: 'warning',
  title: 'Streaming connections never time out (streamingConnectionIdleTimeout 0, CIS 4.2.5)',
  looksAt: `streamingConnectionIdleTimeout (--streaming-connection-idle-timeout). In the file \`0s\` means the 4h default; a flag of 0 really disables it. ${EFFECTIVE}`,
  why: 'Idle `kubectl exec`/`attach`/`port-forward` sessions stay open forever: they pin kubelet and API server resources and keep forgotten shells into pods alive.',
  remedy: `${EDIT('streamingConnectionIdleTimeout', '4h0m0s')} (any value above 0 works; CIS suggests 5m when long sessions are not needed).`,
  requires: [],
}

export const KUBELET_PROTECT_KERNEL_DEFAULTS: CheckSpec = {
  id: 'KUBELET-012',
  area: 'kubelet',
  profile: 'hygiene', // CIS 4.2.6 (older benchmarks): off is the kubeadm default and breaks nothing
  severity: 'info',
  title: 'protectKernelDefaults is off (CIS 4.2.6 in cis-1.5 … cis-1.24)',
  looksAt: `protectKernelDefaults (--protect-kernel-defaults). ${EFFECTIVE}`,
  why:
    'When off, the kubelet silently changes kernel tunables it needs; when on, it refuses to start unless the node already has them (vm.overcommit_memory=1, ' +
    'vm.panic_on_oom=0, kernel.panic=10, kernel.panic_on_oops=1, kernel.keys.root_maxkeys=1000000, kernel.keys.root_maxbytes=25000000). Older CIS benchmarks require it; cis-1.7 and later do not.',
  remedy:
    'First make the sysctls persistent: write them to /etc/sysctl.d/90-kubelet.conf and run `sudo sysctl --system`. Only then ' +
    `set \`protectKernelDefaults: true\` (${FIX_SET('protectKernelDefaults', 'true')}) and ${RESTART}; in the other order the kubelet does not start.`,
  requires: [],
}

export const KUBELET_EVENT_QPS: CheckSpec = {
  id: 'KUBELET-013',
  area: 'kubelet',
  profile: 'hygiene', // event rate limit: a tuning choice, breaks nothing
  severity: 'info',
  title: 'Event creation is not rate-limited (eventRecordQPS 0)',
  looksAt: `eventRecordQPS (--event-qps). ${EFFECTIVE} Judged as kube-bench does: cis-1.5 … cis-1.23 required 0, cis-1.24 and later accept any value ≥ 0.`,
  why:
    'eventRecordQPS 0 means unlimited: a crash-looping pod or a failing volume mount can flood the API server and etcd with events from this node. ' +
    'Old CIS hardening guides (and RKE hardening profiles) set 0 to avoid losing events; current benchmarks no longer ask for it.',
  remedy: `Unless an older CIS profile you are audited against requires 0, ${EDIT('eventRecordQPS', '50').replace(/^Set/, 'set')}`,
  requires: [],
}

export const KUBELET_IPTABLES_UTIL_CHAINS: CheckSpec = {
  id: 'KUBELET-014',
  area: 'kubelet',
  severity: 'warning',
  title: 'The kubelet does not create its iptables utility chains (makeIPTablesUtilChains false, CIS 4.2.6)',
  looksAt: `makeIPTablesUtilChains (--make-iptables-util-chains). ${EFFECTIVE}`,
  why:
    'The kubelet keeps KUBE-FIREWALL (which drops martian traffic to 127.0.0.0/8 from outside, CVE-2020-8558) and its canary chains only when this is true; ' +
    'without them the node is open to localhost-bound services from its neighbours, and older kube-proxy versions lose KUBE-MARK-MASQ/KUBE-MARK-DROP.',
  remedy: EDIT('makeIPTablesUtilChains', 'true'),
  requires: [],
}

export const KUBELET_CGROUP_DRIVER: CheckSpec = {
  id: 'KUBELET-015',
  area: 'kubelet',
  severity: 'error',
  title: "The kubelet's cgroupDriver differs from the container runtime's (containerd SystemdCgroup)",
  looksAt:
    `cgroupDriver (${EFFECTIVE.slice(0, -1).toLowerCase()}) vs SystemdCgroup of containerd's default runc runtime in /etc/containerd/config.toml, ` +
    'with the kubelet and containerd versions from the Node object (KubeletCgroupDriverFromCRI: beta and on by default in 1.31, GA in 1.34, needs containerd ≥ 2.0).',
  why:
    'kubelet systemd + containerd cgroupfs: pods and static control-plane pods restart at random with "Pod sandbox changed, it will be killed and re-created". ' +
    'kubelet cgroupfs + containerd systemd: sandboxes fail with \'expected cgroupsPath to be of format "slice:prefix:name"\'. Newer kubelets take the driver from ' +
    'containerd 2.x, so there the setting in config.yaml is only misleading.',
  remedy:
    'Use systemd on both (the kubeadm default). containerd: set `SystemdCgroup = true` under the runc options table ' +
    '(`[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]`, or `[plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc.options]` on containerd 2.x) ' +
    `and \`sudo systemctl restart containerd\`; kubelet: ${FIX_SET('cgroupDriver', 'systemd')}, then ${RESTART}. Drain the node first: running pods are recreated.`,
  requires: ['containerd-config'],
}

export const KUBELET_CLUSTER_DNS: CheckSpec = {
  id: 'KUBELET-016',
  area: 'dns',
  severity: 'error',
  title: "The kubelet's clusterDNS does not point at the kube-dns Service",
  looksAt:
    `clusterDNS (--cluster-dns) vs the ClusterIP(s) of Service kube-system/kube-dns; link-local addresses are accepted when a node-local-dns DaemonSet exists. ${EFFECTIVE}`,
  why:
    "clusterDNS is written into every pod's /etc/resolv.conf. An address with no DNS Service behind it (a stale IP after a service CIDR change, a flag left in " +
    'KUBELET_EXTRA_ARGS) makes every lookup in every pod on the node time out, while pods on other nodes work.',
  remedy:
    `Find the right IP: \`kubectl -n kube-system get svc kube-dns -o jsonpath='{.spec.clusterIP}'\`. ${FIX_SET('clusterDNS', '<that IP>')}, fix the ` +
    '`clusterDNS` list in `kubectl -n kube-system edit cm kubelet-config`, remove any `--cluster-dns` flag from /etc/default/kubelet or kubeadm-flags.env, ' +
    `then ${RESTART} and recreate the node's pods (\`kubectl drain NODE --ignore-daemonsets --delete-emptydir-data && kubectl uncordon NODE\`): existing pods keep the old resolv.conf.`,
  requires: ['cluster:services'],
}

export const KUBELET_CLUSTER_DOMAIN: CheckSpec = {
  id: 'KUBELET-017',
  area: 'dns',
  severity: 'warning',
  title: "The kubelet's clusterDomain is empty or not served by CoreDNS",
  looksAt: `clusterDomain (--cluster-domain) vs the zones of the \`kubernetes\` plugin in the Corefile (ConfigMap kube-system/coredns), when present. ${EFFECTIVE}`,
  why:
    'clusterDomain sets the search path in pods\' resolv.conf (`svc.cluster.local ...`). Empty: short names like `my-svc` do not resolve. A domain CoreDNS does not ' +
    'serve: every in-cluster name goes upstream and fails with NXDOMAIN.',
  remedy: `Use the domain the Corefile serves (usually cluster.local): ${FIX_SET('clusterDomain', 'cluster.local')}, the same in the kube-system/kubelet-config ConfigMap, then ${RESTART} and recreate the node's pods.`,
  requires: [],
}

export const KUBELET_STUB_RESOLVER: CheckSpec = {
  id: 'KUBELET-018',
  area: 'dns',
  severity: 'error',
  title: "The kubelet's resolvConf points at a loopback stub resolver (systemd-resolved 127.0.0.53)",
  looksAt: `resolvConf (--resolv-conf) and, when it is /etc/resolv.conf, that file's nameservers on the node. ${EFFECTIVE}`,
  why:
    'Pods with dnsPolicy Default, and CoreDNS forwarding to the node\'s upstreams, get `nameserver 127.0.0.53`, which inside a pod is the pod itself: external ' +
    'lookups fail, and CoreDNS\'s loop plugin detects a forwarding loop and crashes ("[FATAL] plugin/loop: Loop ... detected").',
  remedy:
    `Point the kubelet at the real upstream list: ${FIX_SET('resolvConf', '/run/systemd/resolve/resolv.conf')} (kubeadm does this on systemd-resolved hosts), ` +
    `then ${RESTART} and \`kubectl -n kube-system rollout restart deploy/coredns\`.`,
  requires: [],
}

export const KUBELET_REMOVED_FLAGS: CheckSpec = {
  id: 'KUBELET-019',
  area: 'kubelet',
  severity: 'error',
  title: 'The kubelet is given a flag it rejects at start (removed in its version, invalid value, stray argument)',
  looksAt:
    "The kubelet's flags from `systemctl cat kubelet` with its environment files (kubeadm-flags.env; /etc/default/kubelet or /etc/sysconfig/kubelet, whichever the unit names, for KUBELET_EXTRA_ARGS), " +
    "else the running command line, against the flags removed up to the node's kubelet version.",
  why:
    'A removed flag makes the kubelet exit with "unknown flag: --X" (or "failed to parse kubelet flag") at start; systemd restarts it in a loop and the node stays NotReady. ' +
    'A kubelet that still runs was started before the flag reached its files (an environment file edited since, or the unit changed without a daemon-reload: ' +
    '`systemctl show kubelet -p NeedDaemonReload` says yes): nothing is broken yet, but the next daemon-reload + restart, or reboot, will fail. ' +
    'These flags survive upgrades in kubeadm-flags.env and /etc/default/kubelet (--network-plugin, --container-runtime, --pod-infra-container-image).',
  remedy:
    'Delete the flag from the file and line shown (usually `sudo sed -i \'s/ --FLAG=[^ "]*//\' /var/lib/kubelet/kubeadm-flags.env`), move its setting to the replacement named in the finding, ' +
    `and only then run \`sudo systemctl daemon-reload\` and ${RESTART}: a daemon-reload + restart while the flag is still in the files fails, and takes a running kubelet down with it.`,
  requires: [],
}

export const KUBELET_DEPRECATED_FLAGS: CheckSpec = {
  id: 'KUBELET-020',
  area: 'kubelet',
  profile: 'hygiene', // deprecated flags still accepted by this version: a future upgrade concern (KUBELET-019 covers flags rejected now)
  severity: 'warning',
  title: 'The kubelet is given deprecated or unknown flags that a later version rejects',
  looksAt:
    "The kubelet's flags (unit, kubeadm-flags.env, the KUBELET_EXTRA_ARGS file /etc/default/kubelet or /etc/sysconfig/kubelet, or the running command line): " +
    "deprecated flags, flags removed in a later version than the node's, and flags node-doctor does not know.",
  why: 'They work today, but the kubelet of a later minor exits on them with "unknown flag", turning a routine upgrade into an outage of the node.',
  remedy:
    'Remove the flag from the file shown before upgrading and configure its replacement (named in the finding). Config-backed settings go in /var/lib/kubelet/config.yaml ' +
    `(\`kubectl node-doctor fix kubelet NODE --set FIELD=VALUE\`); then \`sudo systemctl daemon-reload\` and ${RESTART}. Remove every flag KUBELET-019 reports in the same files first: the restart fails while one is there.`,
  requires: [],
}

export const KUBELET_FLAG_OVERRIDES: CheckSpec = {
  id: 'KUBELET-021',
  area: 'kubelet',
  profile: 'hygiene', // a flag overriding a config field: the running value is what the flag says; tidiness, not an outage
  severity: 'warning',
  title: 'A kubelet flag overrides a field of the config file',
  looksAt:
    "The kubelet's config-backed flags (unit, kubeadm-flags.env, the KUBELET_EXTRA_ARGS file /etc/default/kubelet or /etc/sysconfig/kubelet, or the running command line) " +
    'against /var/lib/kubelet/config.yaml and its drop-ins. KUBELET_EXTRA_ARGS come last on the command line, so they win over kubeadm-flags.env.',
  why:
    'Flags beat the config file. Whoever edits config.yaml (or the kubelet-config ConfigMap) sees no effect, and node-doctor, kube-bench and `kubelet show` disagree ' +
    'with the file. A flag that sets a different value than the file is the classic cause of "I changed it and nothing happened".',
  remedy:
    'Move the setting into the config file (`kubectl node-doctor fix kubelet NODE --set FIELD=VALUE`) and delete the flag from the file and line shown ' +
    `(kubeadm-flags.env: also remove it from the kubeadm JoinConfiguration's nodeRegistration.kubeletExtraArgs so a rejoin does not bring it back); then \`sudo systemctl daemon-reload\` and ${RESTART}. Remove every flag KUBELET-019 reports in the same files first: the restart fails while one is there.`,
  requires: [],
}

export const KUBELET_VERSION_SKEW: CheckSpec = {
  id: 'KUBELET-022',
  area: 'kubelet',
  severity: 'error',
  title: 'The kubelet version is outside the supported skew with the API server',
  looksAt: "The Node's status.nodeInfo.kubeletVersion vs the API server version: the kubelet may be up to 3 minors older (2 before API server 1.28) and never newer.",
  why:
    'A kubelet newer than the API server, or older than the skew policy allows, uses API fields and behaviour the other side does not have: pods fail admission, ' +
    'status updates are rejected, and upgrades of the control plane break nodes that were left behind.',
  remedy:
    'Upgrade (or, for a too-new kubelet, downgrade) the kubelet one minor at a time: `kubectl drain NODE --ignore-daemonsets`, install the kubelet/kubeadm packages of the ' +
    'control plane\'s minor, `sudo kubeadm upgrade node`, `sudo systemctl daemon-reload && sudo systemctl restart kubelet`, `kubectl uncordon NODE`. ' +
    'Before the restart, remove the flags KUBELET-020 names as removed in the new minor: the new kubelet exits on them and the restart fails.',
  requires: ['cluster:nodes'],
}

export const KUBELET_STATIC_POD_PATH: CheckSpec = {
  id: 'KUBELET-023',
  area: 'kubelet',
  severity: 'warning',
  title: 'staticPodPath is missing or odd',
  looksAt: `staticPodPath (--pod-manifest-path): empty on a control-plane node, relative, or naming a single file. ${EFFECTIVE}`,
  why:
    'kubeadm control planes run etcd, kube-apiserver, kube-controller-manager and kube-scheduler as static pods from /etc/kubernetes/manifests: with no staticPodPath they are ' +
    'not started after a kubelet restart. A relative path is resolved against the kubelet\'s working directory, and a file path makes the kubelet read only that one manifest.',
  remedy: `${EDIT('staticPodPath', '/etc/kubernetes/manifests')} Check the manifests are there: \`sudo ls -l /etc/kubernetes/manifests\`.`,
  requires: [],
}

export const KUBELET_EVICTION: CheckSpec = {
  id: 'KUBELET-024',
  area: 'kubelet',
  severity: 'warning',
  title: 'Hard eviction thresholds are missing or too tight',
  looksAt: `evictionHard (--eviction-hard): memory.available and nodefs.available must be present and not below 100Mi / 5%; setting some thresholds drops the defaults for the others (unless mergeDefaultEvictionSettings). ${EFFECTIVE}`,
  why:
    'Without a memory.available threshold the kubelet never evicts before the kernel OOM killer acts, which can kill the kubelet or containerd itself; without nodefs.available ' +
    'a full disk stops image pulls, logging and the node. Setting only one threshold silently removes the defaults for the others.',
  remedy:
    'Set the full map, e.g. `evictionHard: {memory.available: 100Mi, nodefs.available: 10%, nodefs.inodesFree: 5%, imagefs.available: 15%, imagefs.inodesFree: 5%}` ' +
    `in /var/lib/kubelet/config.yaml (or \`mergeDefaultEvictionSettings: true\` on 1.33+), the same in the kube-system/kubelet-config ConfigMap, then ${RESTART}.`,
  requires: [],
}

export const KUBELET_SWAP: CheckSpec = {
  id: 'KUBELET-025',
  area: 'kubelet',
  severity: 'warning',
  title: 'The kubelet tolerates swap (failSwapOn false) without a swap behaviour',
  looksAt: `failSwapOn (--fail-swap-on) and memorySwap.swapBehavior, with the node's kubelet version and whether it swaps at all (/proc/swaps: without swap, failSwapOn false is harmless). ${EFFECTIVE}`,
  why:
    'With failSwapOn false and no swapBehavior the kubelet starts on a swapping node but gives pods no swap (NoSwap) while the system itself swaps: memory limits and ' +
    'eviction see less than the node really uses, and latency-sensitive pods stall. UnlimitedSwap was removed in 1.30: such a kubelet refuses to start.',
  remedy:
    'Either turn swap off (`sudo swapoff -a` and comment it out in /etc/fstab) and set `failSwapOn: true`, or use swap deliberately: `failSwapOn: false` with ' +
    `\`memorySwap: {swapBehavior: LimitedSwap}\` (1.28+, cgroup v2) — ${FIX_SET('memorySwap.swapBehavior', 'LimitedSwap')} — then ${RESTART}.`,
  requires: [],
}

export const KUBELET_NODE_STATUS: CheckSpec = {
  id: 'KUBELET-026',
  area: 'kubelet',
  severity: 'warning',
  title: "nodeStatusUpdateFrequency or the node lease does not fit the controller manager's node-monitor grace period",
  looksAt:
    `nodeStatusUpdateFrequency and nodeLeaseDurationSeconds (${EFFECTIVE.slice(0, -1).toLowerCase()}) vs kube-controller-manager's --node-monitor-grace-period ` +
    '(from its pod in kube-system, else the default: 40s, 50s from 1.32).',
  why:
    'The grace period must cover several status updates (N = 4 with the defaults): with a slower update frequency, or a lease renewed less often than the grace period ' +
    '(every nodeLeaseDurationSeconds/4), the node flaps NotReady and its pods get tainted and evicted although the kubelet is fine.',
  remedy:
    `Keep \`nodeStatusUpdateFrequency\` at most a quarter of the grace period (${FIX_SET('nodeStatusUpdateFrequency', '10s')}) and nodeLeaseDurationSeconds at 40, then ${RESTART}; ` +
    'or raise --node-monitor-grace-period in /etc/kubernetes/manifests/kube-controller-manager.yaml on every control-plane node.',
  requires: [],
}

export const KUBELET_SPECS: readonly CheckSpec[] = [
  KUBELET_NOT_RESTARTED,
  KUBELET_DRIFT_FROM_INTENDED,
  KUBELET_SCHEMA,
  KUBELET_VALIDATION,
  KUBELET_ANONYMOUS_AUTH,
  KUBELET_AUTHZ_ALWAYS_ALLOW,
  KUBELET_READ_ONLY_PORT,
  KUBELET_NO_CLIENT_CA,
  KUBELET_CERT_ROTATION,
  KUBELET_WEAK_CIPHERS,
  KUBELET_STREAMING_TIMEOUT,
  KUBELET_PROTECT_KERNEL_DEFAULTS,
  KUBELET_EVENT_QPS,
  KUBELET_IPTABLES_UTIL_CHAINS,
  KUBELET_CGROUP_DRIVER,
  KUBELET_CLUSTER_DNS,
  KUBELET_CLUSTER_DOMAIN,
  KUBELET_STUB_RESOLVER,
  KUBELET_REMOVED_FLAGS,
  KUBELET_DEPRECATED_FLAGS,
  KUBELET_FLAG_OVERRIDES,
  KUBELET_VERSION_SKEW,
  KUBELET_STATIC_POD_PATH,
  KUBELET_EVICTION,
  KUBELET_SWAP,
  KUBELET_NODE_STATUS,
]
