// An OpenSSH client config entry decides how a node name is reached: HostName, Port, User, IdentityFile and
// UserKnownHostsFile come from the file (written per run, since the sshd port is random), flags override it.
import assert from 'node:assert/strict'
import {mkdirSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'
import {SshTransport} from '../../../src/transports/ssh/ssh.js'
import {resolveSshTarget} from '../../../src/transports/ssh/ssh-config.js'
import {makeTempDir, makeUserKey, type Sshd, sshdSkipReason, startSshd} from '../../support/sshd.js'

describe('ssh config entries for node names', {skip: sshdSkipReason()}, () => {
  let home: string
  let sshd: Sshd

  before(async () => {
    home = makeTempDir('nd-home-')
    mkdirSync(join(home, '.ssh'), {mode: 0o700})
    const key = makeUserKey(join(home, '.ssh'), {name: 'lab_key'})
    // A default-named key that the server does not accept: it must not be what gets used.
    makeUserKey(join(home, '.ssh'), {name: 'id_ed25519'})
    sshd = await startSshd({authorizedKeys: [key.publicKey]})
    writeFileSync(join(home, '.ssh', 'lab_known_hosts'), sshd.knownHostsLine())
    writeFileSync(
      join(home, '.ssh', 'config'),
      [
        'Host worker-*.lab',
        '  HostName 127.0.0.1',
        `  Port ${sshd.port}`,
        '  User nobody',
        '  IdentityFile ~/.ssh/lab_key',
        '  UserKnownHostsFile ~/.ssh/lab_known_hosts',
        '',
      ].join('\n'),
    )
  })
  after(async () => {
    await sshd?.stop()
    rmSync(home, {recursive: true, force: true})
  })

  const runAs = async (flags: {user?: string}) => {
    const target = resolveSshTarget({nodeName: 'worker-7.lab', address: '192.0.2.77', flags, env: {}, home, localUser: 'tester'})
    const t = new SshTransport('worker-7.lab', target, {agentSocket: ''})
    try {
      return {target, result: await t.exec('id -un', {timeoutMs: 10_000})}
    } finally {
      await t.close()
    }
  }

  it('connects with HostName, Port, User, IdentityFile and UserKnownHostsFile from the entry', async () => {
    const {target, result} = await runAs({})
    assert.deepEqual([target.host, target.port, target.user], ['127.0.0.1', sshd.port, 'nobody'])
    assert.deepEqual(target.identityFiles, [join(home, '.ssh', 'lab_key')])
    // sshd accepted the config's user with the config's key; nobody's nologin shell then refuses the command.
    await sshd.waitForLog(/Accepted publickey for nobody from 127\.0\.0\.1/)
    assert.equal(result.exitCode, 1)
    assert.match(result.stdout + result.stderr, /not available/)
  })

  it('lets an explicit user flag win over the entry', async () => {
    const {result} = await runAs({user: 'root'})
    assert.deepEqual(result, {exitCode: 0, stdout: 'root\n', stderr: ''})
  })
})
