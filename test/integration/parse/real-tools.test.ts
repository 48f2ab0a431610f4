// The parsers against the real iproute2, net-tools and nftables binaries, in a throwaway network namespace
// (see netns.ts for the IP plan). Text and JSON forms of the same state must parse to the same model.
// UPDATE_FIXTURES=1 also rewrites the captured outputs under test/fixtures/parse/{routes,links,nft}.
import assert from 'node:assert/strict'
import {writeFileSync} from 'node:fs'
import {after, before, describe, it} from 'node:test'
import {calicoInterfaces, kubeIpvsAddresses, type LinkTable, parseLinks} from '../../../src/core/parse/links.js'
import {findNftTable, type NftRuleset, parseNft, summarizeKubeProxyTable} from '../../../src/core/parse/nft.js'
import {parseRoutes, type Route} from '../../../src/core/parse/routes.js'
import {fixturePath, readFixture} from '../../support/golden.js'
import {Netns, realToolsUnavailable} from './netns.js'

const skip = realToolsUnavailable()
const update = process.env.UPDATE_FIXTURES === '1'

function capture(ns: Netns, fixture: string, cmd: string, args: string[]): string {
  const out = ns.exec(cmd, args)
  if (update) writeFileSync(fixturePath(`parse/${fixture}`), out)
  return out
}

function withoutLines(routes: Route[]): Route[] {
  return routes.map(({line: _line, ...r}) => r)
}

