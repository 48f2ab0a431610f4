// Reads Kubernetes objects from what `kubectl get … -o json|yaml` prints: a List (kubectl's `List` or a typed
// `ServiceList` from the API), a single object, or multi-document YAML. Unknown kinds go to `other`; the fields the
// proxier reads are type-checked. A malformed object is never fatal: it is left out and reported as a problem naming
// the input, the object and the field (the proxier could not read it, and kube-proxy would never get it from the
// API). A value the API server rejects but kube-proxy accepts (a Service port 0) is kept, rendered as kube-proxy
// renders it, and reported too. Only a file that is not JSON or YAML at all is an error.
import {LineCounter, parseAllDocuments} from 'yaml'
import {ParseError} from '../../errors.js'
import type {ConfigMap, DaemonSet, EndpointSlice, KubeObject, Node, Service, ServiceCIDR} from '../model/k8s.js'

export interface LoadedObjects {
  services: Service[]
  endpointSlices: EndpointSlice[]
  nodes: Node[]
  configMaps: ConfigMap[]
  serviceCIDRs: ServiceCIDR[]
  daemonSets: DaemonSet[]
  other: KubeObject[]
  /** What was wrong with the objects read (loadObjects always sets it; absent for objects from a snapshot). */
  problems?: ObjectProblem[]
}

/** One malformed or unusual object: what is wrong, and whether it was left out or kept. */
export interface ObjectProblem {
  /** The input it came from (a file name, `<stdin>`, or `cluster` for a snapshot's objects). */
  source: string
  /** `Kind ns/name`, or the object's position in the input when it has no name. */
  object: string
  kind?: string
  namespace?: string
  name?: string
  /** 1-based line of the YAML document holding it. */
  line?: number
  /** The field (`spec.ports[0].port`), when one field is the problem. */
  field?: string
  detail: string
  /**
   * `skipped`: left out (the proxier cannot read it; the API server would not have accepted it either);
   * `kept`: rendered as kube-proxy renders it, which does not validate that field.
   */
  effect: 'skipped' | 'kept'
}

/** One line naming the problem: `file:line: Service ns/name: spec.ports[0].port: detail (skipped)`. */
export function formatObjectProblem(p: ObjectProblem): string {
  const where = p.source === 'cluster' ? '' : `${p.source}${p.line !== undefined ? `:${p.line}` : ''}: `
  const what = p.effect === 'skipped' ? 'left out' : 'kept, as kube-proxy programs it'
  return `${where}${p.object}: ${p.field !== undefined ? `${p.field}: ` : ''}${p.detail} (${what})`
}

/** A ParseError that also names the input (file name) it came from. */
export class ObjectsParseError extends ParseError {
  readonly source: string
  constructor(source: string, detail: string, line?: number) {
    super(detail, line)
    this.source = source
  }
}

type Json = null | boolean | number | string | Json[] | {[k: string]: Json}
type Obj = {[k: string]: Json}

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
}

interface Doc {
  value: unknown
  line?: number
}

function parseDocuments(name: string, text: string): Doc[] {
  const trimmed = text.trimStart()
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    // JSON first: much faster than YAML for large `kubectl get -o json` output.
    try {
      return [{value: JSON.parse(text)}]
    } catch {
      // fall through: YAML flow style also starts with { or [
    }
  }
  const lineCounter = new LineCounter()
  const docs = parseAllDocuments(text, {lineCounter})
  const out: Doc[] = []
  for (const doc of Array.isArray(docs) ? docs : [docs]) {
    const err = doc.errors[0]
    if (err) {
      const line = lineCounter.linePos(err.pos[0]).line
      throw new ObjectsParseError(name, `not valid JSON or YAML: ${err.message.split('\n')[0]}`, line)
    }
    const value: unknown = doc.toJS({maxAliasCount: 10_000})
    if (value === null || value === undefined) continue
    const line = doc.contents?.range ? lineCounter.linePos(doc.contents.range[0]).line : undefined
    out.push(line === undefined ? {value} : {value, line})
  }
  return out
}

/** Thrown inside one object's check: that object is left out. */
class InvalidObject extends Error {
  constructor(
    readonly field: string,
    readonly detail: string,
  ) {
    super(`${field}: ${detail}`)
  }
}

class Checker {
  /** Fields kube-proxy accepts although the API server would not: kept, and reported. */
  readonly warnings: Array<{field: string; detail: string}> = []

  fail(path: string, detail: string): never {
    throw new InvalidObject(path, detail)
  }

  warn(path: string, detail: string): void {
    this.warnings.push({field: path, detail})
  }

  optString(o: Obj, key: string, path: string): void {
    const v = o[key]
    if (v !== undefined && v !== null && typeof v !== 'string') this.fail(path, `expected a string, got ${JSON.stringify(v)}`)
  }

