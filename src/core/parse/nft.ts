// Parser for nftables listings: `nft [-a] list ruleset` / `nft list table ...` text and `nft -j list ...` JSON, into
// one model (tables → sets/maps, chains → rules as nft text). JSON rules are rendered back to nft's text syntax so
// both inputs give the same rule text; an expression the renderer does not know is shown in brackets and the rule
// is flagged `textIncomplete`. Verified against nft 1.0.6 on a kube-proxy-style table (node-state.md B).
// Split by concern: nft/model.ts (the model, lookups, key order), nft/text.ts (text parser), nft/json.ts (JSON
// parser), nft/json-text.ts (JSON → text), nft/kube-proxy.ts (kube-proxy summary); this module detects the format.
import {ParseError} from '../../errors.js'
import {parseNftJson} from './nft/json.js'
import type {NftFormat, NftRuleset} from './nft/model.js'
import {parseNftText} from './nft/text.js'
import {type InputLine, parseJsonText, splitInputLines, wrongArtifact} from './sniff.js'

export * from './nft/model.js'
export {formatNftTime, parseNftTime} from './nft/text.js'
export * from './nft/kube-proxy.js'

const EXPECTED = 'an nftables listing (`nft list ruleset`, `nft list table ...` or `nft -j list ruleset`)'

/** Which nft listing `text` is; ParseError (naming what it looks like) when neither. */
export function detectNftFormat(text: string): NftFormat {
  return formatOf(text, splitInputLines(text, EXPECTED))
}

function formatOf(text: string, lines: readonly InputLine[]): NftFormat {
  const first = lines.find((l) => l.text.trim() !== '')!
  const t = first.text.trim()
  if (t.startsWith('{') || t.startsWith('[')) {
    const json = parseJsonText(text, '`nft -j` JSON')
    if (json === null || typeof json !== 'object' || Array.isArray(json) || !('nftables' in json)) {
      if (Array.isArray(json)) throw wrongArtifact(text, EXPECTED, first.n)
      throw new ParseError('JSON without an "nftables" key: expected `nft -j list ruleset` output', first.n)
    }
    return 'json'
  }
  const firstCode = lines.find((l) => l.text.trim() !== '' && !l.text.trim().startsWith('#'))
  if (firstCode && /^table\s+\S+\s+\S+\s*\{/.test(firstCode.text.trim())) return 'text'
  if (!firstCode && /^#/.test(t)) throw new ParseError('only comments, no `table ... {` block: expected nft list output', first.n)
  if (firstCode && /^(add|flush|create|insert|delete|destroy)\s+(table|chain|rule|set|map|element|ruleset)\b/.test(firstCode.text.trim()))
    throw new ParseError('this is an nft command script (`add rule ...`), not `nft list` output: expected `nft list ruleset`', firstCode.n)
  throw wrongArtifact(text, EXPECTED, first.n)
}

/** Parses either nft listing. Throws ParseError(detail, line) on anything it cannot read. */
export function parseNft(text: string): NftRuleset {
  // Split once: the listing of a large cluster is tens of MB.
  const lines = splitInputLines(text, EXPECTED)
  return formatOf(text, lines) === 'json' ? parseNftJson(text) : parseNftText(lines)
}