describe('parsers against the real tools in a netns', {skip}, () => {
  const ns = new Netns()

  before(() => {
    ns.create()
    ns.setupCalicoNode()
    ns.nftLoad(readFixture('parse/nft/kube-proxy.nft'))
    ns.nftLoad(readFixture('parse/nft/misc.nft'))
    ns.nftLoad(readFixture('parse/nft/misc2.nft'))
  })

  after(() => ns.destroy())

  describe('routes', () => {
    it('`ip route`, `ip -d route` and `ip -j route` describe the same routes', () => {
      const text = parseRoutes(capture(ns, 'routes/ip-route.txt', 'ip', ['route']))
      const detailed = parseRoutes(capture(ns, 'routes/ip-d-route.txt', 'ip', ['-d', 'route']))
      const json = parseRoutes(capture(ns, 'routes/ip-j-route.json', 'ip', ['-j', 'route']))
      const pretty = parseRoutes(capture(ns, 'routes/ip-j-p-route.json', 'ip', ['-j', '-p', 'route']))
      assert.deepEqual([text.format, detailed.format, json.format, pretty.format], ['ip', 'ip-detailed', 'ip-json', 'ip-json'])
      assert.deepEqual(withoutLines(detailed.routes), withoutLines(text.routes))
      assert.deepEqual(withoutLines(json.routes), withoutLines(text.routes))
      assert.deepEqual(withoutLines(pretty.routes), withoutLines(text.routes))
      assert.ok(pretty.routes.every((r, i) => i === 0 || (r.line ?? 0) > (pretty.routes[i - 1]!.line ?? 0)), 'pretty JSON routes carry increasing line numbers')
    })

    it('reads the Calico shapes the kernel really produces', () => {
      const {routes} = parseRoutes(ns.exec('ip', ['route']))
      const by = (dst: string): Route | undefined => routes.find((r) => r.dst === dst)
      assert.deepEqual(by('10.244.120.64/26'), {type: 'blackhole', family: 'inet', dst: '10.244.120.64/26', protocol: 'bird', protocolId: 12, scope: 'global', table: 'main', flags: [], line: by('10.244.120.64/26')!.line})
      assert.deepEqual([by('10.244.6.0/26')?.protocol, by('10.244.6.0/26')?.protocolId], ['80', 80])
      assert.deepEqual(by('10.244.5.0/26')?.flags, ['onlink'])
      assert.equal(by('10.244.6.130/32')?.gateway, '10.0.1.7', 'host route normalised to /32')
      assert.equal(by('10.244.120.67/32')?.flags.includes('linkdown'), true)
      assert.equal(by('10.244.9.0/26')?.mtu, 1410)
      assert.deepEqual(by('10.244.8.0/26')?.nexthops, [
        {gateway: '10.0.0.7', dev: 'eth0', weight: 1, flags: []},
        {gateway: '10.0.0.8', dev: 'eth0', weight: 2, flags: []},
      ])
      assert.deepEqual([by('10.99.0.0/16')?.type, by('10.98.0.0/16')?.type], ['unreachable', 'prohibit'])
    })

    it('`ip -6 route` matches `ip -j -6 route`, blackholes included', () => {
      const text = parseRoutes(capture(ns, 'routes/ip-6-route.txt', 'ip', ['-6', 'route']))
      const json = parseRoutes(ns.exec('ip', ['-j', '-6', 'route']))
      assert.deepEqual(withoutLines(json.routes), withoutLines(text.routes))
      const bh = text.routes.find((r) => r.type === 'blackhole')
      assert.deepEqual([bh?.family, bh?.dst, bh?.protocol, bh?.dev], ['inet6', 'fd00:10:244:1::/122', 'bird', 'lo'])
      assert.equal(text.routes.find((r) => r.dst === '::/0')?.gateway, '2001:db8::1')
    })

    it('`ip route show table all` text matches `ip -j -d route show table all`', () => {
      const text = parseRoutes(capture(ns, 'routes/ip-route-table-all.txt', 'ip', ['route', 'show', 'table', 'all']))
      const json = parseRoutes(capture(ns, 'routes/ip-j-d-route-all.json', 'ip', ['-j', '-d', 'route', 'show', 'table', 'all']))
      assert.equal(json.format, 'ip-json-detailed')
      const v4 = (rs: Route[]): Route[] => withoutLines(rs.filter((r) => r.family === 'inet'))
      assert.deepEqual(v4(json.routes), v4(text.routes))
      assert.ok(text.routes.some((r) => r.type === 'local' && r.dev === 'kube-ipvs0' && r.dst === '10.96.0.1/32' && r.table === 'local'))
      assert.ok(text.routes.some((r) => r.type === 'throw' && r.table === '100'))
    })

    it('`route -n` gives the same destinations, blackhole and reject routes included', () => {
      const rn = parseRoutes(capture(ns, 'routes/route-n.txt', 'route', ['-n']))
      const ip = parseRoutes(ns.exec('ip', ['route']))
      assert.equal(rn.format, 'route-n')
      assert.deepEqual(rn.routes.map((r) => r.dst).sort(), ip.routes.map((r) => r.dst).sort())
      const bh = rn.routes.find((r) => r.dst === '10.244.120.64/26')
      assert.deepEqual([bh?.type, bh?.dev, bh?.routeFlags], ['blackhole', undefined, 'U'])
      assert.deepEqual(rn.routes.filter((r) => r.type === 'reject').map((r) => r.dst).sort(), ['10.98.0.0/16', '10.99.0.0/16'])
      assert.equal(rn.routes.find((r) => r.dst === '10.244.6.130/32')?.routeFlags, 'UGH')
      const v6 = parseRoutes(capture(ns, 'routes/route-n-inet6.txt', 'route', ['-n', '-A', 'inet6']))
      assert.equal(v6.format, 'route-n-ipv6')
      assert.equal(v6.routes.find((r) => r.dst === 'fd00:10:244:1::/122')?.type, 'reject')
    })
  })

  describe('links', () => {
    const strip = (t: LinkTable): unknown => t.interfaces.map(({line: _l, linkNetns: _n, linkNetnsId: _i, ...rest}) => rest)

    it('text, JSON and one-line forms agree', () => {
      const addr = parseLinks(capture(ns, 'links/ip-addr.txt', 'ip', ['addr']))
      const daddr = parseLinks(capture(ns, 'links/ip-d-addr.txt', 'ip', ['-d', 'addr']))
      const jaddr = parseLinks(capture(ns, 'links/ip-j-addr.json', 'ip', ['-j', 'addr']))
      const jdaddr = parseLinks(capture(ns, 'links/ip-j-d-addr.json', 'ip', ['-j', '-d', 'addr']))
      assert.deepEqual(strip(jaddr), strip(addr))
      assert.deepEqual(strip(jdaddr), strip(daddr))
      const jdlink = parseLinks(capture(ns, 'links/ip-j-d-link.json', 'ip', ['-j', '-d', 'link']))
      const link = parseLinks(capture(ns, 'links/ip-link.txt', 'ip', ['link']))
      assert.deepEqual(link.interfaces.map((i) => [i.index, i.name, i.mtu, i.state]), jdlink.interfaces.map((i) => [i.index, i.name, i.mtu, i.state]))
      const oaddr = parseLinks(capture(ns, 'links/ip-o-addr.txt', 'ip', ['-o', 'addr']))
      assert.equal(oaddr.format, 'ip-oneline')
      for (const i of oaddr.interfaces) assert.deepEqual(i.addresses, addr.interfaces.find((x) => x.index === i.index)?.addresses, i.name)
      const olink = parseLinks(capture(ns, 'links/ip-o-link.txt', 'ip', ['-o', 'link']))
      assert.deepEqual(olink.interfaces.map((i) => [i.name, i.flags, i.mac]), link.interfaces.map((i) => [i.name, i.flags, i.mac]))
    })

    it('finds kube-ipvs0 VIPs and the Calico devices', () => {
      const t = parseLinks(ns.exec('ip', ['-j', '-d', 'addr']))
      assert.deepEqual(kubeIpvsAddresses(t), ['10.96.0.1', '10.96.0.10'])
      const cal = calicoInterfaces(t)
      assert.equal(cal.ipip?.mtu, 1440)
      assert.deepEqual(cal.vxlan?.vxlan, {id: 4096, port: 4789, dev: 'eth0'})
      assert.deepEqual(cal.workloads.map((w) => [w.name, w.kind, w.state, w.linkNetnsId]), [
        ['cali1234567890a', 'veth', 'UP', 0],
        ['cali0fedcba9876', 'veth', 'DOWN', 0],
      ])
      const text = parseLinks(ns.exec('ip', ['-d', 'addr']))
      assert.equal(text.interfaces.find((i) => i.name === 'cali1234567890a')?.linkNetns, ns.pod)
    })
  })

  describe('nftables', () => {
    // What nft 1.0.6 JSON leaves out or garbles (table flags and comments, chain comments and devices, the dynamic set
    // flag, auto-merge, typeof) and what
    // the text lacks (metainfo, raw expressions), plus values that change between two listings (element expiry).
    function comparable(rs: NftRuleset): unknown {
      return rs.tables.map(({line: _l, comment: _c, flags: _f, ...t}) => ({
        ...t,
        objects: t.objects.map(({line: _ol, body: _b, ...o}) => o),
        sets: t.sets.map(({line: _sl, typeof: _ty, autoMerge: _am, ...s}) => ({
          ...s,
          flags: s.flags.filter((f) => f !== 'dynamic'),
          elements: s.elements.map(({expires: _e, ...e}) => e),
        })),
        chains: t.chains.map(({line: _cl, comment: _cc, device: _d, ...c}) => ({...c, rules: c.rules.map(({line: _rl, expr: _x, ...r}) => r)})),
      }))
    }

    it('`nft -a list ruleset` and `nft -j list ruleset` parse to the same model', () => {
      const text = parseNft(capture(ns, 'nft/list-ruleset-a.txt', 'nft', ['-a', 'list', 'ruleset']))
      const json = parseNft(capture(ns, 'nft/ruleset.json', 'nft', ['-j', 'list', 'ruleset']))
      assert.equal(json.nftVersion !== undefined, true)
      assert.ok(json.tables.flatMap((t) => t.chains.flatMap((c) => c.rules)).every((r) => r.textIncomplete === undefined), 'every JSON rule renders fully')
      assert.deepEqual(comparable(json), comparable(text))
    })

    it('`nft list ruleset` (no handles) has the same rules, and one table lists alone', () => {
      const plain = parseNft(capture(ns, 'nft/list-ruleset.txt', 'nft', ['list', 'ruleset']))
      const handles = parseNft(ns.exec('nft', ['-a', 'list', 'ruleset']))
      const rules = (rs: NftRuleset): string[] => rs.tables.flatMap((t) => t.chains.flatMap((c) => c.rules.map((r) => `${t.name} ${c.name} ${r.text}`)))
      assert.deepEqual(rules(plain), rules(handles))
      assert.ok(handles.tables.every((t) => t.handle !== undefined && t.chains.every((c) => c.handle !== undefined && c.rules.every((r) => r.handle !== undefined))))
      const one = parseNft(capture(ns, 'nft/list-table-kube-proxy.txt', 'nft', ['list', 'table', 'ip', 'kube-proxy']))
      assert.deepEqual(one.tables.map((t) => `${t.family} ${t.name}`), ['ip kube-proxy'])
      assert.deepEqual(comparable(one), comparable({...plain, tables: [findNftTable(plain, 'ip', 'kube-proxy')!]}))
    })

    it('summarises kube-proxy services from the live table', () => {
      const rs = parseNft(ns.exec('nft', ['-j', 'list', 'ruleset']))
      const svc = summarizeKubeProxyTable(findNftTable(rs, 'ip', 'kube-proxy')!)
      assert.deepEqual(svc, [
        {
          name: 'ns1/svc1/tcp/p80',
          clusterIPs: ['172.30.0.41 . tcp . 80'],
          externalIPs: ['1.2.3.4 . tcp . 80'],
          nodePorts: ['tcp . 30080'],
          endpoints: ['10.180.0.1:80', '10.180.0.2:80'],
          chain: 'service-ULMVA6XW-ns1/svc1/tcp/p80',
        },
        {
          name: 'ns2/svc2/udp/dns',
          clusterIPs: ['172.30.0.42 . udp . 53'],
          externalIPs: [],
          nodePorts: [],
          endpoints: ['10.180.0.3:53'],
          chain: 'service-42NFTM6N-ns2/svc2/udp/dns',
        },
        {name: 'ns3/svc3:p80', clusterIPs: ['172.30.0.43 . tcp . 80'], externalIPs: [], nodePorts: ['tcp . 30081'], endpoints: [], noEndpoints: 'reject'},
      ])
    })
  })
})
