// The mode kube-proxy actually runs: the /proxyMode body of its metrics server, and the startup log lines
// that name the proxier (cmd/kube-proxy/app/server_linux.go, older server_others.go), in klog text or JSON
// format. Includes the IPVS→iptables fallback of releases up to 1.25 and the hard failure from 1.26 on.
import {ParseError} from '../../errors.js'

import {RUNNING_PROXY_MODES, type RunningProxyMode} from '../model/kube-proxy-state.js'

export {RUNNING_PROXY_MODES, type RunningProxyMode} from '../model/kube-proxy-state.js'

/** Parses the body of `curl http://127.0.0.1:10249/proxyMode` (plain text, e.g. `iptables`). */
export function parseProxyModeBody(text: string): RunningProxyMode {
  const body = text.trim()
  if (body === '') throw new ParseError('the /proxyMode body is empty', 1)
  if ((RUNNING_PROXY_MODES as readonly string[]).includes(body)) return body as RunningProxyMode
  const firstLine = body.split(/\r?\n/)[0] ?? ''
  throw new ParseError(`unexpected /proxyMode body ${JSON.stringify(firstLine.slice(0, 60))}: expected one of ${RUNNING_PROXY_MODES.join(', ')}`, 1)
}

export type ProxierEventKind =
  /** "Using iptables Proxier" and friends: the mode it runs. */
  | 'using'
  /** "Can't use ipvs proxier, trying iptables proxier" (≤1.25): silently fell back. */
  | 'ipvs-fallback'
  /** "can't use the IPVS proxier" (from 1.26 fatal, before that followed by a fallback). */
  | 'ipvs-unusable'
  /** The IPVS deprecation warning (1.35+). */
  | 'ipvs-deprecated'
  /** An empty or unknown mode was turned into iptables. */
  | 'defaulted'
  /** A fatal startup error. */
  | 'fatal'

export interface ProxierEvent {
  kind: ProxierEventKind
  mode?: RunningProxyMode
  /** 1-based line in the log. */
  line: number
  message: string
  format: 'klog' | 'json' | 'plain'
  /** klog severity letter or JSON "v"/level, when present. */
  severity?: string
  /** As printed (klog `MMDD hh:mm:ss.uuuuuu`, JSON `ts`). */
  timestamp?: string
}

export interface ProxierLog {
  events: ProxierEvent[]
  /** The mode of the last "Using … Proxier" line (the most recent start in the log). */
  mode?: RunningProxyMode
  /** Line of that event. */
  modeLine?: number
  /** kube-proxy was asked for IPVS and runs iptables instead (the pre-1.26 silent fallback). */
  fellBackFromIPVS: boolean
  /** The last start failed (crash-loop symptom, e.g. IPVS unusable on 1.26+). */
  failed: boolean
}

const KLOG_RE = /^([IWEF])(\d{4} \d{2}:\d{2}:\d{2}\.\d+)\s+\d+\s+[^\]]*\]\s?(.*)$/
const KUBECTL_TS_RE = /^\d{4}-\d{2}-\d{2}T[0-9:.]+(?:Z|[+-]\d{2}:?\d{2})\s+/

interface LogLine {
  format: ProxierEvent['format']
  message: string
  severity?: string
  timestamp?: string
}

/** Splits one log line into its message, whatever the format. */
export function parseLogLine(raw: string): LogLine | undefined {
  const line = raw.replace(KUBECTL_TS_RE, '').trim()
  if (line === '') return undefined
  if (line.startsWith('{')) {
    try {
      const obj = JSON.parse(line) as Record<string, unknown>
      const msg = typeof obj['msg'] === 'string' ? obj['msg'] : typeof obj['message'] === 'string' ? obj['message'] : undefined
      if (msg !== undefined) {
        const err = typeof obj['err'] === 'string' ? ` err=${JSON.stringify(obj['err'])}` : ''
        const out: LogLine = {format: 'json', message: msg + err}
        if (obj['ts'] !== undefined) out.timestamp = String(obj['ts'])
        if (obj['v'] !== undefined) out.severity = `v${String(obj['v'])}`
        if (typeof obj['level'] === 'string') out.severity = obj['level']
        return out
      }
    } catch {
      // Not JSON after all: treat as plain text.
    }
  }
  const k = KLOG_RE.exec(line)
  if (k) {
    let message = k[3] ?? ''
    // Structured klog: "message" key="value" ...
    const quoted = /^"((?:[^"\\]|\\.)*)"(.*)$/.exec(message)
    if (quoted) {
      try {
        message = (JSON.parse(`"${quoted[1] ?? ''}"`) as string) + (quoted[2] ?? '')
      } catch {
        message = (quoted[1] ?? '') + (quoted[2] ?? '')
      }
    }
    return {format: 'klog', message, severity: k[1] ?? '', timestamp: k[2] ?? ''}
  }
  return {format: 'plain', message: line}
}

function classify(message: string): {kind: ProxierEventKind; mode?: RunningProxyMode} | undefined {
  const using = /\bUsing (iptables|ipvs|nftables|userspace|kernelspace) Proxier\b/i.exec(message)
  if (using) return {kind: 'using', mode: (using[1] ?? '').toLowerCase() as RunningProxyMode}
  if (/Can't use ipvs proxier, trying iptables proxier/i.test(message)) return {kind: 'ipvs-fallback', mode: 'iptables'}
  if (/can'?t use the IPVS proxier|Could not create dummy VS/i.test(message)) return {kind: 'ipvs-unusable'}
  if (/ipvs proxier is (now )?deprecated|IPVSDeprecation/i.test(message)) return {kind: 'ipvs-deprecated', mode: 'ipvs'}
  if (/^Using iptables proxy\b|Unknown proxy mode, assuming iptables proxy/i.test(message)) return {kind: 'defaulted', mode: 'iptables'}
  if (/Error running ProxyServer|"?command failed"?|failed complete:/i.test(message)) return {kind: 'fatal'}
  return undefined
}

/**
 * Scans a kube-proxy log (`kubectl -n kube-system logs POD`, with or without --timestamps) for the lines that
 * say which proxier runs. Lines that do not matter are skipped; never throws.
 */
export function parseProxierLog(text: string): ProxierLog {
  const events: ProxierEvent[] = []
  const lines = text.split(/\r?\n/)
  lines.forEach((raw, i) => {
    const parsed = parseLogLine(raw)
    if (!parsed) return
    const c = classify(parsed.message)
    if (!c) return
    const e: ProxierEvent = {kind: c.kind, line: i + 1, message: parsed.message, format: parsed.format}
    if (c.mode) e.mode = c.mode
    if (parsed.severity !== undefined) e.severity = parsed.severity
    if (parsed.timestamp !== undefined) e.timestamp = parsed.timestamp
    events.push(e)
  })
  const out: ProxierLog = {events, fellBackFromIPVS: false, failed: false}
  const lastUsing = [...events].reverse().find((e) => e.kind === 'using')
  if (lastUsing?.mode) {
    out.mode = lastUsing.mode
    out.modeLine = lastUsing.line
  }
  out.fellBackFromIPVS = events.some(
    (e, i) => e.kind === 'ipvs-fallback' || (e.kind === 'ipvs-unusable' && events.slice(i + 1).some((x) => x.kind === 'using' && x.mode === 'iptables')),
  )
  const last = events.at(-1)
  out.failed = last !== undefined && (last.kind === 'fatal' || last.kind === 'ipvs-unusable')
  return out
}
