// What a lenient read of pasted ipvsadm output (`ipvs show --from-file`, proxy diff --ipvsadm) accepted that the
// strict parser refuses, collected while parsing and said once at the end as warnings: host and service names
// (`ipvsadm -L` without -n, names possibly cut to 28 characters), header lines cut off, real servers whose service
// line was cut off. Line numbers are the parser's (normalised input); the caller maps them to the user's.

export interface LenientWarning {
  line: number
  message: string
}

interface Named {
  host: boolean
  portName?: string
  known?: boolean
  cut: boolean
}

export class Leniency {
  readonly warnings: LenientWarning[] = []
  private readonly hostLines = new Set<number>()
  private readonly portNames = new Map<string, {line: number; port?: number}>()
  private readonly unknownPorts: Array<{line: number; name: string}> = []
  private readonly cutLines = new Set<number>()
  private readonly orphans: number[] = []

  warn(line: number, message: string): void {
    this.warnings.push({line, message})
  }

  /** A name:port read at line n. */
  named(n: number, what: Named & {port?: number}): void {
    if (what.host) this.hostLines.add(n)
    if (what.cut) this.cutLines.add(n)
    if (what.portName !== undefined) {
      if (what.known === false) this.unknownPorts.push({line: n, name: what.portName})
      else if (!this.portNames.has(what.portName)) this.portNames.set(what.portName, {line: n})
    }
  }

  /** A real server line before any virtual service line (skipped). */
  orphan(n: number): void {
    this.orphans.push(n)
  }

  /** Every warning, the summaries included, in line order. */
  finish(portOf: (name: string) => number | undefined): LenientWarning[] {
    const out = [...this.warnings]
    const plural = (k: number, one: string, many: string): string => (k === 1 ? one : many)
    if (this.orphans.length > 0) {
      const k = this.orphans.length
      out.push({line: this.orphans[0]!, message: `${k} real server ${plural(k, 'line', 'lines')} before the first virtual service skipped (its service line was cut off)`})
    }
    if (this.hostLines.size > 0) {
      const k = this.hostLines.size
      out.push({line: Math.min(...this.hostLines), message: `${k} ${plural(k, 'line uses', 'lines use')} host names: not comparable with ClusterIPs (\`ipvsadm -L\` without -n; collect \`ipvsadm -Ln\`)`})
    }
    if (this.portNames.size > 0) {
      const first = Math.min(...[...this.portNames.values()].map((v) => v.line))
      const names = [...this.portNames.keys()].map((name) => `${name}=${portOf(name) ?? '?'}`)
      out.push({line: first, message: `service names read as their well-known ports: ${names.join(', ')}`})
    }
    if (this.unknownPorts.length > 0) {
      const k = this.unknownPorts.length
      const names = [...new Set(this.unknownPorts.map((u) => u.name))]
      out.push({line: this.unknownPorts[0]!.line, message: `${k} ${plural(k, 'port', 'ports')} named ${names.slice(0, 5).map((x) => `"${x}"`).join(', ')} not known (or cut off): shown as port 0`})
    }
    if (this.cutLines.size > 0) {
      const k = this.cutLines.size
      out.push({line: Math.min(...this.cutLines), message: `${k} ${plural(k, 'name is', 'names are')} exactly 28 characters, where ipvsadm cuts names: ${plural(k, 'it', 'they')} may be truncated (a port cut off is shown as 0)`})
    }
    return out.sort((a, b) => a.line - b.line)
  }
}
