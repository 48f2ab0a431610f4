// Real OpenSSH sshd for tests: one private process per call, on 127.0.0.1 (or inside a network namespace),
// with host keys and authorized_keys generated per run in a temp dir. Never touches the system sshd.
// Suites skip with a message when not root or OpenSSH is missing: describe('...', {skip: sshdSkipReason()}, ...).
import {type ChildProcess, execFileSync, spawn, spawnSync} from 'node:child_process'
import {randomBytes} from 'node:crypto'
import {chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {createServer} from 'node:net'
import {tmpdir} from 'node:os'
import {basename, join} from 'node:path'
import type {SshTarget} from '../../src/transports/ssh/ssh-config.js'
import type {Netns as PodsNetns} from './netns.js'

export const SSHD = '/usr/sbin/sshd'
export const SSH_KEYGEN = 'ssh-keygen'

export type HostKeyType = 'ed25519' | 'ecdsa' | 'rsa'

export interface SshdHostKey {
  /** ssh key type as on the wire, e.g. ssh-ed25519. */
  type: string
  /** `type base64` as in a .pub file (no comment). */
  publicKey: string
  /** The key blob. */
  blob: Buffer
  /** As printed by `ssh-keygen -lf` (SHA256:...). */
  fingerprint: string
  privateKeyPath: string
}

export interface SshdOptions {
  /** authorized_keys lines (any options prefix allowed), valid for every user. */
  authorizedKeys: readonly string[]
  hostKeyTypes?: readonly HostKeyType[]
  /** Appended to the generated sshd_config. */
  extraConfig?: string
  listenAddress?: string
  /** Run sshd inside this network namespace (ip netns exec). */
  netns?: string
  logLevel?: 'INFO' | 'VERBOSE' | 'DEBUG1'
  /** Reuse host keys of another run (same identity, e.g. a restarted node). */
  hostKeysFrom?: Sshd
}

export interface Sshd {
  readonly host: string
  readonly port: number
  readonly dir: string
  readonly pid: number
  readonly hostKeys: readonly SshdHostKey[]
  /** known_hosts lines for every host key; default name `[host]:port` (or host on port 22). */
  knownHostsLine(hostAlias?: string): string
  /** sshd's stderr so far (LogLevel VERBOSE by default). */
  log(): string
  count(re: RegExp): number
  waitForLog(re: RegExp, timeoutMs?: number): Promise<void>
  /** Waits until `count(re)` reaches `n`. */
  waitForCount(re: RegExp, n: number, timeoutMs?: number): Promise<void>
  stop(): Promise<void>
}

export interface UserKey {
  privateKeyPath: string
  publicKeyPath: string
  /** `type base64 comment`. */
  publicKey: string
  fingerprint: string
}

/** Why sshd tests cannot run here, or undefined when they can. */
export function sshdSkipReason(): string | undefined {
  if (typeof process.getuid === 'function' && process.getuid() !== 0) return 'sshd tests need root (sshd must run as root to switch users)'
  if (!existsSync(SSHD)) return `OpenSSH server not installed (${SSHD} missing)`
  try {
    execFileSync(SSH_KEYGEN, ['-?'], {stdio: 'ignore'})
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'ssh-keygen not installed'
  }
  return undefined
}

/** Network namespaces need root and iproute2; undefined when usable. */
export function netnsSkipReason(): string | undefined {
  const base = sshdSkipReason()
  if (base) return base
  const probe = `nd-probe-${process.pid}-${randomBytes(2).toString('hex')}`
  try {
    execFileSync('ip', ['netns', 'add', probe], {stdio: 'ignore'})
    execFileSync('ip', ['netns', 'del', probe], {stdio: 'ignore'})
    return undefined
  } catch {
    return 'cannot create network namespaces here (needs CAP_SYS_ADMIN and iproute2)'
  }
}

const running = new Set<ChildProcess>()
process.on('exit', () => {
  for (const c of running) c.kill('SIGKILL')
})

export function makeTempDir(prefix = 'nd-ssh-'): string {
  return mkdtempSync(join(tmpdir(), prefix))
}

/** Generates a user key pair with ssh-keygen in `dir`. */
export function makeUserKey(dir: string, options: {passphrase?: string; type?: HostKeyType; name?: string} = {}): UserKey {
  const type = options.type ?? 'ed25519'
  const privateKeyPath = join(dir, options.name ?? `id_${type}_${randomBytes(3).toString('hex')}`)
  const args = ['-q', '-t', type, '-N', options.passphrase ?? '', '-C', `node-doctor-test-${type}`, '-f', privateKeyPath]
  if (type === 'rsa') args.push('-b', '2048')
  execFileSync(SSH_KEYGEN, args, {stdio: 'ignore'})
  const publicKeyPath = `${privateKeyPath}.pub`
  return {privateKeyPath, publicKeyPath, publicKey: readFileSync(publicKeyPath, 'utf8').trim(), fingerprint: keygenFingerprint(publicKeyPath)}
}

/** The SHA256 fingerprint as ssh-keygen prints it (the independent reference for our own fingerprint()). */
export function keygenFingerprint(pubPath: string): string {
  const out = execFileSync(SSH_KEYGEN, ['-l', '-E', 'sha256', '-f', pubPath], {encoding: 'utf8'})
  const fp = out.split(/\s+/)[1]
  if (!fp?.startsWith('SHA256:')) throw new Error(`unexpected ssh-keygen -lf output: ${out}`)
  return fp
}

/** Starts a private sshd; retries on a port clash. */
export async function startSshd(options: SshdOptions): Promise<Sshd> {
  const reason = sshdSkipReason()
  if (reason) throw new Error(`cannot start sshd: ${reason}`)
  mkdirSync('/run/sshd', {recursive: true, mode: 0o755})
  const dir = makeTempDir('nd-sshd-')
  // sshd reads authorized_keys as the target user (e.g. nobody): traversable dir, world-readable public keys.
  chmodSync(dir, 0o711)
  const host = options.listenAddress ?? '127.0.0.1'
  const hostKeys = options.hostKeysFrom ? options.hostKeysFrom.hostKeys.map((k) => copyHostKey(k, dir)) : (options.hostKeyTypes ?? ['ed25519']).map((t) => makeHostKey(dir, t))
  mkdirSync(join(dir, 'home'))
  writeFileSync(join(dir, 'authorized_keys'), options.authorizedKeys.map((l) => `${l}\n`).join(''), {mode: 0o644})

  let lastError = ''
  for (let attempt = 0; attempt < 6; attempt++) {
    const port = options.netns ? 20000 + Math.floor(Math.random() * 20000) : await freePort(host)
    const configPath = join(dir, 'sshd_config')
    writeFileSync(configPath, sshdConfig({dir, host, port, hostKeys, logLevel: options.logLevel ?? 'VERBOSE', extra: options.extraConfig}), {mode: 0o600})
    const argv = [SSHD, '-D', '-e', '-f', configPath]
    const child = options.netns ? spawn('ip', ['netns', 'exec', options.netns, ...argv], {stdio: ['ignore', 'ignore', 'pipe']}) : spawn(argv[0]!, argv.slice(1), {stdio: ['ignore', 'ignore', 'pipe']})
    running.add(child)
    const chunks: Buffer[] = []
    child.stderr!.on('data', (b: Buffer) => chunks.push(b))
    const log = () => Buffer.concat(chunks).toString('utf8')
    const exited = new Promise<void>((resolve) => child.once('exit', () => (running.delete(child), resolve())))
    const ready = await Promise.race([
      waitFor(() => /Server listening on/.test(log()), 10_000).then(() => true),
      exited.then(() => false),
    ])
    if (!ready) {
      lastError = log()
      if (/Address already in use|Cannot bind/i.test(lastError)) continue
      rmSync(dir, {recursive: true, force: true})
      throw new Error(`sshd failed to start:\n${lastError}`)
    }
    let stopped = false
    return {
      host,
      port,
      dir,
      pid: child.pid!,
      hostKeys,
      knownHostsLine: (alias) => hostKeys.map((k) => `${alias ?? (port === 22 ? host : `[${host}]:${port}`)} ${k.publicKey}\n`).join(''),
      log,
      count: (re) => log().split('\n').filter((l) => re.test(l)).length,
      waitForLog: (re, timeoutMs = 5_000) => waitFor(() => re.test(log()), timeoutMs),
      waitForCount: (re, n, timeoutMs = 5_000) => waitFor(() => log().split('\n').filter((l) => re.test(l)).length >= n, timeoutMs),
      stop: async () => {
        if (stopped) return
        stopped = true
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGTERM')
          const t = setTimeout(() => child.kill('SIGKILL'), 2_000)
          await exited
          clearTimeout(t)
        }
        rmSync(dir, {recursive: true, force: true})
      },
    }
  }
  rmSync(dir, {recursive: true, force: true})
  throw new Error(`sshd could not bind a port after 6 attempts:\n${lastError}`)
}

