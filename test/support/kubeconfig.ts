// Kubeconfig fixtures in kubectl's on-disk shape, built from small specs and written to temp files.
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {stringify} from 'yaml'

export interface ClusterSpec {
  name: string
  server: string
  caFile?: string
  caData?: string
  insecure?: boolean
  tlsServerName?: string
}

export interface ExecSpec {
  command: string
  args?: string[]
  env?: Array<{name: string; value: string}>
  apiVersion?: string
}

export interface UserSpec {
  name: string
  token?: string
  tokenFile?: string
  clientCertificate?: string
  clientKey?: string
  clientCertificateData?: string
  clientKeyData?: string
  exec?: ExecSpec
}

export interface ContextSpec {
  name: string
  cluster: string
  user?: string
  namespace?: string
}

export interface KubeconfigSpec {
  currentContext?: string
  clusters?: ClusterSpec[]
  users?: UserSpec[]
  contexts?: ContextSpec[]
}

function defined(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined))
}

/** The kubeconfig document (apiVersion v1, kind Config) for a spec; absent lists are omitted, as kubectl allows. */
export function kubeconfigObject(spec: KubeconfigSpec): Record<string, unknown> {
  return defined({
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': spec.currentContext,
    clusters: spec.clusters?.map((c) => ({
      name: c.name,
      cluster: defined({
        server: c.server,
        'certificate-authority': c.caFile,
        'certificate-authority-data': c.caData,
        'insecure-skip-tls-verify': c.insecure,
        'tls-server-name': c.tlsServerName,
      }),
    })),
    users: spec.users?.map((u) => ({
      name: u.name,
      user: defined({
        token: u.token,
        'token-file': u.tokenFile,
        'client-certificate': u.clientCertificate,
        'client-key': u.clientKey,
        'client-certificate-data': u.clientCertificateData,
        'client-key-data': u.clientKeyData,
        exec: u.exec && defined({apiVersion: u.exec.apiVersion ?? 'client.authentication.k8s.io/v1', command: u.exec.command, args: u.exec.args, env: u.exec.env, interactiveMode: 'Never'}),
      }),
    })),
    contexts: spec.contexts?.map((c) => ({name: c.name, context: defined({cluster: c.cluster, user: c.user, namespace: c.namespace})})),
  })
}

export function kubeconfigYaml(spec: KubeconfigSpec): string {
  return stringify(kubeconfigObject(spec))
}

/** Writes a spec (or raw text) to `file` and returns the path. */
export function writeKubeconfig(file: string, spec: KubeconfigSpec | string): string {
  writeFileSync(file, typeof spec === 'string' ? spec : kubeconfigYaml(spec))
  return file
}

/** A temp directory removed by `cleanup()`; register it with node:test's `after`. */
export function tempDir(prefix = 'node-doctor-kube-'): {dir: string; path(...parts: string[]): string; cleanup(): void} {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  return {dir, path: (...parts) => join(dir, ...parts), cleanup: () => rmSync(dir, {recursive: true, force: true})}
}
