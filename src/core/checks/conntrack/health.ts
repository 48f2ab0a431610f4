// CT-002..004: the conntrack table's capacity and health on the node (issue #19 item 4): how full the table is, whether
// the kernel is failing to insert or dropping entries right now, and whether nf_conntrack_max is below what
// kube-proxy's conntrack settings give it. Every Service connection needs a conntrack entry: a full table drops new
// connections, and insert races (insert_failed) are the classic 5 s DNS stall (kubernetes/kubernetes#56903).
import {factKey} from '../../facts/node-facts.js'
import type {Parsed} from '../../facts/types.js'
import type {ClusterSnapshot} from '../../model/snapshot.js'
import {type ConntrackStats, type ConntrackStatsRead, conntrackCounterTotal, parseConntrackStats} from '../../parse/conntrack.js'
import {parseSysctl, type Sysctls, sysctlValue} from '../../parse/sysctl.js'
import type {CheckContext, CheckOutcome, CheckSpec, FindingDraft} from '../types.js'
import {factsOf} from '../types.js'

/** Fill ratios (count / max) at which CT-002 warns and errs. */
export const CONNTRACK_FILL_WARNING = 0.8
export const CONNTRACK_FILL_ERROR = 0.95

export const CT_TABLE_FULL: CheckSpec = {
  id: 'CT-002',
  area: 'conntrack',
  severity: 'error',
  title: 'The conntrack table is nearly full (nf_conntrack_count at 80 % of nf_conntrack_max: warning; 95 %: error)',
  looksAt:
    "`net.netfilter.nf_conntrack_count` and `net.netfilter.nf_conntrack_max` from the node's `sysctls` artifact (read in the host's network namespace; " +
    'the count is per network namespace). Both keys exist only while the nf_conntrack module is loaded: without them the check says it cannot tell.',
  why:
    'When the table is full the kernel first evicts a not-yet-assured entry (early_drop) and otherwise drops the packet that would create a new entry: ' +
    'new connections to Services, pods and the node itself time out at random while established ones keep working, and the kernel logs ' +
    '"nf_conntrack: table full, dropping packet" (kubernetes/kubernetes#71261, #18604). Above 80 % a traffic burst or a connection leak is enough to get there.',
  remedy:
    'Find who holds the entries (`conntrack -L -o extended | awk \'{print $3}\' | sort | uniq -c` per protocol, `conntrack -L -p tcp --state TIME_WAIT | wc -l`), ' +
    'then raise the limit: `sysctl -w net.netfilter.nf_conntrack_max=N` now, and kube-proxy\'s `conntrack.maxPerCore`/`conntrack.min` (kube-proxy sets the limit when it starts) ' +
    'or a file in /etc/sysctl.d for a lasting value. Each entry costs about 300 bytes of kernel memory.',
  requires: ['sysctls'],
}

export const CT_DROPS: CheckSpec = {
  id: 'CT-003',
  area: 'conntrack',
  severity: 'warning',
  title: 'conntrack is failing inserts or dropping packets right now (insert_failed, drop or early_drop growing)',
  looksAt:
    "The per-CPU counters of `conntrack -S`, read at the start and at the end of the node's collection (the `conntrack-stats` and `conntrack-stats-end` plan items, " +
    "each stamped with the node's uptime), summed over the CPUs: `insert_failed`, `drop` and `early_drop` that grew between the two reads. Counters that are non-zero " +
    'but did not move are history since boot and raise nothing; a collection too short for anything to happen simply finds nothing.',
  why:
    '`insert_failed` growing means packets lose the race to insert their conntrack entry: two UDP packets of one socket sent at once (glibc sends the A and AAAA ' +
    'queries together) and one of them is dropped, the classic 5 s DNS stall (kubernetes/kubernetes#56903). `early_drop` growing means the table is full and ' +
    'the kernel evicts entries to make room; `drop` growing means it could not and drops new connections.',
  remedy:
    'For insert_failed on DNS: `options single-request-reopen` (glibc) or `use-vc` in the pods\' dnsConfig, node-local-dns (which avoids conntrack for DNS), or a kernel ' +
    'with the clash-resolution fixes (5.0+). For drop/early_drop: see CT-002 (raise `net.netfilter.nf_conntrack_max`, find who fills the table). ' +
    'Watch the counters with `conntrack -S` (or `cat /proc/net/stat/nf_conntrack`).',
  requires: ['conntrack-stats', 'conntrack-stats-end'],
}