function makeHostKey(dir: string, type: HostKeyType): SshdHostKey {
  const privateKeyPath = join(dir, `ssh_host_${type}_key`)
  const args = ['-q', '-t', type, '-N', '', '-C', '', '-f', privateKeyPath]
  if (type === 'rsa') args.push('-b', '2048')
  execFileSync(SSH_KEYGEN, args, {stdio: 'ignore'})
  const [keyType, b64] = readFileSync(`${privateKeyPath}.pub`, 'utf8').trim().split(/\s+/)
  return {
    type: keyType!,
    publicKey: `${keyType} ${b64}`,
    blob: Buffer.from(b64!, 'base64'),
    fingerprint: keygenFingerprint(`${privateKeyPath}.pub`),
    privateKeyPath,
  }
}

function copyHostKey(k: SshdHostKey, dir: string): SshdHostKey {
  const privateKeyPath = join(dir, basename(k.privateKeyPath))
  copyFileSync(k.privateKeyPath, privateKeyPath)
  chmodSync(privateKeyPath, 0o600)
  return {...k, privateKeyPath}
}

function sshdConfig(p: {dir: string; host: string; port: number; hostKeys: readonly SshdHostKey[]; logLevel: string; extra: string | undefined}): string {
  return [
    `ListenAddress ${p.host.includes(':') ? `[${p.host}]` : p.host}:${p.port}`,
    ...p.hostKeys.map((k) => `HostKey ${k.privateKeyPath}`),
    'PidFile none',
    `AuthorizedKeysFile ${join(p.dir, 'authorized_keys')}`,
    // The temp dir lives under world-writable /tmp, which StrictModes would reject.
    'StrictModes no',
    'UsePAM no',
    'PubkeyAuthentication yes',
    'PasswordAuthentication no',
    'KbdInteractiveAuthentication no',
    'PermitRootLogin prohibit-password',
    'UseDNS no',
    'PrintMotd no',
    'PrintLastLog no',
    'X11Forwarding no',
    'AllowTcpForwarding yes',
    `LogLevel ${p.logLevel}`,
    // bash sources ~/.bashrc for ssh commands; the real one (pyenv, nvm, ...) would dominate every test's time.
    `SetEnv HOME=${join(p.dir, 'home')}`,
    // Subsystem lines and other defaults are inherited from sshd's compiled-in values, not /etc/ssh.
    p.extra ?? '',
    '',
  ].join('\n')
}

