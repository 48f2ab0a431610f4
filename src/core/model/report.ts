// The Report: the one result shape every diagnostic command produces and every renderer consumes.
// Findings are data, never exceptions. The JSON form is versioned (apiVersion/kind) and described by
// schemas/report.schema.json; a test validates real output against it.

export const API_GROUP = 'node-doctor.io'
export const REPORT_API_VERSION = `${API_GROUP}/v1alpha1`

export const AREAS = ['kubelet', 'proxy-mode', 'iptables', 'ipvs', 'nftables', 'routes', 'dns', 'endpoints', 'conntrack'] as const
export type Area = (typeof AREAS)[number]

export const SEVERITIES = ['error', 'warning', 'info'] as const
export type Severity = (typeof SEVERITIES)[number]

const SEVERITY_RANK: Record<Severity, number> = {error: 3, warning: 2, info: 1}

/** True when `severity` is at least as severe as `threshold` (error > warning > info). */
export function severityAtLeast(severity: Severity, threshold: Severity): boolean {
  return SEVERITY_RANK[severity] >= SEVERITY_RANK[threshold]
}

/** Sort key helper: more severe first. */
export function compareSeverity(a: Severity, b: Severity): number {
  return SEVERITY_RANK[b] - SEVERITY_RANK[a]
}

/**
 * What a finding is about. `kind` names the sort of thing (a Kubernetes kind such as `Service`, or a node-level
 * thing: `chain`, `rule`, `route`, `file`, `field`, `virtual-server`, `ipset`, `nft-object`, `module`, `sysctl`,
 * `process`); `name` identifies it within that kind (for a rule: the chain and rule text).
 */
export interface Subject {
  kind: string
  name: string
  namespace?: string
  /** Table, file path or other container of the subject, when it matters (e.g. `nat`, `/var/lib/kubelet/config.yaml`). */
  in?: string
}

export interface Finding {
  /** Stable check id from the catalog (`node-doctor checks`). */
  id: string
  node: string
  area: Area
  severity: Severity
  message: string
  subject: Subject
  /** Raw lines that prove the finding (rules, routes, config lines, log lines). */
  evidence: string[]
  remedy: string
  /** Groups findings that belong together, e.g. the Service port `ns/name:port` for rule diffs. */
  group?: string
  /** What the finding breaks for traffic from its node (src/core/impact); absent when it breaks nothing countable. */
  impact?: FindingImpact
}

/** The Services and pods a finding cuts off from its node (src/core/impact). */
export interface FindingImpact {
  /** For people: `svc kube-system/kube-dns (1 of 2 endpoints), shop/web (1 of 3)`, or `all forwarded traffic ...`. */
  summary: string
  /** Each Service (`ns/name`, with `port` when only one port is hit) with the endpoint IPs lost and how many it has. */
  services: ImpactedService[]
  /** Pods (`ns/name`) whose IPs are unreachable from the node because of it. */
  pods?: string[]
  /** Everything the node forwards (IP forwarding off, FORWARD dropping): every Service's endpoints, not a list. */
  all?: boolean
  /** With `all`: only this family's traffic (IPv6 forwarding off on a dual-stack node). */
  family?: 'ipv4' | 'ipv6'
}

export interface ImpactedService {
  service: string
  port?: string
  /** The ready endpoint IPs lost (all of them when the whole Service port is hit). */
  endpoints: string[]
  /** The Service's ready endpoint IPs in all. */
  total: number
}

export type CheckStatus = 'passed' | 'failed' | 'skipped'

/** One check evaluated on one node: the basis of JUnit testcases and of "what was looked at". */
export interface CheckResult {
  id: string
  node: string
  area: Area
  status: CheckStatus
  /** Why a check was skipped (missing input, not applicable to the proxy mode, ...). */
  reason?: string
}

/** Something that could not be gathered. A node with collection errors still gets whatever could be checked. */
export interface CollectionError {
  /** Absent for cluster-wide failures (e.g. a forbidden list). */
  node?: string
  /** What was being gathered: `ssh`, `iptables-save`, `list services`, ... */
  source: string
  message: string
  /** For a failed API read: the resource (`services`, `nodes/proxy`, `pods/log`), so checks need not parse `source`. */
  resource?: string
  /** For a failed API read: `list` or `get`. */
  verb?: 'list' | 'get'
  /** True when nothing at all could be collected from the node. */
  fatal?: boolean
}

export type NodeStatus = 'healthy' | 'unhealthy' | 'partial' | 'uncollected'

/**
 * One fact the expected state was computed from, and where it came from: `kube-proxy version` `v1.37.2` from
 * `pod kube-system/kube-proxy-x2x9k`; `masquerade bit` `14` from `default`. Sources that are not read from
 * anything start with `default` or `assumed`.
 */
export interface Assumption {
  /** What: `kube-proxy version`, `mode`, `IP family`, `iptables backend`, `nodePortAddresses`, `node addresses`, `localhost NodePorts`, `detectLocalMode`, `masquerade bit`, `feature gates`, `ServiceCIDRs`. */
  name: string
  value: string
  source: string
  /** What the reader should know about it: sources that disagree, a deprecated source, a layout used instead. */
  notes?: string[]
}

export interface NodeSummary {
  name: string
  status: NodeStatus
  findings: Record<Severity, number>
  durationMs?: number
  /** The facts the node's expected kube-proxy state was computed from; absent when none was computed. */
  assumptions?: Assumption[]
  /** What runs where on the node (core/layout): distribution, kubelet config, kube-proxy, CNI, who implements Services. */
  layout?: NodeLayout
}