export const CT_MAX_BELOW_KUBE_PROXY: CheckSpec = {
  id: 'CT-004',
  area: 'conntrack',
  severity: 'warning',
  title: "nf_conntrack_max (or nf_conntrack_tcp_be_liberal) is below what kube-proxy's conntrack settings set at start: something reset it",
  looksAt:
    "kube-proxy's `conntrack.maxPerCore` and `conntrack.min` (its running configuration from `/configz` where it answered, else the kube-proxy ConfigMap and flags with " +
    "kube-proxy's defaults, 32768 and 131072), the node's CPU count (the Node's `status.capacity.cpu`, as kube-proxy counts CPUs) and `net.netfilter.nf_conntrack_max` from " +
    'the `sysctls` artifact. kube-proxy sets nf_conntrack_max to max(maxPerCore x CPUs, min) when it starts (cmd/kube-proxy, getConntrackMax; nothing when maxPerCore is 0). ' +
    'Also `conntrack.tcpBeLiberal` (v1.29+) against `net.netfilter.nf_conntrack_tcp_be_liberal`.',
  why:
    'kube-proxy writes these sysctls only when it starts. A lower value on a running node means something set it afterwards (a `sysctl --system` with an older ' +
    'file, a tuning daemon, a node image default) or kube-proxy could not write it (read-only /proc/sys or /sys): the table fills earlier than the cluster ' +
    'was sized for. With tcpBeLiberal configured but the sysctl back at 0, kube-proxy (which decided at start) no longer drops invalid packets itself while the ' +
    'kernel marks out-of-window TCP packets INVALID again, so long connections can be reset.',
  remedy:
    'Find what lowers it (`grep -r nf_conntrack /etc/sysctl.conf /etc/sysctl.d /usr/lib/sysctl.d /run/sysctl.d`), remove that, then restart the node\'s kube-proxy pod ' +
    '(or `sysctl -w net.netfilter.nf_conntrack_max=N` with the value the finding gives). If a lower limit is intended, set `conntrack.maxPerCore: 0` in kube-proxy\'s ' +
    'configuration so that kube-proxy leaves the sysctl alone.',
  requires: ['sysctls', 'cluster:nodes'],
}

const SYSCTLS = factKey<Parsed<Sysctls>>('conntrack: parsed sysctls')
const STATS = factKey<Parsed<ConntrackStats>>('conntrack: parsed conntrack -S, first read')
const STATS_END = factKey<Parsed<ConntrackStats>>('conntrack: parsed conntrack -S, last read')

/** A parse turned into a value or the problem that stopped it. */
function parseOnce<T>(artifact: string, parse: () => T): Parsed<T> {
  try {
    return {ok: true, value: parse()}
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err))
    return {ok: false, problem: {artifact, reason: e.message}, error: e}
  }
}

function sysctls(ctx: CheckContext): {ok: true; value: Sysctls} | {ok: false; reason: string} {
  const facts = factsOf(ctx)
  const text = facts.text('sysctls')
  if (text === undefined) return {ok: false, reason: 'missing input: sysctls'}
  const p = facts.derive(SYSCTLS, () => parseOnce('sysctls', () => parseSysctl(text, {source: 'sysctls'})))
  return p.ok ? p : {ok: false, reason: `the sysctls output could not be parsed: ${p.problem.reason}`}
}

/** A non-negative integer sysctl, or undefined. */
function intSysctl(s: Sysctls, key: string): number | undefined {
  const v = sysctlValue(s, key)
  return v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined
}

const subject = (key: string) => ({kind: 'sysctl', name: key})
const pct = (r: number) => `${(Math.floor(r * 1000) / 10).toFixed(1)} %`

