// core's own layering: no import cycle inside src/core (between files or between folders), and the bottom layers
// import nothing above them: model imports only model, net only net and model, parse only parse, model and net.
// Type-only imports count here: they are dependencies of the design even when the compiler erases them.
// A compatibility shim (a file of re-exports whose comment says "moved to", kept at an old path for callers
// outside core) is not a dependency of its folder and is left out of the layer rules.
import assert from 'node:assert/strict'
import {readdirSync, readFileSync, statSync} from 'node:fs'
import {dirname, join, relative, resolve} from 'node:path'
import {describe, it} from 'node:test'
import {REPO_ROOT} from '../support/golden.js'

const SRC = join(REPO_ROOT, 'src')
const CORE = join(SRC, 'core')

function files(dir: string): string[] {
  const out: string[] = []
  for (const e of readdirSync(dir).sort()) {
    const p = join(dir, e)
    if (statSync(p).isDirectory()) out.push(...files(p))
    else if (/\.tsx?$/.test(e)) out.push(p)
  }
  return out
}

/** Relative imports and re-exports of a file (type-only included), resolved to source paths. */
function localImports(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  const specs = [
    ...[...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]/g)].map((m) => m[1]!),
    ...[...text.matchAll(/import\(\s*['"](\.[^'"]+)['"]\s*\)/g)].map((m) => m[1]!),
  ]
  return specs.map((s) => resolve(dirname(file), s.replace(/\.js$/, '.ts')))
}

/** A file holding nothing but comments and `export ... from` lines, saying where its content moved. */
function isShim(file: string): boolean {
  const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '')
  return lines.some((l) => /^\/\/.*moved to /.test(l)) && lines.every((l) => l.startsWith('//') || /^export (type )?(\*|\{[^}]*\}) from '[^']+'$/.test(l))
}

/** `src/core/parse/x.ts` → `parse`; a file directly in src/core → `(core)`; outside core → undefined. */
function layerOf(path: string): string | undefined {
  const rel = relative(CORE, path)
  if (rel.startsWith('..')) return undefined
  const parts = rel.split('/')
  return parts.length > 1 ? parts[0] : '(core)'
}

const CORE_FILES = files(CORE)
const GRAPH = new Map(CORE_FILES.map((f) => [f, localImports(f)]))

/** Strongly connected components with more than one node (or a self-loop): the cycles. */
function cycles(nodes: readonly string[], edges: (n: string) => readonly string[]): string[][] {
  let next = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const out: string[][] = []
  const visit = (v: string): void => {
    index.set(v, next)
    low.set(v, next)
    next++
    stack.push(v)
    onStack.add(v)
    for (const w of edges(v)) {
      if (!nodes.includes(w)) continue
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!))
    }
    if (low.get(v) === index.get(v)) {
      const c: string[] = []
      let w: string
      do {
        w = stack.pop()!
        onStack.delete(w)
        c.push(w)
      } while (w !== v)
      if (c.length > 1 || edges(v).includes(v)) out.push(c.sort())
    }
  }
  for (const n of nodes) if (!index.has(n)) visit(n)
  return out
}

describe('core layers', () => {
  it('has no import cycle between files of src/core', () => {
    const found = cycles(CORE_FILES, (f) => GRAPH.get(f) ?? []).map((c) => c.map((f) => relative(CORE, f)))
    assert.deepEqual(found, [])
  })

  it('has no import cycle between the folders of src/core (shims left out)', () => {
    const folders = [...new Set(CORE_FILES.map((f) => layerOf(f)!))]
    const edges = new Map<string, Set<string>>(folders.map((f) => [f, new Set()]))
    for (const f of CORE_FILES) {
      if (isShim(f)) continue
      for (const t of GRAPH.get(f)!) {
        const a = layerOf(f)!
        const b = layerOf(t)
        if (b !== undefined && b !== a) edges.get(a)!.add(b)
      }
    }
    assert.deepEqual(cycles(folders, (f) => [...(edges.get(f) ?? [])]), [])
  })

  const rules: Array<[string, readonly string[]]> = [
    ['model', ['model']],
    ['net', ['net', 'model']],
    ['parse', ['parse', 'model', 'net']],
  ]
  for (const [layer, allowed] of rules) {
    it(`core/${layer} imports only ${allowed.map((a) => `core/${a}`).join(', ')} (and src/errors.ts)`, () => {
      const bad: string[] = []
      for (const f of CORE_FILES.filter((f) => layerOf(f) === layer && !isShim(f))) {
        for (const t of GRAPH.get(f)!) {
          const target = layerOf(t)
          const ok = target === undefined ? t === join(SRC, 'errors.ts') : allowed.includes(target)
          if (!ok) bad.push(`${relative(REPO_ROOT, f)} imports ${relative(REPO_ROOT, t)}`)
        }
      }
      assert.deepEqual(bad, [])
    })
  }

  it('core throws no CLI error: nothing in src/core imports UsageError or InputError', () => {
    const bad = CORE_FILES.filter((f) => /import\s*\{[^}]*\b(UsageError|InputError)\b[^}]*\}\s*from\s*'[./]*errors\.js'/.test(readFileSync(f, 'utf8')))
    assert.deepEqual(bad.map((f) => relative(REPO_ROOT, f)), [])
  })

  it('the shims it recognises are only re-exports', () => {
    // Guards isShim itself: a real module is never taken for a shim, and the known shims are.
    assert.equal(isShim(join(CORE, 'parse', 'iptables-save.ts')), true)
    assert.equal(isShim(join(CORE, 'iptables', 'save.ts')), false)
  })
})
