// Hostile bundles (issue #14, items 4, 8, 9): tar and gzip bombs are refused from their headers in seconds with
// little memory; symlinks, `..` and absolute paths never lead outside the bundle; malformed manifests and
// snapshots, and JSON nested deep enough to crash V8's parser, are usage errors (exit 2).
import assert from 'node:assert/strict'
import {cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, describe, it} from 'node:test'
import {gzipSync} from 'node:zlib'
import * as tar from 'tar'
import {UsageError} from '../../../src/errors.js'
import {jsonDepthExceeds, parseJsonBounded} from '../../../src/core/limits/json.js'
import {readBundle, writeBundle} from '../../../src/transports/bundle/bundle.js'
import {REPO_ROOT} from '../../support/golden.js'

const MiB = 1024 * 1024
const GiB = 1024 * MiB
const EXAMPLE = join(REPO_ROOT, 'examples', 'bundle')

function header(path: string, size: number, type = 'File', linkpath?: string): Buffer {
  const h = new tar.Header({path, size, type, mode: 0o644, mtime: new Date(0), ...(linkpath ? {linkpath} : {})} as ConstructorParameters<typeof tar.Header>[0])
  h.encode()
  return h.block!
}

/**
 * A .tgz whose tar stream declares `count` entries of `size` bytes of zeros, built from gzip members that are
 * compressed once and repeated (concatenated members are one valid gzip stream): gigabytes uncompressed, a few MB
 * on disk, nothing big ever in memory or on disk.
 */
function bomb(file: string, count: number, size: number): void {
  const chunk = Math.min(size, 64 * MiB)
  const zeros = gzipSync(Buffer.alloc(chunk), {level: 9})
  const tail = size % chunk === 0 ? undefined : gzipSync(Buffer.alloc(size % chunk))
  const parts: Buffer[] = []
  for (let i = 0; i < count; i++) {
    parts.push(gzipSync(header(`node-doctor-bundle/nodes/node-a/f${i}.txt`, size)))
    for (let left = size; left > 0; left -= chunk) parts.push(left >= chunk ? zeros : tail!)
    const pad = (512 - (size % 512)) % 512
    if (pad > 0) parts.push(gzipSync(Buffer.alloc(pad)))
  }
  parts.push(gzipSync(Buffer.alloc(1024)))
  writeFileSync(file, Buffer.concat(parts))
}

async function refused(path: string, pattern: RegExp): Promise<void> {
  await assert.rejects(readBundle(path), (err: unknown) => {
    assert.ok(err instanceof UsageError, String(err))
    assert.equal(err.exitCode, 2)
    assert.match(err.message, pattern)
    return true
  })
}

