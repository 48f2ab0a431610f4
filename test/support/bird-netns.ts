// Real BIRD 1.6 (the BIRD calico-node runs) in network namespaces, configured the way Calico's confd templates
// configure it (bird.cfg.template: kernel/device/direct protocols, bgp_template, Mesh_/Global_/Node_<peer> sessions),
// to capture `show protocols` exactly as the collection plan's bird-protocols and bird6-protocols items print it.
// node-a (192.168.0.11) peers in a full mesh with node-b (192.168.0.12), each in its own namespace; optional extra
// peers live in a third namespace `router` behind a second link of node-a, with or without a BGP speaker.
import {spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {createNetns, type Netns} from './netns.js'

/** Why BIRD cannot run here, or undefined when it can. */
export function birdUnavailable(): string | undefined {
  for (const tool of ['bird', 'bird6', 'birdc', 'birdc6']) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) return `${tool} is not installed (Debian/Ubuntu: apt-get install bird)`
  }
  return undefined
}

export interface ExtraPeer {
  /** Calico protocol name prefix. */
  kind: 'Global' | 'Node'
  ip: string
  as: number
  /** Run a BIRD for it in the router namespace that accepts node-a's session. */
  speaks: boolean
}

export interface BirdSetup {
  /** Sessions from node-a besides the mesh peer node-b. */
  extraPeers?: ExtraPeer[]
  /** node-b's BIRD runs (false: calico-node down there). */
  nodeB?: boolean
  /** The BGP state node-a's protocols must reach before the capture, by name; default Established for running peers. */
  waitFor?: Record<string, RegExp>
}

const AS = 64512
const NODES = {a: '192.168.0.11', b: '192.168.0.12'}

function calicoName(kind: string, ip: string): string {
  return `${kind}_${ip.replaceAll('.', '_').replaceAll(':', '_')}`
}

/** bird.cfg as Calico's template renders it for one node (filters simplified to import/export of all). */
export function birdConfig(self: string, peers: Array<{name: string; ip: string; as: number; passive: boolean}>): string {
  return [
    `router id ${self};`,
    '',
    'protocol kernel {',
    '  learn;',
    '  persist;',
    '  scan time 2;',
    '  import all;',
    '  export none;',
    '  graceful restart;',
    '  merge paths on;',
    '}',
    '',
    'protocol device {',
    '  scan time 2;',
    '}',
    '',
    'protocol direct {',
    '  debug { states };',
    '  interface -"cali*", -"kube-ipvs*", "*";',
    '}',
    '',
    'template bgp bgp_template {',
    '  debug { states };',
    '  description "Connection to BGP peer";',
    `  local as ${AS};`,
    '  multihop;',
    '  gateway recursive;',
    '  import all;',
    '  export none;',
    '  add paths on;',
    '  graceful restart;',
    '  connect delay time 1;',
    '  connect retry time 3;',
    '  error wait time 5,60;',
    '}',
    '',
    ...peers.flatMap((p) => [
      `protocol bgp ${p.name} from bgp_template {`,
      `  neighbor ${p.ip} as ${p.as};`,
      `  source address ${self};`,
      ...(p.passive ? ['  passive on;'] : []),
      '}',
      '',
    ]),
  ].join('\n')
}

/** bird6.cfg on an IPv4-only node: Calico writes no BGP sessions, just the kernel, device and direct protocols. */
const BIRD6_IPV4_ONLY = birdConfig(NODES.a, []).replace('  merge paths on;\n', '')

export interface CapturedBird {
  'bird-protocols': string
  'bird6-protocols': string
}

function ipLess(a: string, b: string): boolean {
  const n = (ip: string) => ip.split('.').reduce((acc, x) => acc * 256 + Number(x), 0)
  return n(a) < n(b)
}

