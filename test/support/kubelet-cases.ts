// Kubelet worlds for the KUBELET check tests and fixture bundles. The baseline is a healthy kubeadm control-plane
// node `node-a` (kubelet v1.30.2, API server v1.30.4, containerd 1.7 with SystemdCgroup = true): config.yaml and
// the kube-system/kubelet-config ConfigMap as kubeadm writes them, kubeadm's 10-kubeadm.conf unit, and a /configz
// body computed from the running files (defaults + flags), as the kubelet would report it.
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {stringify} from 'yaml'
import {kubeletView} from '../../src/core/checks/kubelet/view.js'
import type {ConfigMap, Node, Pod, Service} from '../../src/core/model/k8s.js'
import type {ClusterSnapshot, NodeSnapshot} from '../../src/core/model/snapshot.js'
import {clusterSnapshot, nodeSnapshot, service} from './calico-dns-builders.js'
import {FIXTURES} from './golden.js'

export const NODE = 'node-a'
type Json = null | boolean | number | string | Json[] | {[k: string]: Json}
export type KubeletDoc = {[k: string]: Json}

/** /var/lib/kubelet/config.yaml as kubeadm 1.30 writes it (zero values meaning "default" included). */
export function kubeadmKubeletConfig(): KubeletDoc {
  return {
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
    authentication: {anonymous: {enabled: false}, webhook: {cacheTTL: '0s', enabled: true}, x509: {clientCAFile: '/etc/kubernetes/pki/ca.crt'}},
    authorization: {mode: 'Webhook', webhook: {cacheAuthorizedTTL: '0s', cacheUnauthorizedTTL: '0s'}},
    cgroupDriver: 'systemd',
    clusterDNS: ['10.96.0.10'],
    clusterDomain: 'cluster.local',
    containerRuntimeEndpoint: 'unix:///var/run/containerd/containerd.sock',
    cpuManagerReconcilePeriod: '0s',
    evictionPressureTransitionPeriod: '0s',
    fileCheckFrequency: '0s',
    healthzBindAddress: '127.0.0.1',
    healthzPort: 10248,
    httpCheckFrequency: '0s',
    imageMaximumGCAge: '0s',
    imageMinimumGCAge: '0s',
    logging: {flushFrequency: 0, options: {json: {infoBufferSize: '0'}, text: {infoBufferSize: '0'}}, verbosity: 0},
    memorySwap: {},
    nodeStatusReportFrequency: '0s',
    nodeStatusUpdateFrequency: '0s',
    protectKernelDefaults: true,
    resolvConf: '/run/systemd/resolve/resolv.conf',
    rotateCertificates: true,
    runtimeRequestTimeout: '0s',
    shutdownGracePeriod: '0s',
    shutdownGracePeriodCriticalPods: '0s',
    staticPodPath: '/etc/kubernetes/manifests',
    streamingConnectionIdleTimeout: '0s',
    syncFrequency: '0s',
    volumeStatsAggPeriod: '0s',
  }
}

/** kubeadm writes keys sorted, apiVersion/kind included. */
export function toYaml(doc: KubeletDoc): string {
  const sorted = Object.fromEntries(Object.entries(doc).sort(([a], [b]) => a.localeCompare(b)))
  return stringify(sorted)
}

const UNIT = readFileSync(join(FIXTURES, 'config/kubelet/systemctl-cat-kubeadm.txt'), 'utf8')
const CONTAINERD_V2 = readFileSync(join(FIXTURES, 'config/runtime/containerd-v2.toml'), 'utf8')
/** containerd-v2.toml with the runc runtime on the systemd driver (what kubeadm's docs ask for). */
export const CONTAINERD_SYSTEMD = CONTAINERD_V2.replace(/(runtimes\.runc\.options\]\n\s*BinaryName = ""\n\s*)SystemdCgroup = false/, '$1SystemdCgroup = true')
export const CONTAINERD_CGROUPFS = CONTAINERD_V2
export const COREFILE = `.:53 {
    errors
    health {
       lameduck 5s
    }
    ready
    kubernetes cluster.local in-addr.arpa ip6.arpa {
       pods insecure
       fallthrough in-addr.arpa ip6.arpa
       ttl 30
    }
    prometheus :9153
    forward . /etc/resolv.conf {
       max_concurrent 1000
    }
    cache 30
    loop
    reload
    loadbalance
}
`

