// Host key verification against a real sshd, with known_hosts files written per test. Fingerprints are
// compared with `ssh-keygen -lf` output (the harness records it), and hashed entries come from `ssh-keygen -H`.
import assert from 'node:assert/strict'
import {execFileSync} from 'node:child_process'
import {readFileSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'
import {TransportError} from '../../../src/transports/ssh/errors.js'
import {SshTransport} from '../../../src/transports/ssh/ssh.js'
import type {SshTarget} from '../../../src/transports/ssh/ssh-config.js'
import {makeTempDir, makeUserKey, type Sshd, sshdSkipReason, startSshd, targetFor, type UserKey} from '../../support/sshd.js'

describe('host key verification', {skip: sshdSkipReason()}, () => {
  let dir: string
  let key: UserKey
  let sshd: Sshd
  /** An ed25519 public key that is not the server's: stands for the key of a previous install. */
  let oldKey: string
  let n = 0

  before(async () => {
    dir = makeTempDir()
    key = makeUserKey(dir)
    oldKey = makeUserKey(dir).publicKey.split(' ').slice(0, 2).join(' ')
    sshd = await startSshd({authorizedKeys: [key.publicKey], hostKeyTypes: ['ed25519', 'rsa']})
  })
  after(async () => {
    await sshd?.stop()
    rmSync(dir, {recursive: true, force: true})
  })

  const knownHosts = (text: string) => {
    const f = join(dir, `known_hosts_${++n}`)
    writeFileSync(f, text)
    return f
  }
  const connect = async (file: string, overrides: Partial<SshTarget> = {}) => {
    const t = new SshTransport('node-hk', targetFor(sshd, key, file, overrides), {agentSocket: ''})
    try {
      const r = await t.exec('echo ok', {timeoutMs: 10_000})
      return {stdout: r.stdout, warnings: t.warnings}
    } finally {
      await t.close()
    }
  }
  const ed = () => sshd.hostKeys.find((k) => k.type === 'ssh-ed25519')!
  const rsa = () => sshd.hostKeys.find((k) => k.type === 'ssh-rsa')!
  const name = () => `[127.0.0.1]:${sshd.port}`

  it('accepts the key listed under [127.0.0.1]:PORT', async () => {
    assert.equal((await connect(knownHosts(`${name()} ${ed().publicKey}\n`))).stdout, 'ok\n')
  })

  it('refuses an unknown host, printing the fingerprint ssh-keygen -lf prints and the known_hosts file', async () => {
    // A port-22 entry for the same address does not cover another port.
    const file = knownHosts(`127.0.0.1 ${ed().publicKey}\n`)
    await assert.rejects(connect(file), (e: unknown) => {
      assert.ok(e instanceof TransportError)
      assert.equal(e.reason, 'host-key-unknown')
      assert.equal(e.message, `ssh to node node-hk (root@127.0.0.1:${sshd.port}): host key of ${name()} is not in known_hosts (checked: ${file}); the server presented ED25519 key ${ed().fingerprint}`)
      assert.match(e.hint ?? '', /--insecure-ignore-host-key skips this check, but then anyone who can intercept the connection can impersonate the node/)
      return true
    })
    assert.equal(sshd.count(/Accepted publickey/), 1, 'no authentication happened after the refusal')
  })

  it('refuses a changed host key, naming the known_hosts line and the new fingerprint', async () => {
    const file = knownHosts(`# previous install\n${name()} ${oldKey}\n`)
    await assert.rejects(connect(file), (e: unknown) => {
      assert.ok(e instanceof TransportError)
      assert.equal(e.reason, 'host-key-changed')
      assert.match(e.message, new RegExp(`host key of \\[127\\.0\\.0\\.1\\]:${sshd.port} has CHANGED: the server presented ED25519 key ${escape(ed().fingerprint)}, but ${escape(file)}:2 holds a different ED25519 key`))
      assert.match(e.message, /man-in-the-middle/)
      assert.match(e.hint ?? '', new RegExp(`ssh-keygen -R '${escape(name())}' -f ${escape(file)}`))
      assert.match(e.hint ?? '', /--insecure-ignore-host-key/)
      return true
    })
  })

  it('accepts entries hashed by ssh-keygen -H (and OpenSSH agrees with the same file)', async () => {
    const file = knownHosts(`${name()} ${ed().publicKey}\n`)
    execFileSync('ssh-keygen', ['-H', '-f', file], {stdio: 'ignore'})
    const text = readFileSync(file, 'utf8')
    assert.match(text, /^\|1\|/)
    assert.ok(!text.includes('127.0.0.1'))
    assert.equal((await connect(file)).stdout, 'ok\n')
    const viaOpenSsh = execFileSync(
      'ssh',
      ['-F', '/dev/null', '-o', 'BatchMode=yes', '-o', `UserKnownHostsFile=${file}`, '-o', 'GlobalKnownHostsFile=/dev/null', '-o', 'StrictHostKeyChecking=yes', '-o', 'HostKeyAlgorithms=ssh-ed25519', '-i', key.privateKeyPath, '-p', String(sshd.port), 'root@127.0.0.1', 'echo ok'],
      {encoding: 'utf8'},
    )
    assert.equal(viaOpenSsh, 'ok\n')
  })

  it('prefers the host key type known_hosts has, like ssh(1), when the server has several', async () => {
    assert.equal((await connect(knownHosts(`${name()} ${rsa().publicKey}\n`))).stdout, 'ok\n')
  })

  it('refuses a @revoked key even with the check disabled', async () => {
    const file = knownHosts(`@revoked ${name()} ${ed().publicKey}\n${name()} ${ed().publicKey}\n`)
    await assert.rejects(connect(file, {strictHostKeyChecking: 'no'}), (e: unknown) => e instanceof TransportError && e.reason === 'host-key-revoked' && e.message.includes(`${file}:1`))
  })

  it('uses HostKeyAlias as the known_hosts name', async () => {
    assert.equal((await connect(knownHosts(`node-hk-alias ${ed().publicKey}\n`), {hostKeyAlias: 'node-hk-alias'})).stdout, 'ok\n')
  })

  it('accept-new takes an unknown key but not a changed one, and changes no file', async () => {
    const empty = knownHosts('')
    const r = await connect(empty, {strictHostKeyChecking: 'accept-new'})
    assert.equal(r.stdout, 'ok\n')
    assert.match(r.warnings[0] ?? '', /not in known_hosts; accepted because of StrictHostKeyChecking accept-new \(known_hosts was not changed\)/)
    assert.equal(readFileSync(empty, 'utf8'), '')
    await assert.rejects(connect(knownHosts(`${name()} ${oldKey}\n`), {strictHostKeyChecking: 'accept-new'}), (e: unknown) => e instanceof TransportError && e.reason === 'host-key-changed')
  })

  it('--insecure-ignore-host-key (StrictHostKeyChecking no) connects despite a changed key, with a warning', async () => {
    const r = await connect(knownHosts(`${name()} ${oldKey}\n`), {strictHostKeyChecking: 'no'})
    assert.equal(r.stdout, 'ok\n')
    assert.match(r.warnings[0] ?? '', /different from known_hosts; accepted because of StrictHostKeyChecking no \/ --insecure-ignore-host-key/)
    assert.ok(r.warnings[0]?.includes(ed().fingerprint))
  })
})

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