/** Starts the namespaces and daemons, waits for the sessions to settle, captures node-a, and tears everything down. */
export async function captureBird(setup: BirdSetup = {}): Promise<CapturedBird> {
  const dir = mkdtempSync(join(tmpdir(), 'nd-bird-'))
  const spaces: Netns[] = []
  const pids: string[] = []
  const ns = (prefix: string) => {
    const n = createNetns(prefix)
    spaces.push(n)
    n.exec(['ip', 'link', 'set', 'lo', 'up'])
    return n
  }
  const start = (n: Netns, daemon: 'bird' | 'bird6', name: string, config: string) => {
    const cfg = join(dir, `${name}.conf`)
    writeFileSync(cfg, config)
    n.exec([daemon, '-c', cfg, '-s', join(dir, `${name}.ctl`), '-P', join(dir, `${name}.pid`)])
    pids.push(join(dir, `${name}.pid`))
  }
  try {
    const a = ns('nd-bga')
    const b = ns('nd-bgb')
    a.exec(['ip', 'link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', 'eth0', 'netns', b.name])
    a.exec(['ip', 'addr', 'add', `${NODES.a}/24`, 'dev', 'eth0'])
    b.exec(['ip', 'addr', 'add', `${NODES.b}/24`, 'dev', 'eth0'])
    a.exec(['ip', 'link', 'set', 'eth0', 'up'])
    b.exec(['ip', 'link', 'set', 'eth0', 'up'])
    const extra = setup.extraPeers ?? []
    if (extra.length > 0) {
      const r = ns('nd-bgr')
      a.exec(['ip', 'link', 'add', 'eth1', 'type', 'veth', 'peer', 'name', 'eth1', 'netns', r.name])
      a.exec(['ip', 'link', 'set', 'eth1', 'up'])
      r.exec(['ip', 'link', 'set', 'eth1', 'up'])
      r.exec(['ip', 'route', 'add', `${NODES.a}/32`, 'dev', 'eth1'])
      for (const p of extra) {
        r.exec(['ip', 'addr', 'add', `${p.ip}/32`, 'dev', 'eth1'])
        a.exec(['ip', 'route', 'add', `${p.ip}/32`, 'dev', 'eth1'])
      }
      const speakers = extra.filter((p) => p.speaks)
      if (speakers.length > 0) {
        start(r, 'bird', 'router', birdConfig(speakers[0]!.ip, [{name: calicoName('Peer', NODES.a), ip: NODES.a, as: AS, passive: false}]).replace(`local as ${AS};`, `local as ${speakers[0]!.as};`))
      }
    }
    const meshToB = {name: calicoName('Mesh', NODES.b), ip: NODES.b, as: AS, passive: ipLess(NODES.a, NODES.b)}
    start(a, 'bird', 'node-a', birdConfig(NODES.a, [meshToB, ...extra.map((p) => ({name: calicoName(p.kind, p.ip), ip: p.ip, as: p.as, passive: false}))]))
    start(a, 'bird6', 'node-a6', BIRD6_IPV4_ONLY)
    if (setup.nodeB !== false) start(b, 'bird', 'node-b', birdConfig(NODES.b, [{name: calicoName('Mesh', NODES.a), ip: NODES.a, as: AS, passive: ipLess(NODES.b, NODES.a)}]))

    const wanted: Record<string, RegExp> = {
      ...(setup.nodeB !== false ? {[meshToB.name]: /\bEstablished\b/} : {}),
      ...Object.fromEntries(extra.map((p) => [calicoName(p.kind, p.ip), p.speaks ? /\bEstablished\b/ : /\b(Active|Connect)\s+Socket: /])),
      ...setup.waitFor,
    }
    const show = (daemon: 'birdc' | 'birdc6', ctl: string) => a.exec([daemon, '-s', join(dir, ctl), 'show', 'protocols'])
    let text = ''
    for (let i = 0; i < 120; i++) {
      text = show('birdc', 'node-a.ctl')
      const rows = text.split('\n')
      if (Object.entries(wanted).every(([name, re]) => rows.some((r) => r.startsWith(`${name} `) && re.test(r)))) break
      await new Promise((r) => setTimeout(r, 250))
      if (i === 119) throw new Error(`BIRD sessions did not settle as wanted (${JSON.stringify(Object.fromEntries(Object.entries(wanted).map(([k, v]) => [k, v.source])))}):\n${text}`)
    }
    return {'bird-protocols': text, 'bird6-protocols': show('birdc6', 'node-a6.ctl')}
  } finally {
    for (const p of pids) {
      try {
        process.kill(Number(readFileSync(p, 'utf8').trim()))
      } catch {
        // Already gone.
      }
    }
    for (const n of spaces.reverse()) n.destroy()
    rmSync(dir, {recursive: true, force: true})
  }
}