export interface KubeletWorld {
  config: KubeletDoc
  /** Config the running kubelet was started with (default: `config`): differences mean "not restarted". */
  runningConfig?: KubeletDoc
  /** ConfigMap kube-system/kubelet-config's `kubelet` key (default: `config` without resolvConf); null = no ConfigMap. */
  intended?: KubeletDoc | null
  dropIns?: Array<{name: string; text: string}>
  kubeadmFlags?: string
  /** The user's KUBELET_EXTRA_ARGS file (default: the empty /etc/sysconfig/kubelet the packages ship); null = absent. */
  extraArgs?: ExtraArgsFile | null
  /** Unit text; null = not collected. */
  unit?: string | null
  containerd?: string
  resolvConf?: string
  kubeletVersion?: string
  serverVersion?: string
  runtimeVersion?: string
  controlPlane?: boolean
  dnsIP?: string | null
  corefile?: string
  pods?: Pod[]
  /** No /configz for the node (nodes/proxy forbidden). */
  noConfigz?: boolean
}

export const DEFAULT_FLAGS = 'KUBELET_KUBEADM_ARGS="--node-ip=192.168.0.11"\n'

export interface ExtraArgsFile {
  path: '/etc/default/kubelet' | '/etc/sysconfig/kubelet'
  text: string
}
/** The file's plan artifact per path. */
const EXTRA_ARGS_ARTIFACT: Record<ExtraArgsFile['path'], string> = {'/etc/default/kubelet': 'kubelet-default-env', '/etc/sysconfig/kubelet': 'kubelet-sysconfig-env'}
/** /etc/sysconfig/kubelet as the pkgs.k8s.io rpm installs it (the unit in the fixtures names this file). */
export const PACKAGED_EXTRA_ARGS: ExtraArgsFile = {path: '/etc/sysconfig/kubelet', text: 'KUBELET_EXTRA_ARGS=\n'}
export const sysconfigArgs = (args: string): ExtraArgsFile => ({path: '/etc/sysconfig/kubelet', text: `KUBELET_EXTRA_ARGS="${args}"\n`})
export const defaultArgs = (args: string): ExtraArgsFile => ({path: '/etc/default/kubelet', text: `# Managed by the node bootstrap\nKUBELET_EXTRA_ARGS=${args}\n`})

function nodeObject(w: KubeletWorld): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {name: NODE, labels: {'kubernetes.io/hostname': NODE, ...(w.controlPlane === false ? {} : {'node-role.kubernetes.io/control-plane': ''})}},
    status: {
      addresses: [{type: 'InternalIP', address: '192.168.0.11'}],
      conditions: [{type: 'Ready', status: 'True'}],
      nodeInfo: {kubeletVersion: w.kubeletVersion ?? 'v1.30.2', containerRuntimeVersion: w.runtimeVersion ?? 'containerd://1.7.22', kernelVersion: '6.8.0-45-generic', osImage: 'Ubuntu 24.04.1 LTS', architecture: 'amd64'},
    },
  } as Node
}

function configMap(name: string, data: Record<string, string>): ConfigMap {
  return {apiVersion: 'v1', kind: 'ConfigMap', metadata: {name, namespace: 'kube-system'}, data}
}

export function artifactsOf(w: KubeletWorld, config: KubeletDoc): Record<string, string> {
  const a: Record<string, string> = {
    'kubelet-config': toYaml(config),
    'kubeadm-flags': w.kubeadmFlags ?? DEFAULT_FLAGS,
    'containerd-config': w.containerd ?? CONTAINERD_SYSTEMD,
  }
  if (w.unit !== null) a['kubelet-unit'] = w.unit ?? UNIT
  const extra = w.extraArgs === undefined ? PACKAGED_EXTRA_ARGS : w.extraArgs
  if (extra !== null) a[EXTRA_ARGS_ARTIFACT[extra.path]] = extra.text
  if (w.dropIns && w.dropIns.length > 0) a['kubelet-dropins'] = w.dropIns.map((d) => `# node-doctor-file: ${d.name}\n${d.text}`).join('\n')
  if (w.resolvConf !== undefined) a['resolv-conf'] = w.resolvConf
  return a
}

