// `nft -j list ...` JSON → the listing model; rules are rendered back to nft text (json-text.ts).
import {ParseError} from '../../../errors.js'
import {jsonArrayElementOffsets, lineAt, parseJsonText} from '../sniff.js'
import {type Json, type JsonObject, type RenderCtx, isObject, quote, renderStatement, renderTyped} from './json-text.js'
import {type NftElement, type NftFamily, type NftObject, type NftRule, type NftRuleset, type NftSet, type NftTable, NFT_FAMILIES, findNftChain, findNftSet, findNftTable, orderElement, orderTable} from './model.js'


export function parseNftJson(text: string): NftRuleset {
  const doc = parseJsonText(text, '`nft -j` JSON') as JsonObject
  const list = doc.nftables
  if (!Array.isArray(list)) throw new ParseError('"nftables" must be an array of objects', 1)
  const offsets = jsonArrayElementOffsets(text, 2)
  const rs: NftRuleset = {format: 'json', tables: []}
  const tableOf = (family: unknown, name: unknown, n: number, what: string): NftTable => {
    if (typeof family !== 'string' || !NFT_FAMILIES.includes(family as NftFamily)) throw new ParseError(`${what}: unknown or missing "family"`, n)
    if (typeof name !== 'string') throw new ParseError(`${what}: missing table name`, n)
    let t = findNftTable(rs, family as NftFamily, name)
    if (!t) {
      // `nft -j list set|map|chain ...` lists the object without its table.
      t = {family: family as NftFamily, name, flags: [], objects: [], sets: [], chains: []}
      rs.tables.push(t)
    }
    return t
  }
  list.forEach((entry, k) => {
    const n = lineAt(text, offsets[k] ?? 0)
    if (!isObject(entry)) throw new ParseError(`nftables[${k}] is not an object`, n)
    const keys = Object.keys(entry)
    if (keys.length !== 1) throw new ParseError(`nftables[${k}] must have exactly one key (metainfo, table, chain, rule, set, map, ...), found ${keys.length}`, n)
    const kind = keys[0]!
    const body = entry[kind]
    if (!isObject(body)) throw new ParseError(`nftables[${k}].${kind} is not an object`, n)
    const what = `nftables[${k}] (${kind})`
    const handle = typeof body.handle === 'number' ? body.handle : undefined
    switch (kind) {
      case 'metainfo':
        if (typeof body.version === 'string') rs.nftVersion = body.version
        return
      case 'table': {
        const t = tableOf(body.family, body.name, n, what)
        t.line = n
        if (handle !== undefined) t.handle = handle
        const flags = Array.isArray(body.flags) ? body.flags : typeof body.flags === 'string' ? [body.flags] : []
        // nft 1.0.6 prints garbage here for some tables (an object name), so keep only real table flags.
        t.flags = flags.filter((f): f is string => typeof f === 'string' && ['dormant', 'owner', 'persist'].includes(f))
        if (typeof body.comment === 'string') t.comment = body.comment
        return
      }
      case 'chain': {
        const t = tableOf(body.family, body.table, n, what)
        if (typeof body.name !== 'string') throw new ParseError(`${what}: missing "name"`, n)
        let c = findNftChain(t, body.name)
        if (!c) {
          c = {name: body.name, rules: []}
          t.chains.push(c)
        }
        c.line = n
        if (handle !== undefined) c.handle = handle
        if (typeof body.type === 'string') c.type = body.type
        if (typeof body.hook === 'string') c.hook = body.hook
        if (typeof body.prio === 'number') c.priority = body.prio
        if (typeof body.policy === 'string') c.policy = body.policy
        if (typeof body.dev === 'string') c.device = body.dev
        if (typeof body.comment === 'string') c.comment = body.comment
        return
      }
      case 'rule': {
        const t = tableOf(body.family, body.table, n, what)
        if (typeof body.chain !== 'string') throw new ParseError(`${what}: missing "chain"`, n)
        let c = findNftChain(t, body.chain)
        if (!c) {
          c = {name: body.chain, rules: []}
          t.chains.push(c)
        }
        if (!Array.isArray(body.expr)) throw new ParseError(`${what}: "expr" must be an array`, n)
        c.rules.push(jsonRule(body, t.family, n, what))
        return
      }
      case 'set':
      case 'map': {
        const t = tableOf(body.family, body.table, n, what)
        t.sets.push(jsonSet(kind, body, t.family, n, what))
        return
      }
      case 'element': {
        const t = tableOf(body.family, body.table, n, what)
        const s = typeof body.name === 'string' ? findNftSet(t, body.name) : undefined
        if (!s) throw new ParseError(`${what}: elements for a set that is not listed`, n)
        if (!Array.isArray(body.elem)) throw new ParseError(`${what}: "elem" must be an array`, n)
        s.elements.push(...body.elem.map((e) => jsonElement(e, s, t.family, n)))
        return
      }
      default: {
        const t = tableOf(body.family, body.table, n, what)
        if (typeof body.name !== 'string') throw new ParseError(`${what}: missing "name"`, n)
        const o: NftObject = {kind, name: body.name, line: n}
        if (handle !== undefined) o.handle = handle
        t.objects.push(o)
      }
    }
  })
  return {format: rs.format, ...(rs.nftVersion === undefined ? {} : {nftVersion: rs.nftVersion}), tables: rs.tables.map(orderTable)}
}