/** A node's resolved layout as reports carry it: one line for people, the structure for tools. */
export interface NodeLayout {
  /** `k3s v1.33.4+k3s1 · kube-proxy embedded, iptables · flannel vxlan`. */
  summary: string
  /** kubeadm, k3s, rke2, eks-al2, eks-al2023, gke-cos, aks, bottlerocket, talos or unknown. */
  distribution: string
  version?: string
  kubelet: {configPaths: string[]; configDirs: string[]; source: string}
  kubeProxy: {where: string; detail: string; mode?: string}
  cni: {name: string; mode?: string}
  servicesOwner: {owner: string; reason: string; kubeProxyAlsoRunning?: string}
  clusterDNS?: string
  /** Whether the node's own discovery was read (false: resolved from the API alone). */
  discovered: boolean
  /** Where each conclusion came from. */
  evidence: string[]
}

export type ReportStatus = 'healthy' | 'unhealthy' | 'partial'

export interface ReportSummary {
  status: ReportStatus
  nodes: {total: number; healthy: number; unhealthy: number; partial: number; uncollected: number}
  findings: Record<Severity, number> & {total: number}
  checks: Record<CheckStatus, number>
  collectionErrors: number
}

export interface ReportMetadata {
  generatedAt: string
  tool: {name: string; version: string}
  /** The command line that produced the report, e.g. `check --all`. */
  command: string
  context?: string
  /** Anything else worth recording about the run (kube-proxy version, proxy mode, input files). */
  annotations?: Record<string, string>
}

export interface Report {
  apiVersion: typeof REPORT_API_VERSION
  kind: 'Report'
  metadata: ReportMetadata
  summary: ReportSummary
  nodes: NodeSummary[]
  results: CheckResult[]
  findings: Finding[]
  collectionErrors: CollectionError[]
  /** Findings a baseline file suppressed (src/core/baseline.ts), with the entry's reason; absent when none was given. */
  suppressed?: SuppressedFinding[]
}

/** A finding hidden by a baseline entry: kept for the record, never counted or failing. */
export type SuppressedFinding = Finding & {reason: string}

export interface ReportInput {
  metadata: ReportMetadata
  nodes: Array<{name: string; durationMs?: number; layout?: NodeLayout; assumptions?: Assumption[]}>
  results?: CheckResult[]
  findings?: Finding[]
  collectionErrors?: CollectionError[]
}

function emptyCounts(): Record<Severity, number> {
  return {error: 0, warning: 0, info: 0}
}

/**
 * Builds a Report with its summary derived from the findings, results and collection errors.
 * Pure: the caller supplies the timestamp. Findings are sorted (node, severity, area, id, subject) so that
 * output is deterministic whatever order checks ran in.
 */
export function buildReport(input: ReportInput): Report {
  const findings = [...(input.findings ?? [])].sort(
    (a, b) =>
      a.node.localeCompare(b.node) ||
      compareSeverity(a.severity, b.severity) ||
      a.area.localeCompare(b.area) ||
      a.id.localeCompare(b.id) ||
      (a.group ?? '').localeCompare(b.group ?? '') ||
      a.subject.name.localeCompare(b.subject.name),
  )
  const results = [...(input.results ?? [])].sort((a, b) => a.node.localeCompare(b.node) || a.id.localeCompare(b.id))
  const collectionErrors = [...(input.collectionErrors ?? [])]

  const nodeNames = [...new Set(input.nodes.map((n) => n.name))]
  const durations = new Map(input.nodes.map((n) => [n.name, n.durationMs]))
  const layouts = new Map(input.nodes.map((n) => [n.name, n.layout]))
  const assumptions = new Map(input.nodes.flatMap((n) => (n.assumptions !== undefined ? [[n.name, n.assumptions] as const] : [])))
  const nodes: NodeSummary[] = nodeNames.sort().map((name) => {
    const counts = emptyCounts()
    for (const f of findings) if (f.node === name) counts[f.severity]++
    const errors = collectionErrors.filter((e) => e.node === name)
    let status: NodeStatus
    if (errors.some((e) => e.fatal)) status = 'uncollected'
    else if (counts.error + counts.warning > 0) status = 'unhealthy'
    else if (errors.length > 0) status = 'partial'
    else status = 'healthy'
    const summary: NodeSummary = {name, status, findings: counts}
    const d = durations.get(name)
    if (d !== undefined) summary.durationMs = d
    const layout = layouts.get(name)
    if (layout !== undefined) summary.layout = layout
    const a = assumptions.get(name)
    if (a !== undefined) summary.assumptions = a
    return summary
  })

  const totals = emptyCounts()
  for (const f of findings) totals[f.severity]++
  const checks: Record<CheckStatus, number> = {passed: 0, failed: 0, skipped: 0}
  for (const r of results) checks[r.status]++

  const count = (s: NodeStatus) => nodes.filter((n) => n.status === s).length
  const status: ReportStatus =
    totals.error + totals.warning > 0 ? 'unhealthy' : collectionErrors.length > 0 ? 'partial' : 'healthy'

  return {
    apiVersion: REPORT_API_VERSION,
    kind: 'Report',
    metadata: input.metadata,
    summary: {
      status,
      nodes: {
        total: nodes.length,
        healthy: count('healthy'),
        unhealthy: count('unhealthy'),
        partial: count('partial'),
        uncollected: count('uncollected'),
      },
      findings: {...totals, total: findings.length},
      checks,
      collectionErrors: collectionErrors.length,
    },
    nodes,
    results,
    findings,
    collectionErrors,
  }
}