describe('hostile bundles', () => {
  const dir = mkdtempSync(join(tmpdir(), 'nd-bundle-bombs-'))
  after(() => rmSync(dir, {recursive: true, force: true}))

  it('a 5 GiB tar bomb (one entry) is refused at its header: seconds, little memory, nothing extracted', async () => {
    const file = join(dir, 'one.tgz')
    bomb(file, 1, 5 * GiB)
    assert.ok(readFileSync(file).length < 30 * MiB)
    const rss0 = process.memoryUsage().rss
    const t0 = Date.now()
    await refused(file, /archive entry "node-doctor-bundle\/nodes\/node-a\/f0\.txt" exceeds the limit of 32 MiB \(NODE_DOCTOR_MAX_ARTIFACT_BYTES\)/)
    assert.ok(Date.now() - t0 < 5_000, `took ${Date.now() - t0} ms`)
    assert.ok((process.resourceUsage().maxRSS * 1024 - rss0) / MiB < 200)
  })

  it('a 5 GiB tar bomb of many 30 MiB entries is refused long before 5 GiB are inflated', async () => {
    const file = join(dir, 'many.tgz')
    bomb(file, 171, 30 * MiB)
    const rss0 = process.memoryUsage().rss
    const t0 = Date.now()
    // Whichever comes first: our total, or tar's own inflation-ratio guard (also a usage error).
    await refused(file, /the uncompressed size of the archive exceeds the limit of 1 GiB \(NODE_DOCTOR_MAX_BUNDLE_BYTES\)|max decompression ratio exceeded/)
    const ms = Date.now() - t0
    assert.ok(ms < 20_000, `took ${ms} ms`)
    assert.ok((process.resourceUsage().maxRSS * 1024 - rss0) / MiB < 200)
    console.log(`# 5 GiB bomb (171 x 30 MiB) refused in ${ms} ms`)
  })

  it('the total uncompressed size limit holds for data that does not compress (limit lowered through the options)', async () => {
    const {randomBytes} = await import('node:crypto')
    const {DEFAULT_LIMITS} = await import('../../../src/core/limits/limits.js')
    const file = join(dir, 'random.tgz')
    const blocks: Buffer[] = []
    for (let i = 0; i < 8; i++) blocks.push(header(`node-doctor-bundle/r${i}.txt`, MiB), randomBytes(MiB))
    blocks.push(Buffer.alloc(1024))
    writeFileSync(file, gzipSync(Buffer.concat(blocks)))
    await assert.rejects(readBundle(file, {...DEFAULT_LIMITS, bundleBytes: 4 * MiB}), /the uncompressed size of the archive exceeds the limit of 4 MiB \(NODE_DOCTOR_MAX_BUNDLE_BYTES\)/)
  })

  it('too many entries, links and paths outside the archive are refused before extraction', async () => {
    const many = join(dir, 'entries.tgz')
    const blocks: Buffer[] = []
    for (let i = 0; i < 20_001; i++) blocks.push(header(`node-doctor-bundle/d${i}/`, 0, 'Directory'))
    blocks.push(Buffer.alloc(1024))
    writeFileSync(many, gzipSync(Buffer.concat(blocks)))
    await refused(many, /number of archive entries exceeds the limit of 20000 \(NODE_DOCTOR_MAX_BUNDLE_ENTRIES\)/)
    for (const [name, block, pattern] of [
      ['symlink', header('node-doctor-bundle/nodes/node-a/iptables-save.txt', 0, 'SymbolicLink', '/etc/shadow'), /of type SymbolicLink; bundles hold regular files and folders only/],
      ['hardlink', header('node-doctor-bundle/x', 0, 'Link', '/etc/shadow'), /of type Link/],
      ['dotdot', header('node-doctor-bundle/../../evil.txt', 0), /points outside the bundle/],
    ] as const) {
      const f = join(dir, `${name}.tgz`)
      writeFileSync(f, gzipSync(Buffer.concat([block, Buffer.alloc(1024)])))
      await refused(f, pattern)
    }
  })

  it('directory bundles: a symlink to /etc/shadow, a manifest node name ../../x, a node.json pointing outside', async () => {
    const link = join(dir, 'link')
    cpSync(EXAMPLE, link, {recursive: true})
    rmSync(join(link, 'nodes/node-a/iptables-save.txt'))
    symlinkSync('/etc/shadow', join(link, 'nodes/node-a/iptables-save.txt'))
    await refused(link, /artifact iptables-save of node node-a \(nodes\/node-a\/iptables-save\.txt\) is a symbolic link/)

    const linkedDir = join(dir, 'linked-dir')
    cpSync(EXAMPLE, linkedDir, {recursive: true})
    mkdirSync(join(dir, 'outside'))
    cpSync(join(EXAMPLE, 'nodes/node-a'), join(dir, 'outside/node-a'), {recursive: true})
    rmSync(join(linkedDir, 'nodes/node-a'), {recursive: true})
    symlinkSync(join(dir, 'outside/node-a'), join(linkedDir, 'nodes/node-a'))
    await refused(linkedDir, /resolves outside the bundle/)

    const names = join(dir, 'names')
    cpSync(EXAMPLE, names, {recursive: true})
    const manifest = JSON.parse(readFileSync(join(names, 'bundle.json'), 'utf8')) as {nodes: string[]}
    writeFileSync(join(names, 'bundle.json'), JSON.stringify({...manifest, nodes: ['../../x']}))
    await refused(names, /node name "\.\.\/\.\.\/x" is not a DNS subdomain/)

    const file = join(dir, 'file')
    cpSync(EXAMPLE, file, {recursive: true})
    const nodeJson = JSON.parse(readFileSync(join(file, 'nodes/node-a/node.json'), 'utf8')) as {artifacts: Record<string, {file: string}>}
    nodeJson.artifacts['iptables-save']!.file = '../../../../../../etc/passwd'
    writeFileSync(join(file, 'nodes/node-a/node.json'), JSON.stringify(nodeJson))
    await refused(file, /points outside the bundle/)
  })

  it('malformed manifests and snapshots, and JSON nested 100k deep, are usage errors', async () => {
    const cases: Array<[string, string, RegExp]> = [
      ['bundle.json', '[]', /bundle\.json is malformed: it is not a JSON object/],
      ['bundle.json', JSON.stringify({apiVersion: 'node-doctor.io/v1alpha1', kind: 'Bundle', nodes: 'node-a'}), /"nodes" is not a list/],
      ['bundle.json', JSON.stringify({apiVersion: 'node-doctor.io/v1alpha1', kind: 'Bundle', nodes: [42]}), /node name 42 is not a DNS subdomain/],
      ['cluster/snapshot.json', JSON.stringify({kind: 'ClusterSnapshot', nodes: {}}), /"nodes" is not a list/],
      ['nodes/node-a/node.json', JSON.stringify({artifacts: {x: null}}), /artifact "x" has no "file"/],
      ['nodes/node-a/node.json', 'null', /not a NodeSnapshot/],
      ['nodes/node-a/node.json', `${'['.repeat(100_000)}${']'.repeat(100_000)}`, /nested more than 64 levels deep/],
    ]
    for (const [i, [rel, content, pattern]] of cases.entries()) {
      const b = join(dir, `malformed-${i}`)
      cpSync(EXAMPLE, b, {recursive: true})
      writeFileSync(join(b, rel), content)
      await refused(b, pattern)
    }
  })

  it('a bundle artifact that is binary garbage or a cut dump is a collection error of that node, not a clean read', async () => {
    const b = join(dir, 'garbage')
    cpSync(EXAMPLE, b, {recursive: true})
    writeFileSync(join(b, 'nodes/node-a/iptables-save.txt'), Buffer.from([0x2a, 0x00, 0xff, 0xfe, 0x01, 0x02]))
    const bundle = await readBundle(b)
    const a = bundle.nodes.find((n) => n.node === 'node-a')!
    assert.match(a.artifacts['iptables-save']!.error ?? '', /binary/)
    assert.deepEqual(a.errors.map((e) => e.source), ['iptables-save'])
  })

  it('collect never writes outside its folder for a node named ../x; the depth scan is linear and exact', async () => {
    const example = await readBundle(EXAMPLE)
    const evil = {...example.nodes[0]!, node: '../../escaped'}
    const out = join(dir, 'out', 'bundle')
    await writeBundle(out, {...example, manifest: {...example.manifest, nodes: [...example.manifest.nodes, '../../escaped']}, nodes: [...example.nodes, evil]})
    assert.throws(() => readFileSync(join(dir, 'escaped', 'node.json')), /ENOENT/)
    const back = await readBundle(out)
    assert.deepEqual(back.manifest.nodes, example.manifest.nodes)
    assert.match(JSON.stringify(back.cluster.errors), /node name is not a DNS subdomain/)
    assert.equal(jsonDepthExceeds('{"a":"[[[[[[[[[[["}', 3), false, 'brackets inside strings do not count')
    assert.equal(jsonDepthExceeds('[[[[]]]]', 3), true)
    assert.deepEqual(parseJsonBounded('{"a":[1,{"b":2}]}', 3), {a: [1, {b: 2}]})
  })
})
