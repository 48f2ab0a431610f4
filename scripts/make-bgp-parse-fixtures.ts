// Writes the BIRD parser fixtures under test/fixtures/parse/bgp/ from real BIRD 1.6 daemons (the BIRD calico-node
// runs) in network namespaces (root and `apt-get install bird` needed): node-a (192.168.0.11, fd00::11) with
// Calico-named sessions in every state this setup can produce: Established, Active with a socket error, Passive
// after the peer shut the session down, down (disabled), and IPv6 sessions with Calico's `_port_` suffix.
// `show protocols` is captured through birdc (birdcl prints the same table) and straight from the control socket.
// Run: node --import tsx scripts/make-bgp-parse-fixtures.ts
import {spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {createConnection} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {birdConfig, birdUnavailable} from '../test/support/bird-netns.js'
import {createNetns, netnsUnavailable} from '../test/support/netns.js'

const why = netnsUnavailable() ?? birdUnavailable()
if (why) throw new Error(`BGP parser fixtures capture real BIRD output: ${why}`)

const OUT = 'test/fixtures/parse/bgp'
const dir = mkdtempSync(join(tmpdir(), 'nd-bgpfx-'))
const a = createNetns('nd-bfa')
const b = createNetns('nd-bfb')
const pids: string[] = []
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

function start(ns: typeof a, daemon: string, name: string, config: string): string {
  writeFileSync(join(dir, `${name}.conf`), config)
  ns.exec([daemon, '-c', join(dir, `${name}.conf`), '-s', join(dir, `${name}.ctl`), '-P', join(dir, `${name}.pid`)])
  pids.push(join(dir, `${name}.pid`))
  return join(dir, `${name}.ctl`)
}

/** `show protocols` as the raw control-socket dialogue prints it (reply codes on every line). */
function rawShowProtocols(ctl: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let buf = ''
    const s = createConnection(ctl)
    s.on('data', (d) => {
      buf += d.toString('utf8')
      if (/^0001 /m.test(buf) && !buf.includes('show protocols sent')) {
        buf += 'show protocols sent'
        s.write('show protocols\n')
      }
      if (/^0000/m.test(buf.split('show protocols sent')[1] ?? '')) {
        s.end()
        resolve(buf.replace('show protocols sent', ''))
      }
    })
    s.on('error', reject)
  })
}

try {
  for (const ns of [a, b]) {
    ns.exec(['ip', 'link', 'set', 'lo', 'up'])
    ns.exec(['sysctl', '-qw', 'net.ipv6.conf.all.disable_ipv6=0', 'net.ipv6.conf.default.disable_ipv6=0'])
  }
  a.exec(['ip', 'link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', 'eth0', 'netns', b.name])
  for (const [ns, v4, v6] of [[a, '192.168.0.11', 'fd00::11'], [b, '192.168.0.12', 'fd00::12']] as const) {
    ns.exec(['ip', 'addr', 'add', `${v4}/24`, 'dev', 'eth0'])
    ns.exec(['ip', 'addr', 'add', `${v6}/64`, 'dev', 'eth0', 'nodad'])
    ns.exec(['ip', 'link', 'set', 'eth0', 'up'])
  }
  a.exec(['ip', 'route', 'add', 'fd00:1::/64', 'via', 'fd00::99'])
  const peer = (name: string, ip: string, passive = false, as = 64512) => ({name, ip, as, passive})
  const ctlA = start(a, 'bird', 'a', birdConfig('192.168.0.11', [peer('Mesh_192_168_0_12', '192.168.0.12', true), peer('Mesh_192_168_1_13', '192.168.1.13'), peer('Global_192_168_0_1_port_1790', '192.168.0.1')]))
  const ctlB = start(b, 'bird', 'b', birdConfig('192.168.0.12', [peer('Mesh_192_168_0_11', '192.168.0.11')]))
  const v6 = (self: string, peers: ReturnType<typeof peer>[]) => birdConfig('192.168.0.11', peers).replaceAll('source address 192.168.0.11', `source address ${self}`).replace('  merge paths on;\n', '')
  const ctlA6 = start(a, 'bird6', 'a6', v6('fd00::11', [peer('Mesh_fd00__12', 'fd00::12', true), peer('Node_fd00_1__1_port_1790', 'fd00:1::1')]))
  start(b, 'bird6', 'b6', v6('fd00::12', [peer('Mesh_fd00__11', 'fd00::11')]).replace('router id 192.168.0.11', 'router id 192.168.0.12'))
  const show = (client: string, ctl: string) => a.exec([client, '-s', ctl, 'show', 'protocols'])
  for (let i = 0; i < 80 && !/Mesh_192_168_0_12 .*Established/.test(show('birdc', ctlA)); i++) await sleep(250)
  for (let i = 0; i < 80 && !/Mesh_fd00__12 .*Established/.test(show('birdc6', ctlA6)); i++) await sleep(250)
  writeFileSync(join(OUT, 'birdc-established.txt'), show('birdc', ctlA))
  // node-b shuts its side down: node-a (passive towards node-b) waits again and shows the peer's notification.
  b.exec(['birdc', '-s', ctlB, 'disable', 'Mesh_192_168_0_11'])
  a.exec(['birdc', '-s', ctlA, 'disable', 'Mesh_192_168_1_13'])
  for (let i = 0; i < 40 && !/Mesh_192_168_0_12 .*Passive/.test(show('birdc', ctlA)); i++) await sleep(250)
  writeFileSync(join(OUT, 'birdc-peer-shutdown.txt'), show('birdc', ctlA))
  writeFileSync(join(OUT, 'bird-socket.txt'), await rawShowProtocols(ctlA))
  writeFileSync(join(OUT, 'birdc6.txt'), show('birdc6', ctlA6))
  const missing = spawnSync('birdc', ['-s', join(dir, 'absent.ctl'), 'show', 'protocols'], {encoding: 'utf8'})
  writeFileSync(join(OUT, 'birdc-no-socket.txt'), missing.stdout + missing.stderr.replace(dir, '/var/run/calico').replace('absent.ctl', 'bird.ctl'))
  console.log(`wrote ${OUT}`)
} finally {
  for (const p of pids) {
    try {
      process.kill(Number(readFileSync(p, 'utf8').trim()))
    } catch {
      // Already gone.
    }
  }
  b.destroy()
  a.destroy()
  rmSync(dir, {recursive: true, force: true})
}