// ---- CT-002 ----

export function checkTableFull(ctx: CheckContext): CheckOutcome {
  const s = sysctls(ctx)
  if (!s.ok) return {status: 'skipped', reason: s.reason}
  const count = intSysctl(s.value, 'net.netfilter.nf_conntrack_count')
  const max = intSysctl(s.value, 'net.netfilter.nf_conntrack_max')
  if (count === undefined || max === undefined) {
    return {status: 'skipped', reason: 'cannot tell: the sysctls output has no net.netfilter.nf_conntrack_count/nf_conntrack_max (nf_conntrack not loaded, or collected before these keys were read)'}
  }
  if (max === 0) return {status: 'skipped', reason: 'cannot tell: net.netfilter.nf_conntrack_max = 0'}
  const ratio = count / max
  if (ratio < CONNTRACK_FILL_WARNING) return {status: 'passed'}
  const error = ratio >= CONNTRACK_FILL_ERROR
  return {
    status: 'failed',
    findings: [
      {
        message: `The conntrack table is ${pct(ratio)} full (${count} of ${max} entries)${error ? ': new connections are about to be dropped (or already are: see CT-003)' : ''}`,
        subject: subject('net.netfilter.nf_conntrack_count'),
        severity: error ? 'error' : 'warning',
        evidence: [`net.netfilter.nf_conntrack_count = ${count}`, `net.netfilter.nf_conntrack_max = ${max}`, `thresholds: warning at ${CONNTRACK_FILL_WARNING * 100} %, error at ${CONNTRACK_FILL_ERROR * 100} %`],
      },
    ],
  }
}

// ---- CT-003 ----

/** The counters CT-003 watches, most severe first, with the severity of a finding on each. */
const WATCHED: ReadonlyArray<{counter: string; severity: 'error' | 'warning'; meaning: string}> = [
  {counter: 'drop', severity: 'error', meaning: 'new connections are dropped because no entry could be made (table full)'},
  {counter: 'early_drop', severity: 'warning', meaning: 'the table is full and the kernel evicts unassured entries to make room'},
  {counter: 'insert_failed', severity: 'warning', meaning: 'packets lost the race to insert their entry and were dropped (the 5 s DNS stall)'},
]

/** The first read of an artifact's `conntrack -S` output, or why there is none. */
function statsRead(ctx: CheckContext, id: 'conntrack-stats' | 'conntrack-stats-end'): {ok: true; read: ConntrackStatsRead} | {ok: false; reason: string} {
  const facts = factsOf(ctx)
  const text = facts.text(id)
  if (text === undefined) return {ok: false, reason: `missing input: ${id}`}
  const parsed = facts.derive(id === 'conntrack-stats' ? STATS : STATS_END, () => parseOnce(id, () => parseConntrackStats(text)))
  if (!parsed.ok) return {ok: false, reason: `the ${id} output (conntrack -S) could not be parsed: ${parsed.problem.reason}`}
  const read = parsed.value.reads[0]
  return read ? {ok: true, read} : {ok: false, reason: `the ${id} output has no CPU lines`}
}