/** The snapshots of a world; /configz is what the kubelet reports after starting from `runningConfig` and the flags. */
export function kubeletWorld(w: KubeletWorld): {cluster: ClusterSnapshot; node: NodeSnapshot} {
  const base = clusterSnapshot({nodes: [nodeObject(w)], serverVersion: w.serverVersion ?? 'v1.30.4'})
  const services: Service[] = w.dnsIP === null ? [] : [service('kube-system', 'kube-dns', w.dnsIP ?? '10.96.0.10', {'k8s-app': 'kube-dns'})]
  const intendedDoc = w.intended === undefined ? (({resolvConf: _r, ...rest}) => rest)(w.config) : w.intended
  const cms: ConfigMap[] = [configMap('coredns', {Corefile: w.corefile ?? COREFILE})]
  if (intendedDoc !== null) cms.push(configMap('kubelet-config', {kubelet: toYaml(intendedDoc)}))
  const cluster: ClusterSnapshot = {...base, services, configMaps: cms, pods: w.pods ?? []}
  if (!w.noConfigz) {
    // The kubelet's own view: compute from the files it started with, through the same defaulting and flags.
    const started = kubeletView({cluster, node: nodeSnapshot(NODE, artifactsOf(w, w.runningConfig ?? w.config))})
    if (!started.next.ok) throw new Error(`world cannot start: ${started.next.reason}`)
    cluster.configz = {[NODE]: JSON.stringify({kubeletconfig: started.next.value.values}, null, 2)}
  }
  return {cluster, node: nodeSnapshot(NODE, artifactsOf(w, w.config))}
}

const cfg = (patch: KubeletDoc): KubeletDoc => ({...kubeadmKubeletConfig(), ...patch})
const FLAGS = (args: string) => `KUBELET_KUBEADM_ARGS="--node-ip=192.168.0.11 ${args}"\n`

