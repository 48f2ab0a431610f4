// SARIF 2.1.0 (OASIS): one run; rules are the catalog entries the findings use; node state has no files, so
// locations are logical (the subject, then its node). Collection errors are tool execution notifications.
import {escapeJsonControls} from './terminal-safe.js'
import type {CheckSpec} from '../core/checks/types.js'
import type {Finding, Report, Severity} from '../core/model/report.js'
import type {RenderOptions} from './options.js'

export const SARIF_SCHEMA = 'https://json.schemastore.org/sarif-2.1.0.json'
export const SARIF_VERSION = '2.1.0'

export type SarifLevel = 'error' | 'warning' | 'note'
const LEVEL: Record<Severity, SarifLevel> = {error: 'error', warning: 'warning', info: 'note'}

export interface SarifRule {
  id: string
  shortDescription?: {text: string}
  fullDescription?: {text: string}
  help?: {text: string}
  defaultConfiguration?: {level: SarifLevel}
  properties?: Record<string, unknown>
}

export interface SarifLogicalLocation {
  name: string
  fullyQualifiedName?: string
  kind: string
  properties?: Record<string, string>
}

export interface SarifResult {
  ruleId: string
  ruleIndex: number
  level: SarifLevel
  message: {text: string}
  locations: Array<{logicalLocations: SarifLogicalLocation[]}>
  partialFingerprints: Record<string, string>
  properties: {node: string; area: string; evidence: string[]; group?: string; remedy: string}
}

export interface SarifNotification {
  level: 'error' | 'warning'
  message: {text: string}
  descriptor: {id: string}
  locations?: Array<{logicalLocations: SarifLogicalLocation[]}>
  properties: {source: string; fatal: boolean; node?: string}
}

export interface SarifLog {
  $schema: string
  version: typeof SARIF_VERSION
  runs: [
    {
      tool: {driver: {name: string; version: string; semanticVersion?: string; rules: SarifRule[]}}
      invocations: [{executionSuccessful: boolean; toolExecutionNotifications: SarifNotification[]}]
      results: SarifResult[]
      properties: Record<string, unknown>
    },
  ]
}

export function renderSarif(report: Report, options: Pick<RenderOptions, 'catalog'>): string {
  return escapeJsonControls(JSON.stringify(toSarif(report, options.catalog ?? []), null, 2)) + '\n'
}

export function toSarif(report: Report, catalog: readonly CheckSpec[]): SarifLog {
  const byId = new Map(catalog.map((s) => [s.id, s]))
  const used = new Set(report.findings.map((f) => f.id))
  // Catalog order first; ids the catalog does not know still get a bare rule so every ruleIndex resolves.
  const ids = [...catalog.map((s) => s.id).filter((id) => used.has(id)), ...[...used].filter((id) => !byId.has(id)).sort()]
  const rules = ids.map((id) => rule(id, byId.get(id)))
  const index = new Map(ids.map((id, i) => [id, i]))
  const version = report.metadata.tool.version

  return {
    $schema: SARIF_SCHEMA,
    version: SARIF_VERSION,
    runs: [
      {
        tool: {
          driver: {
            name: 'node-doctor',
            version,
            ...(/^\d+\.\d+\.\d+/.test(version) ? {semanticVersion: version} : {}),
            rules,
          },
        },
        // A fatal error means a node was not examined at all: the run did not do all it was asked to.
        invocations: [
          {
            executionSuccessful: !report.collectionErrors.some((e) => e.fatal),
            toolExecutionNotifications: report.collectionErrors.map((e) => ({
              level: e.fatal ? 'error' : 'warning',
              message: {text: e.message},
              descriptor: {id: e.source},
              ...(e.node !== undefined ? {locations: [{logicalLocations: [nodeLocation(e.node)]}]} : {}),
              properties: {source: e.source, fatal: Boolean(e.fatal), ...(e.node !== undefined ? {node: e.node} : {})},
            })),
          },
        ],
        results: report.findings.map((f) => result(f, index.get(f.id)!)),
        properties: {
          generatedAt: report.metadata.generatedAt,
          command: report.metadata.command,
          ...(report.metadata.context !== undefined ? {context: report.metadata.context} : {}),
          ...(report.metadata.annotations !== undefined ? {annotations: report.metadata.annotations} : {}),
          status: report.summary.status,
        },
      },
    ],
  }
}

function rule(id: string, spec: CheckSpec | undefined): SarifRule {
  if (!spec) return {id}
  return {
    id,
    shortDescription: {text: spec.title},
    fullDescription: {text: spec.why},
    help: {text: spec.remedy},
    defaultConfiguration: {level: LEVEL[spec.severity]},
    properties: {area: spec.area, looksAt: spec.looksAt},
  }
}

function result(f: Finding, ruleIndex: number): SarifResult {
  const s = f.subject
  // node:container:kind/ns/name, e.g. `worker-1:nat:chain/KUBE-SVC-X`, `worker-1:Service/default/web`.
  const fullyQualifiedName = [f.node, ...(s.in !== undefined ? [s.in] : []), `${s.kind}/${s.namespace !== undefined ? `${s.namespace}/` : ''}${s.name}`].join(':')
  const subject: SarifLogicalLocation = {name: s.name, fullyQualifiedName, kind: s.kind}
  const where: Record<string, string> = {}
  if (s.namespace !== undefined) where.namespace = s.namespace
  if (s.in !== undefined) where.in = s.in
  if (Object.keys(where).length > 0) subject.properties = where
  return {
    ruleId: f.id,
    ruleIndex,
    level: LEVEL[f.severity],
    message: {text: f.message},
    locations: [{logicalLocations: [subject, nodeLocation(f.node)]}],
    // Stable across runs for the same problem, so consumers can track it; the message may change wording.
    partialFingerprints: {'nodeDoctor/v1': [f.id, f.node, s.kind, s.namespace ?? '', s.name, s.in ?? '', f.group ?? ''].join('|')},
    properties: {node: f.node, area: f.area, evidence: f.evidence, ...(f.group !== undefined ? {group: f.group} : {}), remedy: f.remedy},
  }
}

function nodeLocation(node: string): SarifLogicalLocation {
  return {name: node, fullyQualifiedName: node, kind: 'node'}
}
