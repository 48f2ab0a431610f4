import {readFileSync, readdirSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {CanonicalRuleCache} from '../src/core/iptables/canonical-cache.js'
import {canonicalizeRule} from '../src/core/iptables/canonical.js'
import {formatRuleTokens, tokenizeRule} from '../src/core/iptables/tokenize.js'
const files: string[] = []
const walk = (d: string) => { for (const e of readdirSync(d)) { const p = join(d, e); if (statSync(p).isDirectory()) walk(p); else files.push(p) } }
walk('/work/main/test/fixtures')
let n = 0, bad = 0
for (const fam of ['ipv4', 'ipv6'] as const) {
  const cache = new CanonicalRuleCache(fam)
  for (const f of files) {
    if (!/\.(restore|save|txt)$/.test(f)) continue
    for (const line of readFileSync(f, 'utf8').split('\n')) {
      if (!line.startsWith('-A ')) continue
      let toks: string[]
      try { toks = tokenizeRule(line).slice(2) } catch { continue }
      let exp: string, got: string
      try { exp = formatRuleTokens(canonicalizeRule(toks, fam)) } catch (e) { exp = 'THROW ' + (e as Error).message }
      try { got = cache.format(toks) } catch (e) { got = 'THROW ' + (e as Error).message }
      n++
      if (exp !== got) { bad++; if (bad < 10) console.log(f, '\n  ', line, '\n  exp', exp, '\n  got', got) }
    }
  }
  console.log(fam, cache.stats)
}
console.log({n, bad})