function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.once('error', reject)
    srv.listen(0, host, () => {
      const addr = srv.address()
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))))
    })
  })
}

async function waitFor(cond: () => boolean, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs
  while (!cond()) {
    if (Date.now() > until) throw new Error(`condition not met within ${timeoutMs} ms`)
    await new Promise((r) => setTimeout(r, 10))
  }
}

/** An sshd namespace driven like test/support/netns.ts namespaces (what setupCalicoNode and setupCniNode take). */
export function asPodsNetns(ns: Netns): PodsNetns {
  const run = (argv: string[], input?: string) => {
    const r = spawnSync('ip', ['netns', 'exec', ns.name, ...argv], {input, encoding: 'utf8'})
    return {status: r.status, stdout: r.stdout, stderr: r.stderr}
  }
  return {
    name: ns.name,
    run,
    exec(argv, input) {
      const r = run(argv, input)
      if (r.status !== 0) throw new Error(`${argv.join(' ')} in netns ${ns.name} failed (${r.status}): ${r.stderr}`)
      return r.stdout
    },
    destroy: () => ns.remove(),
  }
}

export interface Netns {
  name: string
  /** Address of the namespace's end of the veth pair, reachable from the host. */
  address: string
  /** Address of the host's end. */
  hostAddress: string
  remove(): void
}

/**
 * Creates a network namespace joined to the host by a veth pair on a random 10.x/30 (link-local to this pair
 * only). Inside it, 127.0.0.1 is the namespace's own loopback, unreachable from the host.
 */
export function createNetns(): Netns {
  const tag = `${process.pid.toString(36)}${randomBytes(2).toString('hex')}`
  const name = `nd-ssh-${tag}`
  const hostIf = `ndh${tag}`.slice(0, 15)
  const nsIf = `ndn${tag}`.slice(0, 15)
  const b = 1 + Math.floor(Math.random() * 250)
  const c = Math.floor(Math.random() * 64) * 4
  const hostAddress = `10.213.${b}.${c + 1}`
  const address = `10.213.${b}.${c + 2}`
  const ip = (...args: string[]) => execFileSync('ip', args, {stdio: ['ignore', 'ignore', 'pipe']})
  const remove = () => {
    try {
      ip('link', 'del', hostIf)
    } catch {}
    try {
      ip('netns', 'del', name)
    } catch {}
  }
  try {
    ip('netns', 'add', name)
    ip('link', 'add', hostIf, 'type', 'veth', 'peer', 'name', nsIf)
    ip('link', 'set', nsIf, 'netns', name)
    ip('addr', 'add', `${hostAddress}/30`, 'dev', hostIf)
    ip('link', 'set', hostIf, 'up')
    ip('-n', name, 'addr', 'add', `${address}/30`, 'dev', nsIf)
    ip('-n', name, 'link', 'set', nsIf, 'up')
    ip('-n', name, 'link', 'set', 'lo', 'up')
    // A Kubernetes node forwards IPv4 (the container runtime, the CNI and kube-proxy all need it; NODE-001 checks it);
    // a new network namespace starts with forwarding off.
    execFileSync('ip', ['netns', 'exec', name, 'sysctl', '-qw', 'net.ipv4.ip_forward=1'], {stdio: ['ignore', 'ignore', 'pipe']})
  } catch (err) {
    remove()
    throw err
  }
  process.once('exit', remove)
  return {name, address, hostAddress, remove}
}

/** A direct SshTarget for a harness sshd (root, one key, known_hosts file given), with overrides. */
export function targetFor(sshd: Sshd, key: UserKey, knownHostsFile: string, overrides: Partial<SshTarget> = {}): SshTarget {
  return {
    name: `node-${sshd.port}`,
    host: sshd.host,
    port: sshd.port,
    user: 'root',
    identityFiles: [key.privateKeyPath],
    identitiesOnly: true,
    proxyJump: [],
    knownHostsFiles: [knownHostsFile],
    strictHostKeyChecking: 'yes',
    ...overrides,
  }
}