  optInt(o: Obj, key: string, path: string, min = 0, max = 65535): void {
    const v = o[key]
    if (v === undefined || v === null) return
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) this.fail(path, `expected an integer in [${min}, ${max}], got ${JSON.stringify(v)}`)
  }

  optBool(o: Obj, key: string, path: string): void {
    const v = o[key]
    if (v !== undefined && v !== null && typeof v !== 'boolean') this.fail(path, `expected true or false, got ${JSON.stringify(v)}`)
  }

  optStringList(o: Obj, key: string, path: string): void {
    const v = o[key]
    if (v === undefined || v === null) return
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) this.fail(path, `expected a list of strings, got ${JSON.stringify(v)}`)
  }

  optList(o: Obj, key: string, path: string): Obj[] {
    const v = o[key]
    if (v === undefined || v === null) return []
    if (!Array.isArray(v)) this.fail(path, `expected a list, got ${JSON.stringify(v)}`)
    return v.map((x, i) => {
      if (!isObj(x)) this.fail(`${path}[${i}]`, `expected an object, got ${JSON.stringify(x)}`)
      return x
    })
  }

  optObj(o: Obj, key: string, path: string): Obj | undefined {
    const v = o[key]
    if (v === undefined || v === null) return undefined
    if (!isObj(v)) this.fail(path, `expected an object, got ${JSON.stringify(v)}`)
    return v
  }

  optEnum(o: Obj, key: string, path: string, values: readonly string[]): void {
    const v = o[key]
    if (v === undefined || v === null) return
    if (typeof v !== 'string' || !values.includes(v)) this.fail(path, `expected one of ${values.join(', ')}, got ${JSON.stringify(v)}`)
  }
}

const PROTOCOLS = ['TCP', 'UDP', 'SCTP'] as const

