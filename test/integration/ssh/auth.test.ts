// Authentication against a real sshd: identity files, ssh-agent (a private ssh-agent per suite), and the
// errors a user sees when none of it works.
import assert from 'node:assert/strict'
import {type ChildProcess, execFileSync, spawn} from 'node:child_process'
import {existsSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'
import {TransportError} from '../../../src/transports/ssh/errors.js'
import {SshTransport} from '../../../src/transports/ssh/ssh.js'
import {makeTempDir, makeUserKey, type Sshd, sshdSkipReason, startSshd, targetFor, type UserKey} from '../../support/sshd.js'

const skip = sshdSkipReason()

describe('SSH authentication', {skip}, () => {
  let dir: string
  let sshd: Sshd
  let knownHosts: string
  let authorized: UserKey
  let stranger: UserKey
  /** Authorized, but encrypted on disk; its unencrypted form was loaded into the agent first. */
  let locked: UserKey
  let agent: ChildProcess | undefined
  let agentSocket: string

  before(async () => {
    dir = makeTempDir()
    authorized = makeUserKey(dir)
    stranger = makeUserKey(dir)
    locked = makeUserKey(dir)
    sshd = await startSshd({authorizedKeys: [authorized.publicKey, locked.publicKey]})
    knownHosts = join(dir, 'known_hosts')
    writeFileSync(knownHosts, sshd.knownHostsLine())
    agentSocket = join(dir, 'agent.sock')
    agent = spawn('ssh-agent', ['-D', '-a', agentSocket], {stdio: 'ignore'})
    for (let i = 0; i < 200 && !existsSync(agentSocket); i++) await new Promise((r) => setTimeout(r, 10))
    execFileSync('ssh-add', ['-q', locked.privateKeyPath, stranger.privateKeyPath], {env: {...process.env, SSH_AUTH_SOCK: agentSocket}, stdio: 'ignore'})
    execFileSync('ssh-keygen', ['-q', '-p', '-N', 'correct horse', '-f', locked.privateKeyPath], {stdio: 'ignore'})
  })
  after(async () => {
    agent?.kill()
    await sshd?.stop()
    rmSync(dir, {recursive: true, force: true})
  })

  const run = async (node: string, overrides: Parameters<typeof targetFor>[3], agentSock = '') => {
    // The agent comes from the target (IdentityAgent / SSH_AUTH_SOCK as resolved), '' meaning none.
    const t = new SshTransport(node, targetFor(sshd, authorized, knownHosts, {identityAgent: agentSock, ...overrides}))
    try {
      return await t.exec('echo ok', {timeoutMs: 10_000})
    } finally {
      await t.close()
    }
  }

  it('authenticates with an identity file', async () => {
    assert.equal((await run('node-key', {})).stdout, 'ok\n')
    assert.ok(sshd.log().includes(`Accepted publickey for root from 127.0.0.1`))
  })

  it('tries identity files in order until one is accepted', async () => {
    assert.equal((await run('node-keys', {identityFiles: [stranger.privateKeyPath, authorized.privateKeyPath]})).stdout, 'ok\n')
    assert.ok(sshd.log().includes(authorized.fingerprint))
  })

  it('a wrong key fails with the user, the methods tried and what the server accepts', async () => {
    await assert.rejects(run('node-wrong', {identityFiles: [stranger.privateKeyPath]}), (e: unknown) => {
      assert.ok(e instanceof TransportError)
      assert.equal(e.reason, 'auth')
      assert.equal(
        e.message,
        `ssh to node node-wrong (root@127.0.0.1:${sshd.port}): authentication failed for user root; tried: publickey ${stranger.privateKeyPath}; the server accepts: publickey`,
      )
      assert.match(e.hint ?? '', /authorized_keys/)
      return true
    })
  })

  it('an encrypted key without an agent is a clear error naming the file', async () => {
    await assert.rejects(run('node-locked', {identityFiles: [locked.privateKeyPath]}), (e: unknown) => {
      assert.ok(e instanceof TransportError)
      assert.equal(e.reason, 'auth')
      assert.match(e.message, new RegExp(`${escape(locked.privateKeyPath)} is encrypted with a passphrase, which node-doctor cannot prompt for`))
      assert.equal(e.hint, `Load the key into ssh-agent (ssh-add ${locked.privateKeyPath}) and run with SSH_AUTH_SOCK set.`)
      return true
    })
  })

  it('uses ssh-agent, which holds the encrypted key', async () => {
    assert.equal((await run('node-agent', {identityFiles: [locked.privateKeyPath]}, agentSocket)).stdout, 'ok\n')
    assert.ok(sshd.log().includes(`Accepted publickey for root from 127.0.0.1`) && sshd.log().includes(locked.fingerprint))
  })

  it('with IdentitiesOnly, offers only the agent keys that match the identity files', async () => {
    await assert.rejects(run('node-only', {identityFiles: [stranger.privateKeyPath], identitiesOnly: true}, agentSocket), (e: unknown) => {
      assert.ok(e instanceof TransportError)
      assert.match(e.message, /tried: ssh-agent \(1 key\), publickey .*; the server accepts: publickey/)
      return true
    })
    assert.equal((await run('node-any', {identityFiles: [stranger.privateKeyPath], identitiesOnly: false}, agentSocket)).stdout, 'ok\n', 'without IdentitiesOnly every agent key is offered')
  })

  it('a stale SSH_AUTH_SOCK is skipped and named in the failure', async () => {
    const stale = join(dir, 'gone.sock')
    assert.equal((await run('node-stale', {}, stale)).stdout, 'ok\n')
    await assert.rejects(run('node-stale2', {identityFiles: [stranger.privateKeyPath]}, stale), (e: unknown) => {
      assert.ok(e instanceof TransportError)
      assert.match(e.message, /tried: ssh-agent \(unusable: .*\), publickey /)
      return true
    })
  })

  it('no credentials at all fails before connecting', async () => {
    const acceptedBefore = sshd.count(/Connection from/)
    await assert.rejects(run('node-bare', {identityFiles: []}), (e: unknown) => {
      assert.ok(e instanceof TransportError)
      assert.equal(e.reason, 'auth')
      assert.match(e.message, /no credentials to authenticate as root: no ssh-agent \(SSH_AUTH_SOCK is not set, or IdentityAgent none\); no identity file/)
      return true
    })
    assert.equal(sshd.count(/Connection from/), acceptedBefore)
  })
})

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