export function checkDrops(ctx: CheckContext): CheckOutcome {
  const a = statsRead(ctx, 'conntrack-stats')
  if (!a.ok) return {status: 'skipped', reason: a.reason}
  const b = statsRead(ctx, 'conntrack-stats-end')
  if (!b.ok) return {status: 'skipped', reason: `cannot tell: conntrack -S was read once, not twice, so no counter can be seen growing (${b.reason})`}
  const first = a.read
  const second = b.read
  const seconds = first.uptime !== undefined && second.uptime !== undefined ? second.uptime - first.uptime : undefined
  if (seconds !== undefined && seconds <= 0) return {status: 'skipped', reason: `cannot tell: the two conntrack -S reads were not taken one after the other (uptime ${first.uptime} then ${second.uptime})`}
  const over = seconds === undefined ? 'between the two reads' : `in ${seconds.toFixed(1)} s`
  const findings: FindingDraft[] = []
  const missing: string[] = []
  for (const w of WATCHED) {
    const before = conntrackCounterTotal(first, w.counter)
    const after = conntrackCounterTotal(second, w.counter)
    if (before === undefined || after === undefined) {
      missing.push(w.counter)
      continue
    }
    // A smaller second value means the counters were reset or wrapped: nothing to judge.
    if (after <= before) continue
    const perCpu = second.cpus
      .map((c) => ({cpu: c.cpu, delta: (c.counters[w.counter] ?? 0) - (first.cpus.find((f) => f.cpu === c.cpu)?.counters[w.counter] ?? 0)}))
      .filter((d) => d.delta > 0)
    findings.push({
      message: `conntrack ${w.counter} grew by ${after - before} ${over} (${before} -> ${after}, summed over ${second.cpus.length} CPUs): ${w.meaning}`,
      subject: {kind: 'conntrack-counter', name: w.counter},
      severity: w.severity,
      evidence: [`${w.counter}: ${before} -> ${after}`, ...perCpu.slice(0, 8).map((d) => `cpu=${d.cpu} ${w.counter} +${d.delta}`)],
    })
  }
  if (findings.length > 0) return {status: 'failed', findings}
  if (missing.length === WATCHED.length) return {status: 'skipped', reason: 'cannot tell: conntrack -S prints none of insert_failed, drop, early_drop'}
  return {status: 'passed'}
}

// ---- CT-004 ----

/** The node's CPU count as the Node reports it (status.capacity.cpu: cAdvisor's count, which kube-proxy also uses). */
export function nodeCpuCount(cluster: ClusterSnapshot, node: string): number | undefined {
  const n = cluster.nodes.find((x) => x.metadata.name === node)
  // NOTE: the model's Node type does not declare capacity; the API object carries it.
  const cpu = (n?.status as {capacity?: Record<string, string>} | undefined)?.capacity?.['cpu']
  if (cpu === undefined) return undefined
  if (/^\d+$/.test(cpu)) return Number(cpu)
  const milli = /^(\d+)m$/.exec(cpu)
  return milli ? Math.floor(Number(milli[1]) / 1000) || undefined : undefined
}

/** kube-proxy's nf_conntrack_max for its settings (cmd/kube-proxy getConntrackMax): 0 means it leaves the sysctl alone. */
export function kubeProxyConntrackMax(maxPerCore: number, min: number, cpus: number): number {
  if (maxPerCore <= 0) return 0
  return Math.max(maxPerCore * cpus, min)
}

interface ConntrackSettings {
  maxPerCore: number
  min: number
  tcpBeLiberal: boolean
  source: string
}

const intOr = (v: unknown, d: number) => (typeof v === 'number' && Number.isInteger(v) ? v : d)

/** kube-proxy's conntrack settings: the running configuration (/configz) where it reports them, else the configured one. */
function conntrackSettings(ctx: CheckContext): {ok: true; value: ConntrackSettings} | {ok: false; reason: string} {
  const facts = factsOf(ctx)
  const running = facts.kubeProxyConfig.running
  if (running && running.presentPaths.includes('/conntrack/maxPerCore')) {
    const c = (running.config.values['conntrack'] ?? {}) as Record<string, unknown>
    return {ok: true, value: {maxPerCore: intOr(c['maxPerCore'], 0), min: intOr(c['min'], 0), tcpBeLiberal: c['tcpBeLiberal'] === true, source: 'kube-proxy /configz (the running configuration)'}}
  }
  const p = facts.proxy
  if (!p.configured) return {ok: false, reason: `cannot tell kube-proxy's conntrack settings: ${p.configuredUnknown ?? 'its configuration is unknown'}`}
  const c = (p.configured.config.values['conntrack'] ?? {}) as Record<string, unknown>
  const origin = p.configured.config.origins['/conntrack/maxPerCore']
  const where = origin?.kind === 'flag' ? `flag ${origin.detail ?? '--conntrack-max-per-core'}` : origin?.kind === 'default' || origin === undefined ? "kube-proxy's defaults" : 'the kube-proxy ConfigMap'
  // Defaults are applied to the configured values, so an unset field reads as kube-proxy's default.
  return {ok: true, value: {maxPerCore: intOr(c['maxPerCore'], 32768), min: intOr(c['min'], 131072), tcpBeLiberal: c['tcpBeLiberal'] === true, source: `the configured kube-proxy settings (${where})`}}
}

