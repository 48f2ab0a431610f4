// The nftables listing model (tables → sets/maps, chains → rules as nft text), lookups by name, and key order.
import {ordered, orderedAll} from '../key-order.js'

export type NftFormat = 'text' | 'json'
export type NftFamily = 'ip' | 'ip6' | 'inet' | 'arp' | 'bridge' | 'netdev'
export const NFT_FAMILIES: readonly NftFamily[] = ['ip', 'ip6', 'inet', 'arp', 'bridge', 'netdev']

export interface NftCounter {
  packets: number
  bytes: number
}

export interface NftRule {
  /** The rule as nft prints it, without the `# handle N` suffix (counters and comment included). */
  text: string
  handle?: number
  comment?: string
  counter?: NftCounter
  /** JSON only: some expression could not be rendered to nft syntax; `text` shows it in brackets. */
  textIncomplete?: true
  /** JSON only: the raw expression list. */
  expr?: unknown[]
  line?: number
}

export interface NftChain {
  name: string
  handle?: number
  /** Base chains only: filter, nat, route. */
  type?: string
  hook?: string
  /** Numeric priority; named priorities (`dstnat - 10`) are resolved per family. */
  priority?: number
  policy?: string
  /** Netdev/ingress device (text only: nft 1.0.6 JSON omits it). */
  device?: string
  /** Text only: nft 1.0.6 JSON omits chain comments. */
  comment?: string
  rules: NftRule[]
  line?: number
}

export interface NftElement {
  /** Key as nft prints it: `172.30.0.41 . tcp . 80`, `10.0.0.0/8`, `"eth0"`. */
  key: string
  /** Map value as nft prints it: `goto service-...`, `accept`, `0x00000001`. */
  value?: string
  /** Seconds. */
  timeout?: number
  /** Whole seconds left (nft prints milliseconds in text; JSON truncates). */
  expires?: number
  comment?: string
  counter?: NftCounter
}

export interface NftSet {
  kind: 'set' | 'map'
  name: string
  handle?: number
  /** Key type: `ipv4_addr . inet_proto . inet_service`. From a text `typeof` only when its selectors are well known. */
  type?: string
  /** `typeof` declaration (text only; JSON gives the resolved `type`). */
  typeof?: string
  /** Maps: value type (`verdict`, `mark`, ...). */
  valueType?: string
  flags: string[]
  /** Default element timeout, seconds. */
  timeout?: number
  gcInterval?: number
  size?: number
  policy?: string
  /** Per-element counters are on (`counter` in the declaration). */
  counter?: true
  autoMerge?: true
  comment?: string
  elements: NftElement[]
  line?: number
}

/** Named stateful objects and flowtables: counter, quota, limit, ct helper, flowtable, ... */
export interface NftObject {
  kind: string
  name: string
  handle?: number
  /** Text only: the declaration body lines. */
  body?: string[]
  line?: number
}

export interface NftTable {
  family: NftFamily
  name: string
  handle?: number
  flags: string[]
  /** Text only: nft 1.0.6 JSON omits table comments. */
  comment?: string
  objects: NftObject[]
  /** Sets and maps, in listing order. */
  sets: NftSet[]
  chains: NftChain[]
  line?: number
}

export interface NftRuleset {
  format: NftFormat
  /** From JSON metainfo. */
  nftVersion?: string
  tables: NftTable[]
}

export function findNftTable(rs: NftRuleset, family: NftFamily, name: string): NftTable | undefined {
  return rs.tables.find((t) => t.family === family && t.name === name)
}

export function findNftSet(table: NftTable, name: string): NftSet | undefined {
  return indexedFind(table.sets, name)
}

export function findNftChain(table: NftTable, name: string): NftChain | undefined {
  return indexedFind(table.chains, name)
}

/** Name → first element with that name, for an array that (almost always) only grows. */
interface NameIndex<T> {
  map: Map<string, T>
  length: number
  last: T | undefined
}
const nameIndexes = new WeakMap<object, NameIndex<unknown>>()

/**
 * `arr.find((x) => x.name === name)` in O(1) amortised: a listing of 100k chains is looked up once per chain and
 * per rule while parsing, which was quadratic. The index follows appends; any other change to the array (shorter,
 * or its last indexed element replaced) rebuilds it, and a hit is re-checked against the element's current name
 * (elements are not renamed in place anywhere in node-doctor).
 */
function indexedFind<T extends {name: string}>(arr: T[], name: string): T | undefined {
  if (arr.length < 16) return arr.find((x) => x.name === name)
  let idx = nameIndexes.get(arr) as NameIndex<T> | undefined
  if (!idx || arr.length < idx.length || (idx.length > 0 && arr[idx.length - 1] !== idx.last)) {
    idx = {map: new Map(), length: 0, last: undefined}
    nameIndexes.set(arr, idx)
  }
  for (let i = idx.length; i < arr.length; i++) if (!idx.map.has(arr[i]!.name)) idx.map.set(arr[i]!.name, arr[i]!)
  idx.length = arr.length
  idx.last = arr[arr.length - 1]
  const hit = idx.map.get(name)
  if (hit === undefined || hit.name === name) return hit
  nameIndexes.delete(arr)
  return arr.find((x) => x.name === name)
}

const RULE_KEYS: ReadonlyArray<keyof NftRule> = ['text', 'handle', 'comment', 'counter', 'textIncomplete', 'expr', 'line']
const CHAIN_KEYS: ReadonlyArray<keyof NftChain> = ['name', 'handle', 'type', 'hook', 'priority', 'policy', 'device', 'comment', 'rules', 'line']
const SET_KEYS: ReadonlyArray<keyof NftSet> = [
  'kind',
  'name',
  'handle',
  'type',
  'typeof',
  'valueType',
  'flags',
  'timeout',
  'gcInterval',
  'size',
  'policy',
  'counter',
  'autoMerge',
  'comment',
  'elements',
  'line',
]
const ELEMENT_KEYS: ReadonlyArray<keyof NftElement> = ['key', 'value', 'timeout', 'expires', 'comment', 'counter']
const TABLE_KEYS: ReadonlyArray<keyof NftTable> = ['family', 'name', 'handle', 'flags', 'comment', 'objects', 'sets', 'chains', 'line']

export function orderElement(e: NftElement): NftElement {
  return ordered(e, ELEMENT_KEYS)
}

function orderChain(c: NftChain): NftChain {
  // Rules come from the text parser in key order: their array is kept rather than copied for each of 100k chains.
  const rules = orderedAll(c.rules, RULE_KEYS)
  return ordered(rules === c.rules ? c : {...c, rules}, CHAIN_KEYS)
}

export function orderTable(t: NftTable): NftTable {
  return ordered(
    {
      ...t,
      objects: t.objects.map((o) => ordered(o, ['kind', 'name', 'handle', 'body', 'line'])),
      sets: t.sets.map((s) => ordered({...s, elements: s.elements.map(orderElement)}, SET_KEYS)),
      chains: t.chains.map(orderChain),
    },
    TABLE_KEYS,
  )
}
