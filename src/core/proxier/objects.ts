// Reads Kubernetes objects from what `kubectl get … -o json|yaml` prints: a List (kubectl's `List` or a typed
// `ServiceList` from the API), a single object, or multi-document YAML. Unknown kinds go to `other`; the fields the
// proxier reads are type-checked so that a malformed object fails here, naming the object and the field.
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

class Checker {
  constructor(
    private readonly source: string,
    private readonly what: string,
    private readonly line: number | undefined,
  ) {}

  fail(path: string, detail: string): never {
    throw new ObjectsParseError(this.source, `${this.what}: ${path}: ${detail}`, this.line)
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
    c.optInt(p, 'port', `${path}.port`, 1)
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

/**
 * Loads objects from several inputs (each `{name, text}`; `name` is used in errors). Throws ObjectsParseError
 * naming the input, the object (`Kind ns/name`, or its position) and the field.
 */
export function loadObjects(texts: ReadonlyArray<{name: string; text: string}>): LoadedObjects {
  const out: LoadedObjects = {services: [], endpointSlices: [], nodes: [], configMaps: [], serviceCIDRs: [], daemonSets: [], other: []}
  for (const {name, text} of texts) {
    const docs = parseDocuments(name, text)
    docs.forEach((doc, di) => {
      const where = docs.length > 1 ? `document ${di + 1}` : 'the document'
      const add = (value: unknown, pos: string, inheritedKind?: string): void => {
        if (!isObj(value)) throw new ObjectsParseError(name, `${pos}: expected a Kubernetes object, got ${Array.isArray(value) ? 'a list' : JSON.stringify(value)}`, doc.line)
        const kind = typeof value.kind === 'string' ? value.kind : inheritedKind
        if (Array.isArray(value.items) && (kind === undefined || kind.endsWith('List'))) {
          const itemKind = kind && kind !== 'List' ? kind.slice(0, -'List'.length) : undefined
          value.items.forEach((item, i) => add(item, `${pos}, items[${i}]`, itemKind))
          return
        }
        if (kind === undefined) throw new ObjectsParseError(name, `${pos}: object has no kind`, doc.line)
        const md = isObj(value.metadata) ? value.metadata : {}
        const id = `${kind} ${typeof md.namespace === 'string' ? md.namespace + '/' : ''}${typeof md.name === 'string' ? md.name : `(${pos})`}`
        const c = new Checker(name, id, doc.line)
        const obj = kind === value.kind ? value : {...value, kind}
        switch (kind) {
          case 'Service':
            checkMetadata(c, obj, kind)
            checkService(c, obj)
            out.services.push(obj as unknown as Service)
            break
          case 'EndpointSlice':
            checkMetadata(c, obj, kind)
            checkEndpointSlice(c, obj)
            out.endpointSlices.push(obj as unknown as EndpointSlice)
            break
          case 'Node':
            checkMetadata(c, obj, kind)
            checkNode(c, obj)
            out.nodes.push(obj as unknown as Node)
            break
          case 'ConfigMap':
            checkMetadata(c, obj, kind)
            checkConfigMap(c, obj)
            out.configMaps.push(obj as unknown as ConfigMap)
            break
          case 'ServiceCIDR':
            checkMetadata(c, obj, kind)
            out.serviceCIDRs.push(obj as unknown as ServiceCIDR)
            break
          case 'DaemonSet':
            checkMetadata(c, obj, kind)
            out.daemonSets.push(obj as unknown as DaemonSet)
            break
          default:
            if (isObj(obj.metadata)) out.other.push(obj as unknown as KubeObject)
        }
      }
      add(doc.value, where)
    })
  }
  return out
}
