import {performance} from 'node:perf_hooks'
import {featureGatesFor, NEWEST_SUPPORTED_VERSION, type ProxierOptions} from '../src/core/proxier/config.js'
import {type LoadedObjects, loadObjects} from '../src/core/proxier/objects.js'

// Objects for the proxier benchmarks: SERVICES Services (ClusterIP, NodePort, LoadBalancer mix) × ENDPOINTS endpoints.

export function benchObjectsJson(SERVICES: number, ENDPOINTS: number): string {
  const items: unknown[] = []
  for (let s = 0; s < SERVICES; s++) {
    const ns = `ns${s % 100}`
    const name = `svc${s}`
    const kind = s % 10 === 0 ? 'LoadBalancer' : s % 5 === 0 ? 'NodePort' : 'ClusterIP'
    items.push({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: {namespace: ns, name},
      spec: {
        type: kind,
        clusterIP: `172.30.${(s >> 8) & 255}.${s & 255}`,
        ports: [{name: 'http', port: 80, protocol: 'TCP', ...(kind !== 'ClusterIP' ? {nodePort: 30000 + Math.floor(s / 5) % 2000} : {})}],
        ...(kind === 'LoadBalancer' ? {externalTrafficPolicy: s % 20 === 0 ? 'Local' : 'Cluster', healthCheckNodePort: 32000 + (Math.floor(s / 20) % 700)} : {}),
      },
      ...(kind === 'LoadBalancer' ? {status: {loadBalancer: {ingress: [{ip: `203.0.${(s >> 8) & 255}.${s & 255}`}]}}} : {}),
    })
    items.push({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: {namespace: ns, name: `${name}-abcde`, labels: {'kubernetes.io/service-name': name}},
      addressType: 'IPv4',
      endpoints: Array.from({length: ENDPOINTS}, (_, e) => {
        const n = s * ENDPOINTS + e
        return {addresses: [`10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`], nodeName: `node-${n % 50}`, conditions: {ready: true, serving: true, terminating: false}}
      }),
      ports: [{name: 'http', port: 8080, protocol: 'TCP'}],
    })
  }
  return JSON.stringify({apiVersion: 'v1', kind: 'List', items})
}


/** The proxier options every benchmark (and the canonical-cache equivalence test) renders with: node-0 of the set. */
export function benchProxierOptions(): ProxierOptions {
  return {
    family: 'ipv4',
    version: NEWEST_SUPPORTED_VERSION,
    nodeName: 'node-0',
    nodeIP: '192.168.0.2',
    masqueradeBit: 14,
    masqueradeAll: false,
    localDetector: {mode: 'ClusterCIDR', cidr: '10.0.0.0/8'},
    nodePortAddresses: [],
    localhostNodePorts: true,
    randomFully: true,
    nfacct: {ctStateInvalidDroppedPkts: true, localhostNpsAcceptedPkts: true},
    tcpBeLiberal: false,
    nodeInterfaceAddresses: ['127.0.0.1', '192.168.0.2'],
    featureGates: featureGatesFor(NEWEST_SUPPORTED_VERSION),
  }
}

/** The benchmark's objects, loaded: SERVICES (default 10,000) Services × ENDPOINTS (default 10) endpoints. */
export function loadBenchObjects(): LoadedObjects {
  const services = Number(process.env.SERVICES ?? 10_000)
  const endpoints = Number(process.env.ENDPOINTS ?? 10)
  return loadObjects([{name: 'bench.json', text: benchObjectsJson(services, endpoints)}])
}

/** Runs `fn`, printing `name: WALL ms (cpu CPU ms)`. */
export function time<T>(name: string, fn: () => T): T {
  const t0 = performance.now()
  const c0 = process.cpuUsage()
  const v = fn()
  const cpu = process.cpuUsage(c0)
  console.log(`${name}: ${(performance.now() - t0).toFixed(1)} ms (cpu ${((cpu.user + cpu.system) / 1000).toFixed(1)} ms)`)
  return v
}