export function checkMaxBelowKubeProxy(ctx: CheckContext): CheckOutcome {
  const s = sysctls(ctx)
  if (!s.ok) return {status: 'skipped', reason: s.reason}
  const settings = conntrackSettings(ctx)
  if (!settings.ok) return {status: 'skipped', reason: settings.reason}
  const {maxPerCore, min, tcpBeLiberal, source} = settings.value
  const findings: FindingDraft[] = []
  const unknown: string[] = []
  const nodeMax = intSysctl(s.value, 'net.netfilter.nf_conntrack_max')
  if (maxPerCore > 0) {
    const cpus = nodeCpuCount(ctx.cluster, ctx.node.node)
    if (cpus === undefined) unknown.push("the node's CPU count (the Node has no status.capacity.cpu)")
    else if (nodeMax === undefined) unknown.push('net.netfilter.nf_conntrack_max (not in the sysctls output)')
    else {
      const want = kubeProxyConntrackMax(maxPerCore, min, cpus)
      if (nodeMax < want) {
        findings.push({
          message: `net.netfilter.nf_conntrack_max = ${nodeMax}, below the ${want} kube-proxy sets at start (max(maxPerCore ${maxPerCore} x ${cpus} CPUs, min ${min})): something lowered it after kube-proxy started, or kube-proxy could not write it`,
          subject: subject('net.netfilter.nf_conntrack_max'),
          evidence: [`net.netfilter.nf_conntrack_max = ${nodeMax}`, `conntrack.maxPerCore: ${maxPerCore}, conntrack.min: ${min} (${source})`, `CPUs: ${cpus} (the Node's status.capacity.cpu)`],
          remedy: `On ${ctx.node.node}: find what lowers it (\`grep -r nf_conntrack_max /etc/sysctl.conf /etc/sysctl.d /usr/lib/sysctl.d /run/sysctl.d\`), then \`sysctl -w net.netfilter.nf_conntrack_max=${want}\` or restart the node's kube-proxy pod. If the lower limit is intended, set conntrack.maxPerCore: 0 so kube-proxy leaves it alone.`,
        })
      }
    }
  }
  if (tcpBeLiberal) {
    const v = sysctlValue(s.value, 'net.netfilter.nf_conntrack_tcp_be_liberal')
    if (v === undefined) unknown.push('net.netfilter.nf_conntrack_tcp_be_liberal (not in the sysctls output)')
    else if (v === '0') {
      findings.push({
        message: 'net.netfilter.nf_conntrack_tcp_be_liberal = 0 although kube-proxy is configured with conntrack.tcpBeLiberal: true and sets it to 1 at start: something reset it',
        subject: subject('net.netfilter.nf_conntrack_tcp_be_liberal'),
        evidence: ['net.netfilter.nf_conntrack_tcp_be_liberal = 0', `conntrack.tcpBeLiberal: true (${source})`],
        remedy: `On ${ctx.node.node}: \`sysctl -w net.netfilter.nf_conntrack_tcp_be_liberal=1\`, then find what reset it (\`grep -r tcp_be_liberal /etc/sysctl.conf /etc/sysctl.d /usr/lib/sysctl.d /run/sysctl.d\`).`,
      })
    }
  }
  if (findings.length > 0) return {status: 'failed', findings}
  if (maxPerCore <= 0 && !tcpBeLiberal) return {status: 'skipped', reason: `not applicable: kube-proxy's conntrack.maxPerCore is 0 (it leaves nf_conntrack_max alone) and tcpBeLiberal is off (${source})`}
  if (unknown.length > 0) return {status: 'skipped', reason: `cannot tell: ${unknown.join('; ')}`}
  return {status: 'passed'}
}
