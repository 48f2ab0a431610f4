// Throwaway PKI for loopback TLS tests, made with the openssl CLI once per test process: a CA, a server
// certificate for 127.0.0.1/localhost, and client certificates whose CN/O are the Kubernetes user/groups.
import {execFileSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

export interface ClientCert {
  certFile: string
  keyFile: string
  certPem: string
  keyPem: string
}

export interface TestPki {
  dir: string
  caFile: string
  caPem: string
  serverCertPem: string
  serverKeyPem: string
  /** A client certificate signed by the CA; cached by user and groups. */
  clientCert(user: string, groups?: string[]): ClientCert
}

let pki: TestPki | undefined

export function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], {stdio: 'ignore'})
    return true
  } catch {
    return false
  }
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, {cwd: dir, stdio: ['ignore', 'ignore', 'pipe']})
}

function serial(): string {
  return '0x' + [...crypto.getRandomValues(new Uint8Array(12))].map((b) => b.toString(16).padStart(2, '0')).join('')
}

function keyAndCsr(dir: string, name: string, subject: string): void {
  openssl(dir, ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject])
}

function sign(dir: string, name: string, ext: string): void {
  writeFileSync(join(dir, `${name}.ext`), ext)
  openssl(dir, ['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-set_serial', serial(), '-days', '2', '-out', `${name}.crt`, '-extfile', `${name}.ext`])
}

/** The process-wide test PKI (created on first use, removed at exit). Throws a clear error without openssl. */
export function testPki(): TestPki {
  if (pki) return pki
  if (!hasOpenssl()) throw new Error('the openssl CLI is required to create test certificates but is not on PATH')
  const dir = mkdtempSync(join(tmpdir(), 'node-doctor-pki-'))
  process.once('exit', () => rmSync(dir, {recursive: true, force: true}))
  openssl(dir, [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt',
    '-days', '2', '-subj', '/CN=node-doctor-test-ca', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign',
  ])
  keyAndCsr(dir, 'server', '/CN=kube-apiserver')
  sign(dir, 'server', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature\n')
  const clients = new Map<string, ClientCert>()
  pki = {
    dir,
    caFile: join(dir, 'ca.crt'),
    caPem: readFileSync(join(dir, 'ca.crt'), 'utf8'),
    serverCertPem: readFileSync(join(dir, 'server.crt'), 'utf8'),
    serverKeyPem: readFileSync(join(dir, 'server.key'), 'utf8'),
    clientCert(user, groups = []) {
      const id = [user, ...groups].join(',')
      const cached = clients.get(id)
      if (cached) return cached
      const name = `client-${clients.size}`
      keyAndCsr(dir, name, `/CN=${user}${groups.map((g) => `/O=${g}`).join('')}`)
      sign(dir, name, 'extendedKeyUsage=clientAuth\nkeyUsage=critical,digitalSignature\n')
      const cert: ClientCert = {
        certFile: join(dir, `${name}.crt`),
        keyFile: join(dir, `${name}.key`),
        certPem: readFileSync(join(dir, `${name}.crt`), 'utf8'),
        keyPem: readFileSync(join(dir, `${name}.key`), 'utf8'),
      }
      clients.set(id, cert)
      return cert
    },
  }
  return pki
}
