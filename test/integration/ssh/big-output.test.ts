// A 100 MB command output over one SSH channel: intact, and without quadratic buffering or runaway memory.
// Its own file so that the peak RSS measured here belongs to this transfer alone.
import assert from 'node:assert/strict'
import {rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'
import {SshTransport} from '../../../src/transports/ssh/ssh.js'
import {makeTempDir, makeUserKey, type Sshd, sshdSkipReason, startSshd, targetFor, type UserKey} from '../../support/sshd.js'

const SIZE = 100_000_000
const MiB = 1024 * 1024

describe('large outputs over SSH', {skip: sshdSkipReason()}, () => {
  let dir: string
  let key: UserKey
  let sshd: Sshd
  let knownHosts: string

  before(async () => {
    dir = makeTempDir()
    key = makeUserKey(dir)
    sshd = await startSshd({authorizedKeys: [key.publicKey]})
    knownHosts = join(dir, 'known_hosts')
    writeFileSync(knownHosts, sshd.knownHostsLine())
  })
  after(async () => {
    await sshd?.stop()
    rmSync(dir, {recursive: true, force: true})
  })

  it('delivers 100 MB of stdout intact within memory bounds', async () => {
    const t = new SshTransport('node-big', targetFor(sshd, key, knownHosts), {agentSocket: ''})
    try {
      await t.exec('true', {timeoutMs: 10_000})
      const rssBefore = process.memoryUsage().rss
      const started = Date.now()
      const r = await t.exec("head -c 100000000 /dev/zero | tr '\\0' a; echo end >&2", {timeoutMs: 120_000, maxBytes: 128 * MiB})
      const seconds = (Date.now() - started) / 1000
      const peakMiB = process.resourceUsage().maxRSS / 1024
      assert.equal(r.exitCode, 0)
      assert.equal(r.stderr, 'end\n')
      assert.equal(r.stdout.length, SIZE)
      assert.ok(!/[^a]/.test(r.stdout), 'every byte arrived unchanged')
      // Decoded pieces + the joined string: about 2.5x the payload; quadratic copying would be far slower.
      assert.ok(peakMiB - rssBefore / MiB < 3 * (SIZE / MiB), `peak RSS grew by ${Math.round(peakMiB - rssBefore / MiB)} MiB`)
      assert.ok(seconds < 60, `took ${seconds}s`)
      console.log(`# 100 MB over ssh: ${seconds.toFixed(2)} s, peak RSS ${Math.round(peakMiB)} MiB (was ${Math.round(rssBefore / MiB)} MiB)`)
    } finally {
      await t.close()
    }
  })
})