/** At least one fire case per check (the first is the one in cases.json); all stay quiet on `healthy`. */
export const KUBELET_CASES: Array<{id: string; name: string; world: KubeletWorld}> = [
  {id: 'KUBELET-001', name: 'edited-not-restarted', world: {config: cfg({maxPods: 250}), runningConfig: kubeadmKubeletConfig(), intended: cfg({maxPods: 250})}},
  {
    id: 'KUBELET-002',
    name: 'drifted-from-configmap',
    world: {
      config: kubeadmKubeletConfig(),
      dropIns: [{name: '/etc/kubernetes/kubelet.conf.d/50-max-pods.conf', text: 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmaxPods: 250\n'}],
      kubeadmFlags: FLAGS('--config-dir=/etc/kubernetes/kubelet.conf.d'),
    },
  },
  {id: 'KUBELET-003', name: 'schema-errors', world: {config: cfg({maxPods: 'many', evictonHard: {'memory.available': '200Mi'}}), noConfigz: true}},
  {id: 'KUBELET-004', name: 'rejected-at-start', world: {config: cfg({imageGCHighThresholdPercent: 85, imageGCLowThresholdPercent: 90}), noConfigz: true}},
  {id: 'KUBELET-005', name: 'anonymous-auth', world: {config: cfg({authentication: {anonymous: {enabled: true}, webhook: {enabled: true}, x509: {clientCAFile: '/etc/kubernetes/pki/ca.crt'}}})}},
  {id: 'KUBELET-006', name: 'always-allow', world: {config: cfg({authorization: {mode: 'AlwaysAllow'}})}},
  {id: 'KUBELET-007', name: 'read-only-port', world: {config: cfg({readOnlyPort: 10255})}},
  {id: 'KUBELET-008', name: 'no-client-ca', world: {config: cfg({authentication: {anonymous: {enabled: false}, webhook: {enabled: true}}})}},
  {id: 'KUBELET-009', name: 'no-cert-rotation', world: {config: cfg({rotateCertificates: false})}},
  {id: 'KUBELET-010', name: 'weak-ciphers', world: {config: cfg({tlsCipherSuites: ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'TLS_RSA_WITH_AES_128_CBC_SHA', 'TLS_RSA_WITH_3DES_EDE_CBC_SHA']})}},
  {id: 'KUBELET-011', name: 'streaming-timeout-zero', world: {config: kubeadmKubeletConfig(), kubeadmFlags: FLAGS('--streaming-connection-idle-timeout=0')}},
  {id: 'KUBELET-012', name: 'kernel-defaults-unprotected', world: {config: cfg({protectKernelDefaults: false})}},
  {id: 'KUBELET-013', name: 'event-qps-zero', world: {config: cfg({eventRecordQPS: 0})}},
  {id: 'KUBELET-014', name: 'no-iptables-util-chains', world: {config: cfg({makeIPTablesUtilChains: false})}},
  {id: 'KUBELET-015', name: 'cgroup-driver-mismatch', world: {config: kubeadmKubeletConfig(), containerd: CONTAINERD_CGROUPFS}},
  {id: 'KUBELET-016', name: 'stale-cluster-dns', world: {config: cfg({clusterDNS: ['10.32.0.10']})}},
  {id: 'KUBELET-017', name: 'cluster-domain-not-served', world: {config: cfg({clusterDomain: 'cluster.internal'})}},
  {id: 'KUBELET-018', name: 'stub-resolver', world: {config: cfg({resolvConf: '/etc/resolv.conf'}), resolvConf: 'nameserver 127.0.0.53\noptions edns0 trust-ad\nsearch .\n'}},
  {id: 'KUBELET-019', name: 'removed-flag', world: {config: kubeadmKubeletConfig(), kubeadmFlags: FLAGS('--network-plugin=cni'), noConfigz: true}},
  {id: 'KUBELET-020', name: 'deprecated-flag', world: {config: kubeadmKubeletConfig(), kubeadmFlags: FLAGS('--pod-infra-container-image=registry.k8s.io/pause:3.9')}},
  {id: 'KUBELET-021', name: 'flag-overrides-file', world: {config: cfg({maxPods: 110}), kubeadmFlags: FLAGS('--max-pods=250')}},
  {id: 'KUBELET-022', name: 'version-skew', world: {config: kubeadmKubeletConfig(), kubeletVersion: 'v1.26.15', serverVersion: 'v1.30.4'}},
  {id: 'KUBELET-023', name: 'no-static-pod-path', world: {config: cfg({staticPodPath: ''})}},
  {id: 'KUBELET-024', name: 'eviction-partial', world: {config: cfg({evictionHard: {'memory.available': '50Mi'}})}},
  {id: 'KUBELET-025', name: 'swap-without-behavior', world: {config: cfg({failSwapOn: false})}},
  {id: 'KUBELET-026', name: 'slow-status-updates', world: {config: cfg({nodeStatusUpdateFrequency: '20s'})}},
  // The same flag checks with the flag in the user's KUBELET_EXTRA_ARGS file rather than kubeadm-flags.env.
  {id: 'KUBELET-019', name: 'removed-flag-extra-args', world: {config: kubeadmKubeletConfig(), extraArgs: sysconfigArgs('--network-plugin=cni'), noConfigz: true}},
  {id: 'KUBELET-020', name: 'deprecated-flag-default-file', world: {config: kubeadmKubeletConfig(), unit: null, extraArgs: defaultArgs('--pod-infra-container-image=registry.k8s.io/pause:3.9')}},
  {id: 'KUBELET-021', name: 'flag-overrides-file-extra-args', world: {config: cfg({maxPods: 110}), extraArgs: sysconfigArgs('--max-pods=250')}},
]

export const HEALTHY: KubeletWorld = {config: kubeadmKubeletConfig()}
