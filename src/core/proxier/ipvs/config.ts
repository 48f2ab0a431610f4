// The IPVS part of the kube-proxy configuration (`ipvs:` in KubeProxyConfiguration, with kube-proxy's defaults).
// Mirrors pkg/proxy/apis/config/types.go KubeProxyIPVSConfiguration, validation.go (schedulers, excludeCIDRs) and
// pkg/proxy/ipvs/proxier.go NewProxier (empty scheduler → rr).
import {ParseError} from '../../../errors.js'
import {cidrContains, type IpFamily, parseCIDRSloppy, parseIPSloppy} from '../../net/ip.js'

/** Schedulers kube-proxy's validation accepts (validateIPVSSchedulerMethod). */
export const IPVS_SCHEDULERS = ['rr', 'wrr', 'lc', 'wlc', 'lblc', 'lblcr', 'dh', 'sh', 'sed', 'nq', 'mh'] as const
export type IpvsScheduler = (typeof IPVS_SCHEDULERS)[number]

export const DEFAULT_IPVS_SCHEDULER: IpvsScheduler = 'rr'

export interface IpvsOptions {
  /** ipvs.scheduler, '' → rr. */
  scheduler: IpvsScheduler
  strictARP: boolean
  /** ipvs.tcpTimeout/tcpFinTimeout/udpTimeout in seconds; 0 leaves the kernel's value. */
  tcpTimeoutSeconds: number
  tcpFinTimeoutSeconds: number
  udpTimeoutSeconds: number
  /** ipvs.excludeCIDRs: virtual servers on these addresses are never deleted by kube-proxy (any family). */
  excludeCIDRs: string[]
}

function fail(path: string, detail: string): never {
  throw new ParseError(`kube-proxy configuration: ${path}: ${detail}`)
}

/** Go duration text (`900s`, `15m`, `1h30m`, `0s`) in whole seconds; a number is taken as nanoseconds, as Go's JSON does. */
function durationSeconds(v: unknown, path: string): number {
  if (v === undefined || v === null) return 0
  if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return Math.floor(v / 1e9)
  if (typeof v !== 'string') fail(path, `expected a duration such as 900s, got ${JSON.stringify(v)}`)
  if (v === '0' || v === '') return 0
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/gy
  let total = 0
  let m: RegExpExecArray | null
  let end = 0
  while ((m = re.exec(v)) !== null) {
    const unit = {ns: 1e-9, us: 1e-6, µs: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600}[m[2] as 'ns']
    total += Number(m[1]) * unit
    end = re.lastIndex
  }
  if (end !== v.length || end === 0) fail(path, `"${v}" is not a duration (e.g. 900s, 15m)`)
  return Math.floor(total)
}

/**
 * IpvsOptions from a raw (already parsed) KubeProxyConfiguration, kube-proxy's defaults for every unset field.
 * Throws ParseError naming the field when a value has the wrong type or is invalid.
 */
export function ipvsOptionsFromKubeProxyConfig(raw: Record<string, unknown> | undefined): IpvsOptions {
  const ipvs = raw?.ipvs
  if (ipvs !== undefined && ipvs !== null && (typeof ipvs !== 'object' || Array.isArray(ipvs))) fail('ipvs', 'expected a mapping')
  const o = (ipvs ?? {}) as Record<string, unknown>
  const scheduler = o.scheduler ?? ''
  if (typeof scheduler !== 'string') fail('ipvs.scheduler', `expected a string, got ${JSON.stringify(scheduler)}`)
  if (scheduler !== '' && !(IPVS_SCHEDULERS as readonly string[]).includes(scheduler)) {
    fail('ipvs.scheduler', `unknown scheduler "${scheduler}" (one of ${IPVS_SCHEDULERS.join(', ')})`)
  }
  const strictARP = o.strictARP ?? false
  if (typeof strictARP !== 'boolean') fail('ipvs.strictARP', `expected true or false, got ${JSON.stringify(strictARP)}`)
  const exclude = o.excludeCIDRs ?? []
  if (!Array.isArray(exclude)) fail('ipvs.excludeCIDRs', 'expected a list of CIDRs')
  const excludeCIDRs = exclude.map((c, i) => {
    if (typeof c !== 'string' || !parseCIDRSloppy(c)) fail(`ipvs.excludeCIDRs[${i}]`, `${JSON.stringify(c)} is not a CIDR`)
    return c
  })
  return {
    scheduler: (scheduler || DEFAULT_IPVS_SCHEDULER) as IpvsScheduler,
    strictARP,
    tcpTimeoutSeconds: durationSeconds(o.tcpTimeout, 'ipvs.tcpTimeout'),
    tcpFinTimeoutSeconds: durationSeconds(o.tcpFinTimeout, 'ipvs.tcpFinTimeout'),
    udpTimeoutSeconds: durationSeconds(o.udpTimeout, 'ipvs.udpTimeout'),
    excludeCIDRs,
  }
}

/** The configured proxy mode (`mode:`), '' → iptables, as kube-proxy defaults it on Linux. */
export function configuredProxyMode(raw: Record<string, unknown> | undefined): string {
  const mode = raw?.mode
  return typeof mode === 'string' && mode !== '' ? mode : 'iptables'
}

/** Whether `address` lies in one of the excluded CIDRs of its family (cleanLegacyService's isIPInExcludeCIDRs). */
export function inExcludeCIDRs(address: string, excludeCIDRs: readonly string[], family: IpFamily): boolean {
  const ip = parseIPSloppy(address)
  if (!ip || ip.family !== family) return false
  return excludeCIDRs.some((c) => {
    const cidr = parseCIDRSloppy(c)
    return cidr !== undefined && cidrContains(cidr, ip)
  })
}