function checkService(c: Checker, o: Obj): void {
  const spec = c.optObj(o, 'spec', 'spec')
  if (!spec) c.fail('spec', 'missing')
  c.optEnum(spec, 'type', 'spec.type', ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'])
  c.optString(spec, 'clusterIP', 'spec.clusterIP')
  c.optStringList(spec, 'clusterIPs', 'spec.clusterIPs')
  c.optStringList(spec, 'ipFamilies', 'spec.ipFamilies')
  c.optStringList(spec, 'externalIPs', 'spec.externalIPs')
  c.optStringList(spec, 'loadBalancerSourceRanges', 'spec.loadBalancerSourceRanges')
  c.optEnum(spec, 'externalTrafficPolicy', 'spec.externalTrafficPolicy', ['Cluster', 'Local'])
  c.optEnum(spec, 'internalTrafficPolicy', 'spec.internalTrafficPolicy', ['Cluster', 'Local'])
  c.optEnum(spec, 'sessionAffinity', 'spec.sessionAffinity', ['None', 'ClientIP'])
  c.optInt(spec, 'healthCheckNodePort', 'spec.healthCheckNodePort')
  const sac = c.optObj(spec, 'sessionAffinityConfig', 'spec.sessionAffinityConfig')
  const cip = sac ? c.optObj(sac, 'clientIP', 'spec.sessionAffinityConfig.clientIP') : undefined
  if (cip) c.optInt(cip, 'timeoutSeconds', 'spec.sessionAffinityConfig.clientIP.timeoutSeconds', 0, 86400)
  c.optList(spec, 'ports', 'spec.ports').forEach((p, i) => {
    const path = `spec.ports[${i}]`
    c.optString(p, 'name', `${path}.name`)
    c.optEnum(p, 'protocol', `${path}.protocol`, PROTOCOLS)
    if (typeof p.port !== 'number') c.fail(`${path}.port`, `expected a port number, got ${JSON.stringify(p.port)}`)
    c.optInt(p, 'port', `${path}.port`, 0)
    // NOTE: kube-proxy does not validate Service ports (the API server does, rejecting 0): it programs port 0 as
    // given (IPVS: a virtual server and ipset entries on port 0; the ipset entry check only rejects negative ports,
    // pkg/proxy/ipvs/ipset Entry.Validate). What the kernel then does with such a virtual server was not verified.
    if (p.port === 0) c.warn(`${path}.port`, 'port 0: the API server rejects it, kube-proxy does not validate it and programs the Service port on port 0')
    c.optInt(p, 'nodePort', `${path}.nodePort`)
  })
  const status = c.optObj(o, 'status', 'status')
  const lb = status ? c.optObj(status, 'loadBalancer', 'status.loadBalancer') : undefined
  if (lb) {
    c.optList(lb, 'ingress', 'status.loadBalancer.ingress').forEach((ing, i) => {
      c.optString(ing, 'ip', `status.loadBalancer.ingress[${i}].ip`)
      c.optEnum(ing, 'ipMode', `status.loadBalancer.ingress[${i}].ipMode`, ['VIP', 'Proxy'])
    })
  }
}

function checkEndpointSlice(c: Checker, o: Obj): void {
  c.optEnum(o, 'addressType', 'addressType', ['IPv4', 'IPv6', 'FQDN'])
  if (o.addressType === undefined) c.fail('addressType', 'missing')
  c.optList(o, 'ports', 'ports').forEach((p, i) => {
    c.optString(p, 'name', `ports[${i}].name`)
    c.optEnum(p, 'protocol', `ports[${i}].protocol`, PROTOCOLS)
    c.optInt(p, 'port', `ports[${i}].port`)
  })
  c.optList(o, 'endpoints', 'endpoints').forEach((e, i) => {
    const path = `endpoints[${i}]`
    c.optStringList(e, 'addresses', `${path}.addresses`)
    c.optString(e, 'nodeName', `${path}.nodeName`)
    const cond = c.optObj(e, 'conditions', `${path}.conditions`)
    if (cond) for (const k of ['ready', 'serving', 'terminating']) c.optBool(cond, k, `${path}.conditions.${k}`)
    const hints = c.optObj(e, 'hints', `${path}.hints`)
    if (hints) {
      for (const k of ['forZones', 'forNodes']) {
        c.optList(hints, k, `${path}.hints.${k}`).forEach((h, j) => {
          if (typeof h.name !== 'string') c.fail(`${path}.hints.${k}[${j}].name`, 'expected a string')
        })
      }
    }
  })
}

function checkNode(c: Checker, o: Obj): void {
  const spec = c.optObj(o, 'spec', 'spec')
  if (spec) {
    c.optString(spec, 'podCIDR', 'spec.podCIDR')
    c.optStringList(spec, 'podCIDRs', 'spec.podCIDRs')
  }
  const status = c.optObj(o, 'status', 'status')
  if (status) {
    c.optList(status, 'addresses', 'status.addresses').forEach((a, i) => {
      c.optString(a, 'type', `status.addresses[${i}].type`)
      c.optString(a, 'address', `status.addresses[${i}].address`)
    })
  }
}

function checkConfigMap(c: Checker, o: Obj): void {
  const data = c.optObj(o, 'data', 'data')
  if (data) for (const k of Object.keys(data)) c.optString(data, k, `data.${k}`)
}

function checkMetadata(c: Checker, o: Obj, kind: string): void {
  const md = c.optObj(o, 'metadata', 'metadata')
  if (!md || typeof md.name !== 'string' || md.name === '') c.fail('metadata.name', `a ${kind} needs a name`)
  c.optString(md, 'namespace', 'metadata.namespace')
  for (const k of ['labels', 'annotations']) {
    const m = c.optObj(md, k, `metadata.${k}`)
    if (m) for (const key of Object.keys(m)) c.optString(m, key, `metadata.${k}.${key}`)
  }
}

/** The checks of the kinds the proxier reads; other kinds are not looked at. */
const CHECKS = new Map<string, (c: Checker, o: Obj) => void>([
  ['Service', checkService],
  ['EndpointSlice', checkEndpointSlice],
  ['Node', checkNode],
  ['ConfigMap', checkConfigMap],
  ['ServiceCIDR', () => {}],
  ['DaemonSet', () => {}],
])

type Verdict = {ok: true; warnings: Array<{field: string; detail: string}>} | {ok: false; field: string; detail: string}

/** Checks one object of a kind the proxier reads (its metadata, then the fields the proxier uses). */
function checkObject(kind: string, obj: Obj): Verdict {
  const check = CHECKS.get(kind)
  const c = new Checker()
  try {
    checkMetadata(c, obj, kind)
    check?.(c, obj)
  } catch (err) {
    if (err instanceof InvalidObject) return {ok: false, field: err.field, detail: err.detail}
    throw err
  }
  return {ok: true, warnings: c.warnings}
}

/** `Kind ns/name` of an object, with its parts; the position instead of a missing name. */
function identify(kind: string | undefined, value: Obj, pos: string): Pick<ObjectProblem, 'object' | 'kind' | 'namespace' | 'name'> {
  const md = isObj(value.metadata) ? value.metadata : {}
  const namespace = typeof md.namespace === 'string' && md.namespace !== '' ? md.namespace : undefined
  const name = typeof md.name === 'string' && md.name !== '' ? md.name : undefined
  const object = `${kind ?? 'object'} ${namespace !== undefined ? `${namespace}/` : ''}${name ?? `(${pos})`}`
  return {object, ...(kind !== undefined ? {kind} : {}), ...(namespace !== undefined ? {namespace} : {}), ...(name !== undefined ? {name} : {})}
}

/**
 * Checks objects that did not come through loadObjects (a snapshot read from the API or a bundle) the same way:
 * the problems of each Service, EndpointSlice, Node and ConfigMap, with `source` for all of them.
 */
export function objectProblems(objects: Pick<LoadedObjects, 'services' | 'endpointSlices' | 'nodes' | 'configMaps'>, source = 'cluster'): ObjectProblem[] {
  const out: ObjectProblem[] = []
  const all: Array<[string, readonly unknown[]]> = [
    ['Service', objects.services],
    ['EndpointSlice', objects.endpointSlices],
    ['Node', objects.nodes],
    ['ConfigMap', objects.configMaps],
  ]
  for (const [kind, list] of all) {
    list.forEach((value, i) => {
      const pos = `${kind} #${i + 1}`
      if (!isObj(value)) {
        out.push({source, object: pos, kind, detail: 'not an object', effect: 'skipped'})
        return
      }
      out.push(...verdictProblems(checkObject(kind, value), {source, ...identify(kind, value, pos)}))
    })
  }
  return out
}

/**
 * The objects without those the proxier cannot read (objectProblems' `skipped` ones), for rendering a snapshot's
 * objects as loadObjects would have left them. Objects kept with a warning stay.
 */
export function usableObjects<T extends Pick<LoadedObjects, 'services' | 'endpointSlices' | 'nodes' | 'configMaps'>>(objects: T): T {
  const ok = (kind: string) => (value: unknown) => isObj(value) && checkObject(kind, value).ok
  return {
    ...objects,
    services: objects.services.filter(ok('Service')),
    endpointSlices: objects.endpointSlices.filter(ok('EndpointSlice')),
    nodes: objects.nodes.filter(ok('Node')),
    configMaps: objects.configMaps.filter(ok('ConfigMap')),
  }
}

function verdictProblems(v: Verdict, base: Omit<ObjectProblem, 'detail' | 'effect'>): ObjectProblem[] {
  if (!v.ok) return [{...base, field: v.field, detail: v.detail, effect: 'skipped'}]
  return v.warnings.map((w) => ({...base, field: w.field, detail: w.detail, effect: 'kept' as const}))
}

/**
 * Loads objects from several inputs (each `{name, text}`; `name` is used in the problems). A malformed object is
 * left out and listed in `problems` (naming the input, the object and the field); only a file that is not JSON or
 * YAML throws ObjectsParseError.
 */
export function loadObjects(texts: ReadonlyArray<{name: string; text: string}>): LoadedObjects {
  const out: LoadedObjects = {services: [], endpointSlices: [], nodes: [], configMaps: [], serviceCIDRs: [], daemonSets: [], other: [], problems: []}
  const problems = out.problems!
  for (const {name, text} of texts) {
    const docs = parseDocuments(name, text)
    docs.forEach((doc, di) => {
      const where = docs.length > 1 ? `document ${di + 1}` : 'the document'
      const at = doc.line !== undefined ? {line: doc.line} : {}
      const add = (value: unknown, pos: string, inheritedKind?: string): void => {
        if (!isObj(value)) {
          problems.push({source: name, object: pos, ...at, detail: `expected a Kubernetes object, got ${Array.isArray(value) ? 'a list' : JSON.stringify(value)}`, effect: 'skipped'})
          return
        }
        const kind = typeof value.kind === 'string' ? value.kind : inheritedKind
        if (Array.isArray(value.items) && (kind === undefined || kind.endsWith('List'))) {
          const itemKind = kind && kind !== 'List' ? kind.slice(0, -'List'.length) : undefined
          value.items.forEach((item, i) => add(item, `${pos}, items[${i}]`, itemKind))
          return
        }
        if (kind === undefined) {
          problems.push({source: name, ...identify(undefined, value, pos), ...at, detail: 'object has no kind', effect: 'skipped'})
          return
        }
        const obj = kind === value.kind ? value : {...value, kind}
        if (!CHECKS.has(kind)) {
          if (isObj(obj.metadata)) out.other.push(obj as unknown as KubeObject)
          return
        }
        const verdict = checkObject(kind, obj)
        problems.push(...verdictProblems(verdict, {source: name, ...identify(kind, obj, pos), ...at}))
        if (!verdict.ok) return
        switch (kind) {
          case 'Service':
            out.services.push(obj as unknown as Service)
            break
          case 'EndpointSlice':
            out.endpointSlices.push(obj as unknown as EndpointSlice)
            break
          case 'Node':
            out.nodes.push(obj as unknown as Node)
            break
          case 'ConfigMap':
            out.configMaps.push(obj as unknown as ConfigMap)
            break
          case 'ServiceCIDR':
            out.serviceCIDRs.push(obj as unknown as ServiceCIDR)
            break
          case 'DaemonSet':
            out.daemonSets.push(obj as unknown as DaemonSet)
            break
        }
      }
      add(doc.value, where)
    })
  }
  return out
}
