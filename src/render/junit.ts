// JUnit XML: one <testsuite> per node, one <testcase> per check per node (kube-bench, Popeye and cilium ship the
// same shape), so CI systems show failed checks as failed tests. Collection errors are <error>s of a `collection` case.
import type {CheckSpec} from '../core/checks/types.js'
import {compareSeverity, type CheckResult, type CollectionError, type Finding, type Report} from '../core/model/report.js'
import {formatSubject, nodeNames, type RenderOptions} from './options.js'

/** Suite of collection errors that belong to no node (e.g. a forbidden list); never a valid node name. */
export const CLUSTER_SUITE = '(cluster)'

interface Case {
  xml: string[]
  outcome: 'passed' | 'failure' | 'error' | 'skipped'
}

export function renderJunit(report: Report, options: Pick<RenderOptions, 'catalog'>): string {
  const catalog = new Map((options.catalog ?? []).map((s) => [s.id, s]))
  const suites: string[][] = []
  const totals = {tests: 0, failures: 0, errors: 0, skipped: 0, time: 0, timed: false}

  const suiteNames = nodeNames(report)
  if (report.collectionErrors.some((e) => e.node === undefined)) suiteNames.push(CLUSTER_SUITE)
  for (const node of suiteNames) {
    const isCluster = node === CLUSTER_SUITE
    const cases = isCluster ? [] : checkCases(report, node, catalog)
    const errors = report.collectionErrors.filter((e) => (isCluster ? e.node === undefined : e.node === node))
    if (errors.length > 0) cases.push(collectionCase(errors))

    const summary = report.nodes.find((n) => n.name === node)
    const count = (o: Case['outcome']) => cases.filter((k) => k.outcome === o).length
    const stats = {tests: cases.length, failures: count('failure'), errors: count('error'), skipped: count('skipped')}
    totals.tests += stats.tests
    totals.failures += stats.failures
    totals.errors += stats.errors
    totals.skipped += stats.skipped
    const attrs: Record<string, string | number | undefined> = {name: node, ...stats}
    if (summary?.durationMs !== undefined) {
      attrs.time = seconds(summary.durationMs)
      totals.time += summary.durationMs
      totals.timed = true
    }
    attrs.timestamp = report.metadata.generatedAt
    if (!isCluster) attrs.hostname = node
    const props = summary ? [`    <properties>`, `      <property name="status" value="${attr(summary.status)}"/>`, `    </properties>`] : []
    suites.push([`  <testsuite${attributes(attrs)}>`, ...props, ...cases.flatMap((k) => k.xml), `  </testsuite>`])
  }

  const {timed, time, ...counts} = totals
  const top = attributes({name: report.metadata.tool.name, ...counts, ...(timed ? {time: seconds(time)} : {})})
  return ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites${top}>`, ...suites.flat(), '</testsuites>', ''].join('\n')
}

/**
 * One case per check result. A (node, check) pair with findings but no result (a command that reports findings
 * only) still gets a failed case, so no finding is lost.
 */
function checkCases(report: Report, node: string, catalog: Map<string, CheckSpec>): Case[] {
  const results: CheckResult[] = report.results.filter((r) => r.node === node)
  const findings = report.findings.filter((f) => f.node === node)
  for (const f of findings) {
    if (!results.some((r) => r.id === f.id)) results.push({id: f.id, node, area: f.area, status: 'failed'})
  }
  return results.map((r) => {
    const attrs = attributes({classname: `node-doctor.${r.area}`, name: testName(r.id, catalog)})
    if (r.status === 'passed') return {outcome: 'passed', xml: [`    <testcase${attrs}/>`]}
    if (r.status === 'skipped') {
      return {outcome: 'skipped', xml: [`    <testcase${attrs}>`, `      <skipped${attributes({message: r.reason})}/>`, `    </testcase>`]}
    }
    const own = findings.filter((f) => f.id === r.id).sort((a, b) => compareSeverity(a.severity, b.severity))
    const first = own[0]
    const message = first ? (own.length > 1 ? `${first.message} (and ${own.length - 1} more)` : first.message) : 'check failed'
    return {
      outcome: 'failure',
      xml: [
        `    <testcase${attrs}>`,
        `      <failure${attributes({message, type: first?.severity ?? 'error'})}>${text(own.map(describeFinding).join('\n\n'))}</failure>`,
        `    </testcase>`,
      ],
    }
  })
}

function collectionCase(errors: CollectionError[]): Case {
  const fatal = errors.find((e) => e.fatal)
  const first = fatal ?? errors[0]!
  const message = `${first.source}: ${first.message}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}`
  const body = errors.map((e) => `[${e.fatal ? 'fatal' : 'partial'}] ${e.source}: ${e.message}`).join('\n')
  return {
    outcome: 'error',
    xml: [
      `    <testcase${attributes({classname: 'node-doctor.collection', name: 'collection'})}>`,
      `      <error${attributes({message, type: fatal ? 'fatal' : 'partial'})}>${text(body)}</error>`,
      `    </testcase>`,
    ],
  }
}

function describeFinding(f: Finding): string {
  const lines = [`[${f.severity}] ${formatSubject(f.subject)}`, `  ${f.message}`]
  if (f.group !== undefined) lines.push(`  group: ${f.group}`)
  if (f.evidence.length > 0) lines.push('  evidence:', ...f.evidence.map((e) => `    ${e}`))
  lines.push(`  remedy: ${f.remedy}`)
  return lines.join('\n')
}

function testName(id: string, catalog: Map<string, CheckSpec>): string {
  const spec = catalog.get(id)
  return spec ? `${id} ${spec.title}` : id
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3)
}

function attributes(attrs: Record<string, string | number | undefined>): string {
  return Object.entries(attrs)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ` ${k}="${attr(String(v))}"`)
    .join('')
}

/**
 * XML 1.0 cannot carry most C0 controls, U+FFFE/U+FFFF or lone surrogates, not even as character references:
 * they are written as visible `\xNN` / `\uNNNN` text instead.
 */
function legal(s: string): string {
  return s.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, (ch) => {
    const code = ch.charCodeAt(0)
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`
  })
}

/** Character data: `\r` as a reference so parsers do not normalise it away. */
export function text(s: string): string {
  return legal(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\r/g, '&#13;')
}

/** Attribute value (double-quoted): whitespace as references so attribute normalisation keeps it. */
export function attr(s: string): string {
  return text(s).replace(/"/g, '&quot;').replace(/'/g, '&apos;').replace(/\n/g, '&#10;').replace(/\t/g, '&#9;')
}