function jsonRule(body: JsonObject, family: NftFamily, n: number, what: string): NftRule {
  const ctx: RenderCtx = {family, state: {incomplete: false, line: n}}
  const exprs = body.expr as Json[]
  const parts = exprs.map((e) => renderStatement(e, ctx, 0))
  const rule: NftRule = {text: ''}
  if (typeof body.handle === 'number') rule.handle = body.handle
  if (typeof body.comment === 'string') {
    rule.comment = body.comment
    parts.push(`comment ${quote(body.comment)}`)
  }
  rule.text = parts.join(' ')
  for (const e of exprs) {
    if (isObject(e) && isObject(e.counter) && typeof e.counter.packets === 'number' && typeof e.counter.bytes === 'number') {
      rule.counter = {packets: e.counter.packets, bytes: e.counter.bytes}
      break
    }
  }
  if (ctx.state.incomplete) rule.textIncomplete = true
  rule.expr = exprs
  rule.line = n
  if (rule.text === '') throw new ParseError(`${what}: a rule with no expressions`, n)
  return rule
}

function jsonSet(kind: 'set' | 'map', body: JsonObject, family: NftFamily, n: number, what: string): NftSet {
  if (typeof body.name !== 'string') throw new ParseError(`${what}: missing "name"`, n)
  const s: NftSet = {kind, name: body.name, flags: [], elements: [], line: n}
  if (typeof body.handle === 'number') s.handle = body.handle
  const type = body.type
  if (typeof type === 'string') s.type = type
  else if (Array.isArray(type) && type.every((x) => typeof x === 'string')) s.type = type.join(' . ')
  else if (type !== undefined) throw new ParseError(`${what}: "type" must be a string or an array of strings`, n)
  if (kind === 'map' && typeof body.map === 'string') s.valueType = body.map
  if (Array.isArray(body.flags)) s.flags = body.flags.filter((f): f is string => typeof f === 'string')
  else if (typeof body.flags === 'string') s.flags = [body.flags]
  if (typeof body.timeout === 'number') s.timeout = body.timeout
  if (typeof body['gc-interval'] === 'number') s.gcInterval = body['gc-interval']
  if (typeof body.size === 'number') s.size = body.size
  if (typeof body.policy === 'string') s.policy = body.policy
  if (Array.isArray(body.stmt) && body.stmt.some((x) => isObject(x) && 'counter' in x)) s.counter = true
  if (body['auto-merge'] === true) s.autoMerge = true
  if (typeof body.comment === 'string') s.comment = body.comment
  if (body.elem !== undefined) {
    if (!Array.isArray(body.elem)) throw new ParseError(`${what}: "elem" must be an array`, n)
    s.elements = body.elem.map((e) => jsonElement(e, s, family, n))
  }
  return s
}

function jsonElement(e: Json, set: NftSet, family: NftFamily, n: number): NftElement {
  const ctx: RenderCtx = {family, state: {incomplete: false, line: n}}
  const keyTypes = (set.type ?? '').split(' . ')
  let keyExpr = e
  let valueExpr: Json | undefined
  if (set.kind === 'map') {
    if (!Array.isArray(e) || e.length !== 2) throw new ParseError(`map ${set.name}: each element must be a [key, value] pair`, n)
    keyExpr = e[0]
    valueExpr = e[1]
  }
  const el: NftElement = {key: ''}
  if (isObject(keyExpr) && isObject(keyExpr.elem)) {
    const meta = keyExpr.elem
    if (typeof meta.timeout === 'number') el.timeout = meta.timeout
    if (typeof meta.expires === 'number') el.expires = Math.floor(meta.expires)
    if (typeof meta.comment === 'string') el.comment = meta.comment
    if (isObject(meta.counter) && typeof meta.counter.packets === 'number' && typeof meta.counter.bytes === 'number')
      el.counter = {packets: meta.counter.packets, bytes: meta.counter.bytes}
    keyExpr = meta.val
  }
  el.key = renderTyped(keyExpr, keyTypes, ctx, 0)
  if (valueExpr !== undefined) el.value = renderTyped(valueExpr, [set.valueType ?? ''], ctx, 0)
  return orderElement(el)
}
