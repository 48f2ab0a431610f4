// src/core/diff/iptables.ts
import { diffArrays } from "diff";
var SERVICE_CHAIN_PREFIXES = ["KUBE-SVC-", "KUBE-SVL-", "KUBE-EXT-", "KUBE-FW-", "KUBE-SEP-"];
var FIXED_CHAINS = {
  filter: ["KUBE-SERVICES", "KUBE-EXTERNAL-SERVICES", "KUBE-FORWARD", "KUBE-NODEPORTS", "KUBE-PROXY-FIREWALL", "KUBE-FIREWALL"],
  nat: ["KUBE-SERVICES", "KUBE-NODEPORTS", "KUBE-POSTROUTING", "KUBE-MARK-MASQ"]
};
var UNORDERED = {
  filter: /* @__PURE__ */ new Set(["KUBE-SERVICES", "KUBE-EXTERNAL-SERVICES", "KUBE-NODEPORTS", "KUBE-PROXY-FIREWALL"]),
  nat: /* @__PURE__ */ new Set(["KUBE-SERVICES", "KUBE-NODEPORTS"])
};
var NODEPORTS_JUMP_MARK = "this must be the last rule in this chain";
function isServiceChain(chain) {
  return SERVICE_CHAIN_PREFIXES.some((p) => chain.startsWith(p));
}
function isOwnedChain(table, chain) {
  if ((FIXED_CHAINS[table] ?? []).includes(chain)) return true;
  return table === "nat" && isServiceChain(chain);
}
var PROBABILITY = /(--probability )(\S+)/;
function targetIndex(rule) {
  const i2 = Math.max(rule.lastIndexOf(" -j "), rule.lastIndexOf(" -g "));
  if (i2 >= 0) return i2 + 4;
  return rule.startsWith("-j ") || rule.startsWith("-g ") ? 3 : -1;
}
function ruleTarget(rule) {
  const start = targetIndex(rule);
  if (start < 0) return void 0;
  const end = rule.indexOf(" ", start);
  return rule.slice(start, end < 0 ? void 0 : end);
}
function ruleServicePort(rule) {
  const m = /--comment (?:"((?:[^"\\]|\\.)*)"|(\S+))/.exec(rule);
  const comment = m?.[1] ?? m?.[2];
  if (!comment) return void 0;
  const spn = comment.split(" ")[0];
  return /^[a-z0-9]([-a-z0-9]*[a-z0-9])?\/[a-z0-9]([-a-z0-9.]*[a-z0-9])?(:[^\s]*)?$/.test(spn) ? spn : void 0;
}
function sameRules(a, b) {
  if (a.length !== b.length) return false;
  for (let i2 = 0; i2 < a.length; i2++) if (a[i2] !== b[i2]) return false;
  return true;
}
function multisetDiff(expected, actual) {
  const counts = /* @__PURE__ */ new Map();
  for (const r of actual) counts.set(r, (counts.get(r) ?? 0) + 1);
  const missing = [];
  for (const r of expected) {
    const n = counts.get(r) ?? 0;
    if (n > 0) counts.set(r, n - 1);
    else missing.push(r);
  }
  const extra = [];
  for (const r of actual) {
    const n = counts.get(r) ?? 0;
    if (n > 0) {
      extra.push(r);
      counts.set(r, n - 1);
    }
  }
  return { missing, extra };
}
function diffIptables(expected, actual, options2 = {}) {
  const out2 = [];
  const groupOf = (chain, rules) => options2.chainGroups?.get(chain) ?? rules.map(ruleServicePort).find((s) => s !== void 0);
  for (const table of ["filter", "nat"]) {
    const exp = expected.get(table) ?? /* @__PURE__ */ new Map();
    const act = actual.get(table) ?? /* @__PURE__ */ new Map();
    const ownedCache = /* @__PURE__ */ new Map();
    const owned = (chain) => {
      let o = ownedCache.get(chain);
      if (o === void 0) ownedCache.set(chain, o = isOwnedChain(table, chain));
      return o;
    };
    for (const [chain, expRules] of exp) {
      if (!owned(chain)) continue;
      const actRules = act.get(chain);
      if (actRules === void 0) {
        out2.push(withGroup({ kind: "missing-chain", table, chain, expectedRules: [...expRules] }, groupOf(chain, expRules)));
        continue;
      }
      if (sameRules(expRules, actRules)) continue;
      if (UNORDERED[table]?.has(chain)) diffUnordered(out2, table, chain, expRules, actRules, groupOf);
      else diffOrdered(out2, table, chain, expRules, actRules, groupOf(chain, expRules));
    }
    for (const [chain, actRules] of act) {
      if (!owned(chain) || exp.has(chain)) continue;
      out2.push(withGroup({ kind: "stale-chain", table, chain, actualRules: [...actRules] }, groupOf(chain, actRules)));
    }
    for (const [chain, actRules] of act) {
      if (!owned(chain)) continue;
      for (const rule of actRules) {
        const at = targetIndex(rule);
        if (at < 0 || !rule.startsWith("KUBE-", at)) continue;
        const target = ruleTarget(rule);
        if (target && !act.has(target) && !BUILTIN_KUBE_TARGETS.has(target)) {
          out2.push(withGroup({ kind: "undefined-jump", table, chain, rule, target }, groupOf(chain, [rule])));
        }
      }
    }
  }
  for (const jump2 of options2.requiredJumps ?? []) {
    const rules = actual.get(jump2.table)?.get(jump2.chain) ?? [];
    if (!rules.includes(jump2.rule)) out2.push({ kind: "missing-builtin-jump", table: jump2.table, chain: jump2.chain, rule: jump2.rule });
  }
  return out2;
}
var BUILTIN_KUBE_TARGETS = /* @__PURE__ */ new Set();
function withGroup(d, group) {
  if (group !== void 0 && d.kind !== "missing-builtin-jump") d.group = group;
  return d;
}
function diffUnordered(out2, table, chain, expRules, actRules, groupOf) {
  const { missing, extra } = multisetDiff(expRules, actRules);
  for (const rule of missing) out2.push(withGroup({ kind: "missing-rule", table, chain, rule }, groupOf(ruleTarget(rule) ?? "", [rule])));
  for (const rule of extra) out2.push(withGroup({ kind: "extra-rule", table, chain, rule }, groupOf(ruleTarget(rule) ?? "", [rule])));
  const last2 = actRules[actRules.length - 1];
  const jump2 = actRules.find((r) => r.includes(NODEPORTS_JUMP_MARK));
  if (jump2 !== void 0 && last2 !== jump2 && expRules.includes(jump2)) {
    out2.push({ kind: "misordered", table, chain, detail: "the KUBE-NODEPORTS jump is not the last rule of the chain", rules: [jump2] });
  }
}
function diffOrdered(out2, table, chain, expRules, actRules, group) {
  const parts = diffArrays([...expRules], [...actRules]);
  let pendingRemoved = [];
  const flush = () => {
    for (const rule of pendingRemoved) out2.push(withGroup({ kind: "missing-rule", table, chain, rule }, group));
    pendingRemoved = [];
  };
  for (const part of parts) {
    if (part.removed) {
      flush();
      pendingRemoved = [...part.value];
    } else if (part.added) {
      const added = [...part.value];
      const paired = [];
      for (const rule of added) {
        const i2 = pendingRemoved.findIndex((r) => r.replace(PROBABILITY, "$1*") === rule.replace(PROBABILITY, "$1*"));
        if (i2 >= 0 && PROBABILITY.test(rule)) {
          const [exp] = pendingRemoved.splice(i2, 1);
          out2.push(withGroup({ kind: "wrong-probability", table, chain, expected: exp, actual: rule }, group));
          paired.push(rule);
        }
      }
      flush();
      for (const rule of added) if (!paired.includes(rule)) out2.push(withGroup({ kind: "extra-rule", table, chain, rule }, group));
    } else {
      flush();
    }
  }
  flush();
  const { missing, extra } = multisetDiff(expRules, actRules);
  if (missing.length === 0 && extra.length === 0 && expRules.join("\n") !== actRules.join("\n")) {
    for (let i2 = out2.length - 1; i2 >= 0; i2--) {
      const d = out2[i2];
      if ((d.kind === "missing-rule" || d.kind === "extra-rule") && d.table === table && d.chain === chain) out2.splice(i2, 1);
    }
    out2.push(withGroup({ kind: "misordered", table, chain, detail: "the rules are all present but in the wrong order", rules: [...actRules] }, group));
  }
}

// src/core/diff/iptables-view.ts
var BUILTIN_CHAINS = /* @__PURE__ */ new Set(["PREROUTING", "INPUT", "FORWARD", "OUTPUT", "POSTROUTING"]);
function viewFromDump(dump) {
  const view = /* @__PURE__ */ new Map();
  for (const table of dump.tables) {
    const chains = /* @__PURE__ */ new Map();
    for (const c of table.chains) if (!chains.has(c.name)) chains.set(c.name, []);
    let chain = "";
    let list;
    const n = table.ruleCount;
    for (let i2 = 0; i2 < n; i2++) {
      const text2 = table.ruleText(i2);
      let len = chain.length;
      if (list === void 0 || !text2.startsWith(chain, 3) || text2.length !== 3 + len && text2.charCodeAt(3 + len) !== 32) {
        const end = text2.indexOf(" ", 3);
        chain = end < 0 ? text2.slice(3) : text2.slice(3, end);
        len = chain.length;
        list = chains.get(chain);
        if (list === void 0) chains.set(chain, list = []);
      }
      list.push(text2.length === 3 + len ? "" : text2.slice(4 + len));
    }
    view.set(table.name, chains);
  }
  return view;
}
function viewFromSaved(saved) {
  const view = /* @__PURE__ */ new Map();
  const requiredJumps = [];
  for (const [table, chains] of saved) {
    const t = /* @__PURE__ */ new Map();
    for (const [chain, rules] of chains) {
      if (BUILTIN_CHAINS.has(chain)) for (const rule of rules) requiredJumps.push({ table, chain, rule });
      else t.set(chain, [...rules]);
    }
    view.set(table, t);
  }
  return { view, requiredJumps };
}
function chainGroups(ruleset) {
  const groups = /* @__PURE__ */ new Map();
  const SERVICE_CHAIN = /^KUBE-(SVC|SVL|EXT|FW|SEP)-/;
  for (const table of ruleset.tables) {
    let last2;
    for (const r of table.rules) {
      if (r.servicePort === void 0 || r.chain === last2) continue;
      last2 = r.chain;
      if (!groups.has(r.chain) && SERVICE_CHAIN.test(r.chain)) groups.set(r.chain, r.servicePort);
    }
  }
  return groups;
}

// src/core/model/report.ts
var API_GROUP = "node-doctor.io";
var REPORT_API_VERSION = `${API_GROUP}/v1alpha1`;

// src/errors.ts
var ParseError = class extends Error {
  line;
  constructor(detail, line) {
    super(detail);
    this.name = "ParseError";
    if (line !== void 0) this.line = line;
  }
};

// src/core/iptables/rule.ts
var PORTS = { "--sport": 1, "--source-port": 1, "--dport": 1, "--destination-port": 1 };
var MATCH_OPTIONS = {
  comment: { "--comment": 1 },
  tcp: { ...PORTS, "--tcp-flags": 2, "--syn": 0, "--tcp-option": 1 },
  udp: PORTS,
  udplite: PORTS,
  sctp: { ...PORTS, "--chunk-types": 2 },
  statistic: { "--mode": 1, "--probability": 1, "--every": 1, "--packet": 1 },
  recent: {
    "--set": 0,
    "--rcheck": 0,
    "--update": 0,
    "--remove": 0,
    "--seconds": 1,
    "--reap": 0,
    "--hitcount": 1,
    "--rttl": 0,
    "--name": 1,
    "--mask": 1,
    "--rsource": 0,
    "--rdest": 0
  },
  mark: { "--mark": 1 },
  conntrack: {
    "--ctstate": 1,
    "--ctproto": 1,
    "--ctorigsrc": 1,
    "--ctorigdst": 1,
    "--ctreplsrc": 1,
    "--ctrepldst": 1,
    "--ctorigsrcport": 1,
    "--ctorigdstport": 1,
    "--ctreplsrcport": 1,
    "--ctrepldstport": 1,
    "--ctstatus": 1,
    "--ctexpire": 1,
    "--ctdir": 1
  },
  state: { "--state": 1 },
  addrtype: { "--src-type": 1, "--dst-type": 1, "--limit-iface-in": 0, "--limit-iface-out": 0 },
  nfacct: { "--nfacct-name": 1 },
  multiport: { "--sports": 1, "--source-ports": 1, "--dports": 1, "--destination-ports": 1, "--ports": 1 },
  icmp: { "--icmp-type": 1 },
  icmp6: { "--icmpv6-type": 1 },
  set: {
    "--match-set": 2,
    "--return-nomatch": 0,
    "--update-counters": 0,
    "--update-subcounters": 0,
    "--packets-eq": 1,
    "--packets-lt": 1,
    "--packets-gt": 1,
    "--bytes-eq": 1,
    "--bytes-lt": 1,
    "--bytes-gt": 1
  },
  physdev: {
    "--physdev-in": 1,
    "--physdev-out": 1,
    "--physdev-is-in": 0,
    "--physdev-is-out": 0,
    "--physdev-is-bridged": 0
  },
  limit: { "--limit": 1, "--limit-burst": 1 }
};
var NAT_FLAGS = { "--random": 0, "--random-fully": 0, "--persistent": 0 };
var TARGET_OPTIONS = {
  DNAT: { "--to-destination": 1, ...NAT_FLAGS },
  SNAT: { "--to-source": 1, ...NAT_FLAGS },
  MASQUERADE: { "--to-ports": 1, "--random": 0, "--random-fully": 0 },
  REDIRECT: { "--to-ports": 1, "--random": 0 },
  MARK: { "--set-xmark": 1, "--set-mark": 1, "--and-mark": 1, "--or-mark": 1, "--xor-mark": 1 },
  CONNMARK: {
    "--set-xmark": 1,
    "--set-mark": 1,
    "--save-mark": 0,
    "--restore-mark": 0,
    "--and-mark": 1,
    "--or-mark": 1,
    "--xor-mark": 1,
    "--nfmask": 1,
    "--ctmask": 1,
    "--mask": 1
  },
  REJECT: { "--reject-with": 1 },
  LOG: {
    "--log-level": 1,
    "--log-prefix": 1,
    "--log-tcp-sequence": 0,
    "--log-tcp-options": 0,
    "--log-ip-options": 0,
    "--log-uid": 0,
    "--log-macdecode": 0
  },
  NFLOG: { "--nflog-group": 1, "--nflog-prefix": 1, "--nflog-range": 1, "--nflog-size": 1, "--nflog-threshold": 1 }
};
var IMPLICIT_PROTOCOL_MATCHES = /* @__PURE__ */ new Set(["tcp", "udp", "udplite", "sctp", "icmp", "icmp6"]);
function takeValue(args, i2, option) {
  const v = args[i2];
  if (v === void 0) throw new ParseError(`option ${option} needs a value`);
  return v;
}
function isOptionToken(t) {
  return t.length > 1 && t.charCodeAt(0) === 45 && !/^-\d/.test(t);
}
var GENERIC = {
  "-s": "source",
  "--source": "source",
  "--src": "source",
  "-d": "destination",
  "--destination": "destination",
  "--dst": "destination",
  "-i": "inInterface",
  "--in-interface": "inInterface",
  "-o": "outInterface",
  "--out-interface": "outInterface",
  "-p": "protocol",
  "--protocol": "protocol"
};
function parseRuleArgs(args) {
  const rule = {
    source: null,
    destination: null,
    inInterface: null,
    outInterface: null,
    protocol: null,
    fragment: null,
    matches: [],
    target: null
  };
  const owners = [];
  let current = null;
  let negate = false;
  const n = args.length;
  for (let i2 = 0; i2 < n; i2++) {
    const tok = args[i2];
    if (tok === "!") {
      if (negate) throw new ParseError('"!" given twice in a row');
      negate = true;
      continue;
    }
    if (tok.charCodeAt(0) === 45) {
      const field = GENERIC[tok];
      if (field !== void 0) {
        rule[field] = { value: takeValue(args, ++i2, tok), negated: negate };
        negate = false;
        continue;
      }
      if (tok === "-m" || tok === "--match") {
        if (negate) throw new ParseError(`"!" cannot negate ${tok}`);
        const name = takeValue(args, ++i2, tok);
        const match = { name, options: [] };
        rule.matches.push(match);
        current = { kind: "match", options: match.options, table: MATCH_OPTIONS[name] };
        owners.push(current);
        continue;
      }
      if (tok === "-j" || tok === "--jump" || tok === "-g" || tok === "--goto") {
        if (negate) throw new ParseError(`"!" cannot negate ${tok}`);
        if (rule.target) throw new ParseError("more than one -j/-g target in the rule");
        const name = takeValue(args, ++i2, tok);
        rule.target = { name, goto: tok === "-g" || tok === "--goto", options: [] };
        current = { kind: "target", options: rule.target.options, table: TARGET_OPTIONS[name] };
        owners.push(current);
        continue;
      }
      if (tok === "-f" || tok === "--fragment") {
        rule.fragment = { negated: negate };
        negate = false;
        continue;
      }
    }
    if (!isOptionToken(tok)) {
      if (!current || current.table !== void 0 || negate) throw new ParseError(`unexpected argument "${tok}"`);
      current.options.push(tok);
      continue;
    }
    let owner = current && (current.table === void 0 || tok in current.table) ? current : null;
    if (!owner) {
      owner = findOwner(tok, owners, rule);
      if (owner && owner.kind === "match" && owners[owners.length - 1] === owner && owner !== current) current = owner;
    }
    owner ??= current;
    if (!owner) throw new ParseError(`option ${tok} does not belong to any match or target in the rule`);
    if (negate) owner.options.push("!");
    negate = false;
    owner.options.push(tok);
    const arity = owner.table?.[tok];
    if (arity !== void 0) {
      for (let k = 0; k < arity; k++) owner.options.push(takeValue(args, ++i2, tok));
    } else {
      while (i2 + 1 < n && args[i2 + 1] !== "!" && !isOptionToken(args[i2 + 1])) owner.options.push(args[++i2]);
    }
  }
  if (negate) throw new ParseError('"!" at the end of the rule negates nothing');
  return rule;
}
function findOwner(option, owners, rule) {
  for (const o of owners) if (o.kind === "target" && o.table && option in o.table) return o;
  for (const o of owners) if (o.kind === "match" && o.table && option in o.table) return o;
  const proto = rule.protocol && !rule.protocol.negated ? protocolMatchName(rule.protocol.value) : null;
  if (proto && IMPLICIT_PROTOCOL_MATCHES.has(proto) && option in (MATCH_OPTIONS[proto] ?? {})) {
    const m = { name: proto, options: [] };
    rule.matches.push(m);
    const o = { kind: "match", options: m.options, table: MATCH_OPTIONS[proto] };
    owners.push(o);
    return o;
  }
  return null;
}
function protocolMatchName(p) {
  const l = p.toLowerCase();
  if (l === "6") return "tcp";
  if (l === "17") return "udp";
  if (l === "132") return "sctp";
  if (l === "1") return "icmp";
  if (l === "58" || l === "icmpv6" || l === "ipv6-icmp") return "icmp6";
  return l;
}

// src/core/iptables/tokenize.ts
var SPACE = 32;
var TAB = 9;
var LF = 10;
var QUOTE = 34;
var BACKSLASH = 92;
function tokenizeRule(text2) {
  const out2 = [];
  const n = text2.length;
  let i2 = 0;
  for (; ; ) {
    const q = text2.indexOf('"', i2);
    const segEnd = q === -1 ? n : q;
    let prefix = "";
    if (segEnd > i2) {
      const c = text2.charCodeAt(segEnd - 1);
      const glued = q !== -1 && c !== SPACE && c !== TAB && c !== LF;
      let wordsEnd = segEnd;
      if (glued) {
        let k = segEnd - 1;
        while (k > i2) {
          const d = text2.charCodeAt(k - 1);
          if (d === SPACE || d === TAB || d === LF) break;
          k--;
        }
        prefix = text2.slice(k, segEnd);
        wordsEnd = k;
      }
      splitWords(text2, i2, wordsEnd, out2);
    }
    if (q === -1) return out2;
    let close = text2.indexOf('"', q + 1);
    const bs = text2.indexOf("\\", q + 1);
    if (close !== -1 && (bs === -1 || bs > close)) {
      out2.push(prefix + text2.slice(q + 1, close));
    } else {
      let part = "";
      let runStart = q + 1;
      let j = q + 1;
      for (; ; ) {
        if (j >= n) throw new ParseError("unterminated double quote in rule");
        const c = text2.charCodeAt(j);
        if (c === QUOTE) break;
        if (c === BACKSLASH) {
          if (j + 1 >= n) throw new ParseError("unterminated double quote in rule (line ends in a backslash)");
          part += text2.slice(runStart, j);
          runStart = j + 1;
          j += 2;
          continue;
        }
        j++;
      }
      close = j;
      out2.push(prefix + part + text2.slice(runStart, close));
    }
    i2 = close + 1;
  }
}
function splitWords(text2, from, to, out2) {
  let i2 = from;
  while (i2 < to) {
    let c = text2.charCodeAt(i2);
    while (i2 < to && (c === SPACE || c === TAB || c === LF)) c = text2.charCodeAt(++i2);
    if (i2 >= to) return;
    const start = i2;
    while (i2 < to && c !== SPACE && c !== TAB && c !== LF) c = text2.charCodeAt(++i2);
    out2.push(text2.slice(start, i2));
  }
}
var BARE = /^[A-Za-z0-9_-]+$/;
function quoteArg(arg) {
  if (BARE.test(arg)) return arg;
  return '"' + arg.replace(/["\\']/g, "\\$&") + '"';
}
var STRING_OPTIONS = /* @__PURE__ */ new Set(["--comment", "--nfacct-name", "--log-prefix", "--nflog-prefix", "--helper"]);
function formatRuleTokens(tokens) {
  let out2 = "";
  const n = tokens.length;
  for (let i2 = 0; i2 < n; i2++) {
    const t = tokens[i2];
    if (i2 > 0) out2 += " ";
    if (STRING_OPTIONS.has(t) && i2 + 1 < n) {
      out2 += t + (t === "--nfacct-name" ? "  " : " ") + quoteArg(tokens[i2 + 1]);
      i2++;
      continue;
    }
    out2 += needsQuoting(t) ? quoteArg(t) : t;
  }
  return out2;
}
function needsQuoting(t) {
  if (t.length === 0) return true;
  for (let i2 = 0; i2 < t.length; i2++) {
    const c = t.charCodeAt(i2);
    if (c === SPACE || c === TAB || c === LF || c === QUOTE || c === 13) return true;
  }
  return false;
}

// src/core/parse/iptables-save.ts
var IPTABLES_TABLES = ["filter", "nat", "mangle", "raw", "security"];
var IptablesRule = class {
  constructor(chain, text2, line, counters) {
    this.chain = chain;
    this.text = text2;
    this.line = line;
    this.counters = counters;
  }
  chain;
  text;
  line;
  counters;
  /** All arguments of the line, starting with `-A`, CHAIN. tokens.slice(2) are the rule's own arguments. */
  get tokens() {
    return withLine(this.line, () => tokenizeRule(this.text));
  }
  /** Generic options, matches and target; throws ParseError (with the line) for arguments iptables would refuse. */
  get parsed() {
    return withLine(this.line, () => parseRuleArgs(tokenizeRule(this.text).slice(2)));
  }
  toJSON() {
    return { chain: this.chain, line: this.line, counters: this.counters, text: this.text, tokens: this.tokens, parsed: this.parsed };
  }
};
function withLine(line, f) {
  try {
    return f();
  } catch (err) {
    if (err instanceof ParseError && err.line === void 0) throw new ParseError(err.message, line);
    throw err;
  }
}
var RuleStore = class {
  constructor(source) {
    this.source = source;
  }
  source;
  count = 0;
  start = new Int32Array(1024);
  end = new Int32Array(1024);
  line = new Int32Array(1024);
  chain = new Int32Array(1024);
  packets = null;
  bytes = null;
  add(start, end, line, chain, counters) {
    const i2 = this.count;
    if (i2 === this.start.length) this.grow();
    this.start[i2] = start;
    this.end[i2] = end;
    this.line[i2] = line;
    this.chain[i2] = chain;
    if (counters) {
      if (!this.packets || !this.bytes) {
        this.packets = new Float64Array(this.start.length).fill(-1);
        this.bytes = new Float64Array(this.start.length).fill(-1);
      }
      this.packets[i2] = counters.packets;
      this.bytes[i2] = counters.bytes;
    } else if (this.packets && this.bytes) {
      this.packets[i2] = -1;
      this.bytes[i2] = -1;
    }
    this.count = i2 + 1;
    return i2;
  }
  grow() {
    const n = this.start.length * 2;
    const g = (a) => {
      const b = new a.constructor(n);
      b.set(a);
      return b;
    };
    this.start = g(this.start);
    this.end = g(this.end);
    this.line = g(this.line);
    this.chain = g(this.chain);
    if (this.packets) this.packets = g(this.packets);
    if (this.bytes) this.bytes = g(this.bytes);
  }
  text(i2) {
    return this.source.slice(this.start[i2], this.end[i2]);
  }
  counters(i2) {
    const p = this.packets?.[i2] ?? -1;
    return p < 0 ? null : { packets: p, bytes: this.bytes[i2] };
  }
};
var IptablesChain = class {
  constructor(name, policy, counters, line, table, index) {
    this.name = name;
    this.policy = policy;
    this.counters = counters;
    this.line = line;
    this.table = table;
    this.index = index;
  }
  name;
  policy;
  counters;
  line;
  table;
  index;
  // Rules are the contiguous run [first, first+count) of the table's store, or `indices` when interleaved.
  #first = -1;
  #count = 0;
  #indices = null;
  #cached = null;
  get builtin() {
    return this.policy !== null;
  }
  get ruleCount() {
    return this.#indices ? this.#indices.length : this.#count;
  }
  /** The k-th rule (a fresh view, not cached). */
  rule(k) {
    return this.table.rule(this.#index(k));
  }
  /** Fresh views of the rules in order, for walking big chains without keeping them. */
  *eachRule() {
    for (let k = 0; k < this.ruleCount; k++) yield this.rule(k);
  }
  /** The rules, made once and kept; prefer eachRule() to walk a whole dump with little memory. */
  get rules() {
    this.#cached ??= Array.from({ length: this.ruleCount }, (_, k) => this.rule(k));
    return this.#cached;
  }
  /** @internal parser only */
  appendRuleIndex(i2) {
    if (this.#indices) this.#indices.push(i2);
    else if (this.#count === 0) {
      this.#first = i2;
      this.#count = 1;
    } else if (this.#first + this.#count === i2) this.#count++;
    else {
      this.#indices = Array.from({ length: this.#count }, (_, k) => this.#first + k);
      this.#indices.push(i2);
    }
  }
  #index(k) {
    if (k < 0 || k >= this.ruleCount) throw new RangeError(`rule ${k} of chain ${this.name} does not exist`);
    return this.#indices ? this.#indices[k] : this.#first + k;
  }
  toJSON() {
    return {
      name: this.name,
      policy: this.policy,
      counters: this.counters,
      builtin: this.builtin,
      line: this.line,
      rules: Array.from(this.eachRule())
    };
  }
};
var IptablesTable = class {
  constructor(name, line, source) {
    this.name = name;
    this.line = line;
    this.#store = new RuleStore(source);
  }
  name;
  line;
  chains = [];
  /** Line of COMMIT. */
  commitLine = 0;
  #byName = /* @__PURE__ */ new Map();
  #indexed = 0;
  #store;
  chain(name) {
    if (this.#indexed < this.chains.length) this.indexChains();
    return this.#byName.get(name);
  }
  /** Number of rules in the table. */
  get ruleCount() {
    return this.#store.count;
  }
  /** The i-th rule of the table in input order (a fresh view). */
  rule(i2) {
    const s = this.#store;
    if (i2 < 0 || i2 >= s.count) throw new RangeError(`rule ${i2} of table ${this.name} does not exist`);
    return new IptablesRule(this.chains[s.chain[i2]].name, s.text(i2), s.line[i2], s.counters(i2));
  }
  /** Fresh views of all rules in input order (iptables-save groups them by chain). */
  *eachRule() {
    for (let i2 = 0; i2 < this.#store.count; i2++) yield this.rule(i2);
  }
  /** The rule text of rule i without making a view. */
  ruleText(i2) {
    return this.#store.text(i2);
  }
  /** @internal parser only: declares a chain (duplicates are found by indexChains). */
  addChain(name, policy, counters, line) {
    const c = new IptablesChain(name, policy, counters, line, this, this.chains.length);
    this.chains.push(c);
    return c;
  }
  /** @internal parser only */
  addRule(chainIndex, start, end, line, counters) {
    const i2 = this.#store.add(start, end, line, chainIndex, counters);
    this.chains[chainIndex].appendRuleIndex(i2);
  }
  /** @internal Indexes chains declared since the last call; throws ParseError on a duplicate declaration. */
  indexChains() {
    const map = this.#byName;
    for (; this.#indexed < this.chains.length; this.#indexed++) {
      const c = this.chains[this.#indexed];
      const size = map.size;
      map.set(c.name, c);
      if (map.size === size) {
        const first = this.chains.find((x) => x.name === c.name);
        map.set(c.name, first);
        throw new ParseError(`chain "${c.name}" is declared twice in table ${this.name} (first on line ${first.line})`, c.line);
      }
    }
  }
  toJSON() {
    return { name: this.name, line: this.line, commitLine: this.commitLine, chains: this.chains };
  }
};
var HEADER = /^# Generated by (ip6?)tables-save v([0-9][0-9A-Za-z.+~-]*)(?: \((nf_tables|legacy)\))?/;
function parseIptablesSave(text2, options2 = {}) {
  const dump = {
    family: options2.family ?? "ipv4",
    familySource: options2.family ? "option" : "default",
    backend: null,
    version: null,
    counters: false,
    warnings: [],
    comments: [],
    tables: [],
    lineEnding: "\n",
    lines: 0
  };
  const n = text2.length;
  let pos = 0;
  let lineNo = 0;
  let table = null;
  let headerFamily = null;
  let sawContent = false;
  let sawCrlf = false;
  let sawLf = false;
  let nextQuote = text2.indexOf('"');
  let cursor = 0;
  const seenTables = /* @__PURE__ */ new Map();
  while (pos < n) {
    let end = text2.indexOf("\n", pos);
    if (end === -1) end = n;
    lineNo++;
    let lineEnd = end;
    if (lineEnd > pos && text2.charCodeAt(lineEnd - 1) === 13) {
      lineEnd--;
      sawCrlf = true;
    } else if (end < n) sawLf = true;
    if (nextQuote !== -1 && nextQuote < pos) nextQuote = text2.indexOf('"', pos);
    const c = text2.charCodeAt(pos);
    if (c === 45 || c === 91) {
      let ruleStart = pos;
      let counters = null;
      if (c === 91) {
        const close = text2.indexOf("]", pos);
        if (close === -1 || close >= lineEnd) fail(lineNo, 'malformed counters: expected "[packets:bytes]" before the rule');
        counters = parseCounters(text2, pos + 1, close, lineNo);
        ruleStart = close + 1;
        if (text2.charCodeAt(ruleStart) !== 32) fail(lineNo, 'expected a space and "-A CHAIN ..." after the counters');
        ruleStart++;
        dump.counters = true;
      }
      if (text2.charCodeAt(ruleStart) !== 45 || text2.charCodeAt(ruleStart + 1) !== 65 || text2.charCodeAt(ruleStart + 2) !== 32) {
        if (!table && !sawContent) throw foreign(text2.slice(pos, lineEnd), lineNo);
        const word = firstWord(text2, ruleStart, lineEnd);
        fail(
          lineNo,
          word === "-N" || word === "-P" || word === "-I" || word === "-X" || word === "-F" || word === "-D" ? `unexpected "${word}": iptables-save prints only "-A CHAIN ..." rule lines (is this iptables -S or restore input?)` : `unexpected ${describe(text2, ruleStart, lineEnd)}: expected a rule "-A CHAIN ..."`
        );
      }
      if (!table) {
        const hint = !sawContent && looksLikeIptablesS(text2, ruleStart) ? " (this looks like `iptables -S` output, not iptables-save)" : "";
        fail(lineNo, `rule before any table: expected a table line such as "*filter" or "*nat" first${hint}`);
      }
      sawContent = true;
      const nameStart = ruleStart + 3;
      let nameEnd = text2.indexOf(" ", nameStart);
      if (nameEnd === -1 || nameEnd > lineEnd) nameEnd = lineEnd;
      if (nameEnd === nameStart) fail(lineNo, 'expected a chain name after "-A"');
      const chains = table.chains;
      let ci = -1;
      const nameLen = nameEnd - nameStart;
      for (let k = cursor; k < chains.length && k < cursor + 8; k++) {
        const cand = chains[k].name;
        if (cand.length === nameLen && text2.startsWith(cand, nameStart)) {
          ci = k;
          break;
        }
      }
      if (ci === -1) {
        const name = text2.slice(nameStart, nameEnd);
        const chain = table.chain(name);
        if (!chain) {
          fail(lineNo, `rule for chain "${printable(name)}" which table ${table.name} does not declare: expected a ":${printable(name)} - [0:0]" line before its rules`);
        }
        ci = chain.index;
      }
      cursor = ci;
      if (nextQuote !== -1 && nextQuote < lineEnd) {
        checkQuotes(text2, nextQuote, lineEnd, lineNo);
        nextQuote = text2.indexOf('"', end);
      }
      table.addRule(ci, ruleStart, lineEnd, lineNo, counters);
    } else if (c === 58) {
      if (!table) {
        if (!sawContent) throw foreign(text2.slice(pos, lineEnd), lineNo);
        fail(lineNo, 'chain line before any table: expected a table line such as "*filter" first');
      }
      sawContent = true;
      parseChainLine(table, text2, pos + 1, lineEnd, lineNo);
    } else if (c === 42) {
      const name = text2.slice(pos + 1, lineEnd).trimEnd();
      if (table) fail(lineNo, `"*${printable(name)}" while table ${table.name} (line ${table.line}) is still open: expected COMMIT first`);
      if (!IPTABLES_TABLES.includes(name)) {
        fail(lineNo, `unknown table "${printable(name)}": expected one of ${IPTABLES_TABLES.join(", ")}`);
      }
      const prev = seenTables.get(name);
      if (prev !== void 0) {
        fail(lineNo, `table ${name} appears a second time (first on line ${prev}); is this two dumps in one file? Give each its own file`);
      }
      seenTables.set(name, lineNo);
      sawContent = true;
      table = new IptablesTable(name, lineNo, text2);
      cursor = 0;
      dump.tables.push(table);
    } else if (c === 35) {
      const line = text2.slice(pos, lineEnd);
      dump.comments.push({ line: lineNo, text: line });
      const h = HEADER.exec(line);
      if (h) {
        const family = h[1] === "ip6" ? "ipv6" : "ipv4";
        if (headerFamily && headerFamily.family !== family) {
          fail(lineNo, `this file mixes iptables-save and ip6tables-save output (line ${headerFamily.line} and here): give each family its own file`);
        }
        if (options2.family && options2.family !== family) {
          fail(lineNo, `this is ${family === "ipv6" ? "ip6tables-save" : "iptables-save"} output but ${options2.family === "ipv6" ? "IPv6" : "IPv4"} was requested`);
        }
        headerFamily ??= { family, line: lineNo };
        dump.family = family;
        dump.familySource = options2.family ? "option" : "header";
        dump.version ??= h[2] ?? null;
        dump.backend ??= h[3] === "nf_tables" ? "nf_tables" : "legacy";
      } else if (line.startsWith("# Warning:")) dump.warnings.push(line.slice(2));
    } else if (text2.startsWith("COMMIT", pos) && isBlank(text2, pos + 6, lineEnd)) {
      if (!table) fail(lineNo, 'COMMIT without an open table: expected a table line such as "*filter" before it');
      table.commitLine = lineNo;
      table.indexChains();
      table = null;
    } else if (isBlank(text2, pos, lineEnd)) {
    } else {
      if (!sawContent) throw foreign(text2.slice(pos, lineEnd), lineNo);
      fail(lineNo, `unexpected ${describe(text2, pos, lineEnd)}: expected a rule ("-A ..."), a chain (":NAME ..."), COMMIT or a "#" comment`);
    }
    pos = end + 1;
  }
  dump.lines = lineNo;
  if (sawCrlf && !sawLf) dump.lineEnding = "\r\n";
  if (table) {
    fail(
      Math.max(lineNo, 1),
      `table ${table.name} (opened on line ${table.line}) has no COMMIT: expected COMMIT before the end of input; the file looks truncated`
    );
  }
  if (dump.tables.length === 0) {
    if (dump.comments.length === 0) fail(1, "empty input: expected iptables-save output");
    fail(Math.max(lineNo, 1), 'no tables found: expected iptables-save output with "*filter"/"*nat" sections');
  }
  if (!options2.family && !headerFamily) {
    const inferred = inferFamily(dump);
    if (inferred) {
      dump.family = inferred;
      dump.familySource = "addresses";
    }
  }
  return dump;
}
function fail(line, detail) {
  throw new ParseError(detail, line);
}
function isBlank(text2, from, to) {
  for (let i2 = from; i2 < to; i2++) {
    const c = text2.charCodeAt(i2);
    if (c !== 32 && c !== 9) return false;
  }
  return true;
}
function firstWord(text2, from, to) {
  let e = from;
  while (e < to && text2.charCodeAt(e) !== 32) e++;
  return text2.slice(from, e);
}
function describe(text2, from, to) {
  const s = text2.slice(from, Math.min(to, from + 40));
  return `"${printable(s)}${to - from > 40 ? "\u2026" : ""}"`;
}
function printable(s) {
  return s.replace(/[\u0000-\u001f\u007f-\u009f\ufffd]/g, "?");
}
function parseCounters(text2, from, to, line) {
  const colon = text2.indexOf(":", from);
  if (colon === -1 || colon >= to) fail(line, 'malformed counters: expected "[packets:bytes]"');
  const packets = parseDecimal(text2, from, colon);
  const bytes = parseDecimal(text2, colon + 1, to);
  if (packets < 0 || bytes < 0) fail(line, 'malformed counters: expected "[packets:bytes]" with decimal numbers');
  return { packets, bytes };
}
function parseDecimal(text2, from, to) {
  if (to <= from || to - from > 20) return -1;
  let v = 0;
  for (let i2 = from; i2 < to; i2++) {
    const d = text2.charCodeAt(i2) - 48;
    if (d < 0 || d > 9) return -1;
    v = v * 10 + d;
  }
  return v;
}
var ZERO = Object.freeze({ packets: 0, bytes: 0 });
function parseChainLine(table, text2, from, to, line) {
  let nameEnd = text2.indexOf(" ", from);
  if (nameEnd === -1 || nameEnd > to) nameEnd = to;
  if (nameEnd === from) fail(line, 'expected a chain name after ":"');
  const name = text2.slice(from, nameEnd);
  let p = nameEnd;
  while (p < to && text2.charCodeAt(p) === 32) p++;
  let policyEnd = p;
  while (policyEnd < to && text2.charCodeAt(policyEnd) !== 32) policyEnd++;
  if (policyEnd === p) fail(line, `chain line for "${printable(name)}" has no policy: expected ":${printable(name)} - [0:0]" or ":${printable(name)} ACCEPT [0:0]"`);
  const policy = policyEnd - p === 1 && text2.charCodeAt(p) === 45 ? null : text2.slice(p, policyEnd);
  let q = policyEnd;
  while (q < to && text2.charCodeAt(q) === 32) q++;
  let e = to;
  while (e > q && text2.charCodeAt(e - 1) === 32) e--;
  let counters = null;
  if (e > q) {
    if (text2.charCodeAt(q) !== 91 || text2.charCodeAt(e - 1) !== 93) {
      fail(line, `malformed chain counters "${printable(text2.slice(q, e))}": expected "[packets:bytes]"`);
    }
    counters = e - q === 5 && text2.startsWith("[0:0]", q) ? ZERO : parseCounters(text2, q + 1, e - 1, line);
  }
  table.addChain(name, policy, counters, line);
}
function checkQuotes(text2, from, to, line) {
  let i2 = from;
  while (i2 < to) {
    if (text2.charCodeAt(i2) !== 34) {
      i2 = text2.indexOf('"', i2);
      if (i2 === -1 || i2 >= to) return;
    }
    i2++;
    for (; ; ) {
      if (i2 >= to) fail(line, 'unterminated double quote in rule: expected a closing `"` before the end of the line');
      const c = text2.charCodeAt(i2);
      if (c === 92) i2 += 2;
      else if (c === 34) break;
      else i2++;
    }
    i2++;
  }
}
function looksLikeIptablesS(text2, pos) {
  return text2.startsWith("-P ", pos) || text2.startsWith("-N ", pos) || text2.startsWith("-A ", pos);
}
function foreign(line, lineNo) {
  const l = line.trimStart();
  const looks = (what2) => new ParseError(`this looks like ${what2}, not iptables-save`, lineNo);
  if (/^IP Virtual Server version/.test(l) || /^Prot LocalAddress:Port/.test(l)) return looks("`ipvsadm -ln` output");
  if (/^(table|chain|set|map) [^{]*\{\s*$/.test(l) || /^flush ruleset\b/.test(l)) return looks("an nftables ruleset (`nft list ruleset`)");
  if (/^Chain \S+ \((policy \w+|\d+ references)/.test(l)) return looks("`iptables -L` output");
  if (/^-[PN] \S/.test(l)) return looks("`iptables -S` output");
  if (/^create \S+ (hash|bitmap|list):/.test(l) || /^add \S+ \S/.test(l)) return looks("`ipset save` output");
  if (/^(default|local|unreachable|blackhole) /.test(l) || /^\d{1,3}(\.\d{1,3}){3}(\/\d+)? (via|dev|proto) /.test(l)) return looks("`ip route` output");
  if (/^(ipv4|ipv6) +\d+ +\w+ +\d+/.test(l) || /^(tcp|udp|icmp) +\d+ +\d+ /.test(l)) return looks("conntrack table output");
  if (/^[{[]/.test(l)) return looks("JSON");
  if (/^(apiVersion|kind|---)\b/.test(l)) return looks("YAML");
  return new ParseError(
    `unexpected ${describe(line, 0, line.length)}: expected iptables-save output (a "# Generated by" comment or a "*table" line)`,
    lineNo
  );
}
function inferFamily(dump) {
  for (const table of dump.tables) {
    for (let i2 = 0; i2 < table.ruleCount; i2++) {
      const t = table.ruleText(i2);
      for (const flag of [" -s ", " -d "]) {
        const i3 = t.indexOf(flag);
        if (i3 === -1) continue;
        const start = i3 + flag.length;
        let e = t.indexOf(" ", start);
        if (e === -1) e = t.length;
        const addr = t.slice(start, e);
        if (addr.includes(":")) return "ipv6";
        if (/^\d+\.\d+\.\d+\.\d+/.test(addr)) return "ipv4";
      }
    }
  }
  return null;
}

// src/core/proxier/ip.ts
import ipaddr from "ipaddr.js";
var V4_SLOPPY = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/;
function parseV4Octets(s) {
  const m = V4_SLOPPY.exec(s);
  if (!m) return void 0;
  const out2 = [];
  for (let i2 = 1; i2 <= 4; i2++) {
    const n = Number(m[i2]);
    if (!Number.isInteger(n) || n > 255) return void 0;
    out2.push(n);
  }
  return out2;
}
function parseV6Bytes(s) {
  if (!s.includes(":") || s.includes("%")) return void 0;
  let text2 = s;
  const dot = /^(.*:)([^:]*\.[^:]*)$/.exec(s);
  if (dot) {
    const v4 = parseV4Octets(dot[2]);
    if (!v4) return void 0;
    text2 = `${dot[1]}${(v4[0] << 8 | v4[1]).toString(16)}:${(v4[2] << 8 | v4[3]).toString(16)}`;
  }
  if (!ipaddr.IPv6.isValid(text2)) return void 0;
  return ipaddr.IPv6.parse(text2).toByteArray();
}
function isV4Mapped(bytes) {
  for (let i2 = 0; i2 < 10; i2++) if (bytes[i2] !== 0) return false;
  return bytes[10] === 255 && bytes[11] === 255;
}
function formatIP(bytes) {
  if (bytes.length === 4) return bytes.join(".");
  if (isV4Mapped(bytes)) return bytes.slice(12).join(".");
  return ipaddr.IPv6.parse(ipaddr.fromByteArray([...bytes]).toString()).toRFC5952String();
}
function parseIPSloppy(s) {
  const v4 = parseV4Octets(s);
  if (v4) return { family: "ipv4", bytes: v4, text: v4.join(".") };
  const v6 = parseV6Bytes(s);
  if (!v6) return void 0;
  if (isV4Mapped(v6)) {
    const b = v6.slice(12);
    return { family: "ipv4", bytes: b, text: b.join(".") };
  }
  return { family: "ipv6", bytes: v6, text: formatIP(v6) };
}
function parseCIDRSloppy(s) {
  const slash = s.indexOf("/");
  if (slash < 0) return void 0;
  const addr = s.slice(0, slash);
  const lenText = s.slice(slash + 1);
  if (!/^\d+$/.test(lenText)) return void 0;
  const v4 = parseV4Octets(addr);
  const bytes = v4 ?? parseV6Bytes(addr);
  if (!bytes) return void 0;
  const bits = bytes.length * 8;
  const prefix = Number(lenText);
  if (prefix > bits) return void 0;
  const network = maskBytes(bytes, prefix);
  const family = bytes.length === 4 ? "ipv4" : "ipv6";
  const text2 = `${bytes.length === 4 ? network.join(".") : ipaddr.IPv6.parse(ipaddr.fromByteArray(network).toString()).toRFC5952String()}/${prefix}`;
  return { family, network, prefix, text: text2 };
}
function maskBytes(bytes, prefix) {
  return bytes.map((b, i2) => {
    const keep = Math.max(0, Math.min(8, prefix - i2 * 8));
    return keep === 0 ? 0 : b & (255 << 8 - keep & 255);
  });
}
function cidrContains(cidr, ip) {
  if (cidr.network.length !== ip.bytes.length) return false;
  const masked = maskBytes(ip.bytes, cidr.prefix);
  return masked.every((b, i2) => b === cidr.network[i2]);
}
function isLoopback(ip) {
  if (ip.family === "ipv4") return ip.bytes[0] === 127;
  return ip.bytes.every((b, i2) => i2 === 15 ? b === 1 : b === 0);
}
function joinHostPort(host, port) {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}

// src/core/proxier/config.ts
var NEWEST_SUPPORTED_VERSION = { major: 1, minor: 35 };
function formatKubeProxyVersion(v) {
  return `v${v.major}.${v.minor}`;
}
function versionAtLeast(v, major, minor) {
  return v.major > major || v.major === major && v.minor >= minor;
}
var FEATURE_GATE_DEFAULT_ON = {
  // ipMode: Proxy ingress entries are skipped (alpha 1.29, beta 1.30, GA 1.32).
  LoadBalancerIPMode: { major: 1, minor: 30 },
  // Hints are used without the topology annotation (alpha 1.30, beta 1.31, GA 1.33). KEP-4444.
  ServiceTrafficDistribution: { major: 1, minor: 31 },
  // forNodes hints and PreferSameNode (alpha 1.33, beta 1.34). KEP-3015.
  PreferSameTrafficDistribution: { major: 1, minor: 34 },
  // Zone hints at all (beta and on since 1.24).
  TopologyAwareHints: { major: 1, minor: 24 }
};
function featureGatesFor(version, overrides = {}) {
  const gates = {};
  for (const [name, since] of Object.entries(FEATURE_GATE_DEFAULT_ON)) gates[name] = versionAtLeast(version, since.major, since.minor);
  for (const [name, value] of Object.entries(overrides)) if (name in FEATURE_GATE_DEFAULT_ON) gates[name] = value;
  return gates;
}
function formatMasqueradeMark(bit) {
  const value = 2 ** bit;
  return `0x${value.toString(16).padStart(8, "0")}`;
}

// src/core/proxier/service-ports.ts
var LABEL_SERVICE_PROXY_NAME = "service.kubernetes.io/service-proxy-name";
var LABEL_HEADLESS = "service.kubernetes.io/headless";
function excludedByProxyLabels(labels) {
  return labels !== void 0 && (LABEL_SERVICE_PROXY_NAME in labels || LABEL_HEADLESS in labels);
}
function canonicalIPs(version) {
  return versionAtLeast(version, 1, 29);
}
function servicePortName(namespace, name, portName) {
  return portName === "" ? `${namespace}/${name}` : `${namespace}/${name}:${portName}`;
}
function servicePortKey(spn, protocol) {
  return `${spn}/${protocol}`;
}
function clusterIPForFamily(service, family) {
  const spec = service.spec;
  const families = spec.ipFamilies ?? [];
  if (families.length === 0) {
    const ip = spec.clusterIP ?? "";
    if (ip === "" || ip === "None") return "";
    const parsed = parseIPSloppy(ip);
    const isV6 = parsed?.family === "ipv6";
    return isV6 === (family === "ipv6") ? ip : "";
  }
  const want = family === "ipv6" ? "IPv6" : "IPv4";
  const idx = families.indexOf(want);
  if (idx < 0) return "";
  return spec.clusterIPs?.[idx] ?? "";
}
function externallyAccessibleByType(service) {
  const t = service.spec.type;
  return t === "LoadBalancer" || t === "NodePort" || t === "ClusterIP" && (service.spec.externalIPs?.length ?? 0) > 0;
}
function ipsOfFamily(list, family, canonical) {
  const out2 = [];
  for (const s of list) {
    const p = parseIPSloppy(s);
    if (p && p.family === family) out2.push(canonical ? p.text : s);
  }
  return out2;
}
function buildServicePorts(services, opts) {
  const byKey = /* @__PURE__ */ new Map();
  const canonical = canonicalIPs(opts.version);
  for (const svc of services) {
    if (excludedByProxyLabels(svc.metadata.labels)) continue;
    if (svc.spec.type === "ExternalName" || !svc.spec.clusterIP || svc.spec.clusterIP === "None") continue;
    const rawClusterIP = clusterIPForFamily(svc, opts.family);
    if (rawClusterIP === "" || rawClusterIP === "None") continue;
    const clusterIP = parseIPSloppy(rawClusterIP);
    if (!clusterIP) continue;
    const namespace = svc.metadata.namespace ?? "default";
    const externalPolicyLocal = externallyAccessibleByType(svc) && svc.spec.externalTrafficPolicy === "Local";
    const internalPolicyLocal = svc.spec.internalTrafficPolicy === "Local";
    const clientIP = svc.spec.sessionAffinity === "ClientIP";
    const stickyMaxAgeSeconds = clientIP ? svc.spec.sessionAffinityConfig?.clientIP?.timeoutSeconds ?? 10800 : 0;
    const externalIPs = ipsOfFamily(svc.spec.externalIPs ?? [], opts.family, canonical);
    const sourceRanges = [];
    for (const raw of svc.spec.loadBalancerSourceRanges ?? []) {
      const trimmed = raw.trim();
      const cidr = parseCIDRSloppy(trimmed);
      if (!cidr || cidr.family !== opts.family) continue;
      sourceRanges.push({ cidr, text: canonical ? cidr.text : trimmed });
    }
    const lbVIPs = [];
    for (const ing of svc.status?.loadBalancer?.ingress ?? []) {
      if (!ing.ip) continue;
      if (opts.featureGates.LoadBalancerIPMode && ing.ipMode !== void 0 && ing.ipMode !== "VIP") continue;
      const p = parseIPSloppy(ing.ip);
      if (p && p.family === opts.family) lbVIPs.push(canonical ? p.text : ing.ip);
    }
    const needsHealthCheck = svc.spec.type === "LoadBalancer" && externalPolicyLocal;
    const annotations = svc.metadata.annotations ?? {};
    const hintsAnnotation = annotations["service.kubernetes.io/topology-aware-hints"] || annotations["service.kubernetes.io/topology-mode"] || "";
    for (const port of svc.spec.ports ?? []) {
      const portName = port.name ?? "";
      const protocol = port.protocol ?? "TCP";
      const name = servicePortName(namespace, svc.metadata.name, portName);
      const info = {
        key: servicePortKey(name, protocol),
        name,
        namespace,
        serviceName: svc.metadata.name,
        portName,
        protocol,
        clusterIP: clusterIP.text,
        port: port.port,
        nodePort: port.nodePort ?? 0,
        externalIPs,
        loadBalancerVIPs: lbVIPs,
        loadBalancerSourceRanges: sourceRanges,
        sessionAffinityClientIP: clientIP,
        stickyMaxAgeSeconds,
        healthCheckNodePort: needsHealthCheck ? svc.spec.healthCheckNodePort ?? 0 : 0,
        externalPolicyLocal,
        internalPolicyLocal,
        hintsAnnotation
      };
      byKey.set(info.key, info);
    }
  }
  return [...byKey.values()].sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : a.protocol < b.protocol ? -1 : a.protocol > b.protocol ? 1 : 0);
}
function externallyAccessible(sp) {
  return sp.nodePort !== 0 || sp.loadBalancerVIPs.length > 0 || sp.externalIPs.length > 0;
}
function usesClusterEndpoints(sp) {
  return !sp.internalPolicyLocal || externallyAccessible(sp);
}
function usesLocalEndpoints(sp) {
  return sp.internalPolicyLocal || sp.externalPolicyLocal && externallyAccessible(sp);
}

// src/core/proxier/endpoints.ts
var LABEL_SERVICE_NAME = "kubernetes.io/service-name";
function compareEndpoint(a, b) {
  return a.endpoint < b.endpoint ? -1 : a.endpoint > b.endpoint ? 1 : 0;
}
function buildEndpointsMap(slices, opts) {
  const sets = /* @__PURE__ */ new Map();
  const canonical = canonicalIPs(opts.version);
  for (const slice of slices) {
    const svcName = slice.metadata.labels?.[LABEL_SERVICE_NAME];
    if (!svcName) continue;
    if (excludedByProxyLabels(slice.metadata.labels)) continue;
    if (slice.addressType !== "IPv4" && slice.addressType !== "IPv6") continue;
    const namespace = slice.metadata.namespace ?? "default";
    for (const port of slice.ports ?? []) {
      if (port.name === void 0 || port.name === null) continue;
      if (port.port === void 0 || port.port === null || port.port === 0) continue;
      const key = servicePortKey(servicePortName(namespace, svcName, port.name), port.protocol ?? "TCP");
      let set = sets.get(key);
      if (!set) sets.set(key, set = /* @__PURE__ */ new Map());
      for (const ep of slice.endpoints ?? []) {
        const addr = ep.addresses?.[0];
        if (addr === void 0) continue;
        const parsed = parseIPSloppy(addr);
        if ((parsed?.family ?? "ipv4") !== opts.family || !parsed) continue;
        const ip = canonical ? parsed.text : addr;
        const isLocal = opts.nodeName !== "" && ep.nodeName === opts.nodeName;
        const c = ep.conditions ?? {};
        const info = {
          ip,
          port: port.port,
          endpoint: joinHostPort(ip, port.port),
          isLocal,
          ready: c.ready === void 0 || c.ready === null || c.ready,
          serving: c.serving === void 0 || c.serving === null || c.serving,
          terminating: c.terminating === true,
          ...ep.nodeName !== void 0 ? { nodeName: ep.nodeName } : {}
        };
        if (opts.featureGates.TopologyAwareHints && (ep.hints?.forZones?.length ?? 0) > 0) {
          info.zoneHints = new Set(ep.hints.forZones.map((z) => z.name));
        }
        if (opts.featureGates.PreferSameTrafficDistribution && (ep.hints?.forNodes?.length ?? 0) > 0) {
          info.nodeHints = new Set(ep.hints.forNodes.map((n) => n.name));
        }
        if (!set.has(info.endpoint) || isLocal) set.set(info.endpoint, info);
      }
    }
  }
  const out2 = /* @__PURE__ */ new Map();
  for (const [key, set] of sets) {
    if (set.size > 0) out2.set(key, [...set.values()].sort(compareEndpoint));
  }
  return out2;
}

// src/core/proxier/topology.ts
function topologyModeFromHints(sp, endpoints, ctx) {
  if (!ctx.featureGates.TopologyAwareHints) return "";
  if (!ctx.featureGates.ServiceTrafficDistribution) {
    const a = sp.hintsAnnotation;
    if (a === "" || a === "disabled" || a === "Disabled") return "";
  }
  const zone = ctx.zone ?? "";
  let hasReady = false;
  let allNodeHints = true;
  let forNode = false;
  let allZoneHints = true;
  let forZone = false;
  for (const ep of endpoints) {
    if (!ep.ready) continue;
    hasReady = true;
    if (!ep.nodeHints || ep.nodeHints.size === 0) allNodeHints = false;
    else if (ep.nodeHints.has(ctx.nodeName)) forNode = true;
    if (!ep.zoneHints || ep.zoneHints.size === 0) allZoneHints = false;
    else if (ep.zoneHints.has(zone)) forZone = true;
  }
  if (!hasReady) return "";
  if (ctx.featureGates.PreferSameTrafficDistribution && allNodeHints && forNode) return "PreferSameNode";
  if (allZoneHints && forZone && zone !== "") return "PreferSameZone";
  return "";
}
function availableForTopology(ep, mode, ctx) {
  switch (mode) {
    case "":
      return true;
    case "PreferSameNode":
      return ep.nodeHints?.has(ctx.nodeName) ?? false;
    case "PreferSameZone":
      return ep.zoneHints?.has(ctx.zone ?? "") ?? false;
  }
}
function categorizeEndpoints(endpoints, sp, ctx) {
  const result = {
    clusterEndpoints: [],
    localEndpoints: [],
    allReachableEndpoints: [],
    hasAnyEndpoints: false,
    topologyMode: "",
    localUsesTerminating: false
  };
  if (endpoints.length === 0) return result;
  const usesCluster = usesClusterEndpoints(sp);
  if (usesCluster) {
    result.topologyMode = topologyModeFromHints(sp, endpoints, ctx);
    result.clusterEndpoints = endpoints.filter((ep) => ep.ready && availableForTopology(ep, result.topologyMode, ctx));
    if (result.clusterEndpoints.length === 0) result.clusterEndpoints = endpoints.filter((ep) => ep.serving && ep.terminating);
    if (result.clusterEndpoints.length > 0) result.hasAnyEndpoints = true;
  }
  if (!usesLocalEndpoints(sp)) {
    result.allReachableEndpoints = result.clusterEndpoints;
    return result;
  }
  let localReady = false;
  let localServingTerminating = false;
  for (const ep of endpoints) {
    if (ep.ready) {
      result.hasAnyEndpoints = true;
      if (ep.isLocal) localReady = true;
    } else if (ep.serving && ep.terminating) {
      result.hasAnyEndpoints = true;
      if (ep.isLocal) localServingTerminating = true;
    }
  }
  if (localReady) {
    result.localEndpoints = endpoints.filter((ep) => ep.isLocal && ep.ready);
  } else if (localServingTerminating) {
    result.localUsesTerminating = true;
    result.localEndpoints = endpoints.filter((ep) => ep.isLocal && ep.serving && ep.terminating);
  }
  if (!usesCluster) {
    result.allReachableEndpoints = result.localEndpoints;
    return result;
  }
  if (result.topologyMode === "" && !result.localUsesTerminating) {
    result.allReachableEndpoints = result.clusterEndpoints;
    return result;
  }
  const union = /* @__PURE__ */ new Map();
  for (const ep of result.clusterEndpoints) union.set(ep.endpoint, ep);
  for (const ep of result.localEndpoints) union.set(ep.endpoint, ep);
  result.allReachableEndpoints = [...union.values()].sort((a, b) => a.endpoint < b.endpoint ? -1 : a.endpoint > b.endpoint ? 1 : 0);
  return result;
}

// src/core/proxier/iptables/names.ts
import { createHash } from "node:crypto";
var BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
function base32Prefix16(bytes) {
  let out2 = "";
  let buffer = 0;
  let bits = 0;
  for (let i2 = 0; i2 < 10; i2++) {
    buffer = buffer << 8 | bytes[i2];
    bits += 8;
    while (bits >= 5) {
      out2 += BASE32[buffer >>> bits - 5 & 31];
      bits -= 5;
    }
    buffer &= (1 << bits) - 1;
  }
  return out2;
}
function hash16(input) {
  return base32Prefix16(createHash("sha256").update(input, "utf8").digest());
}
function portProtoHash(servicePortName2, protocol) {
  return hash16(servicePortName2 + protocol.toLowerCase());
}
function endpointChainName(servicePortName2, protocol, endpoint) {
  return `KUBE-SEP-${hash16(servicePortName2 + protocol.toLowerCase() + endpoint)}`;
}
var SERVICE_CHAIN_PREFIXES2 = ["KUBE-SVC-", "KUBE-SVL-", "KUBE-EXT-", "KUBE-FW-", "KUBE-SEP-"];
function isServiceChainName(chain) {
  return SERVICE_CHAIN_PREFIXES2.some((p) => chain.startsWith(p));
}

// src/core/proxier/iptables/probability.ts
var cache = [];
function exactDyadic(x) {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const exp = hi >>> 20 & 2047;
  let mant = BigInt(hi & 1048575) << 32n | BigInt(lo);
  let e;
  if (exp === 0) e = -1074;
  else {
    mant |= 1n << 52n;
    e = exp - 1075;
  }
  return e >= 0 ? { num: mant << BigInt(e), shift: 0n } : { num: mant, shift: BigInt(-e) };
}
function formatFixed10(x) {
  if (x === 0) return "0.0000000000";
  const { num, shift } = exactDyadic(x);
  const scaled = num * 10n ** 10n;
  const denom = 1n << shift;
  let q = scaled / denom;
  const twice = scaled % denom * 2n;
  if (twice > denom || twice === denom && q % 2n === 1n) q += 1n;
  const digits = q.toString().padStart(11, "0");
  return `${digits.slice(0, -10)}.${digits.slice(-10)}`;
}
function computeProbability(n) {
  let s = cache[n];
  if (s === void 0) {
    s = formatFixed10(1 / n);
    if (n < 4096) cache[n] = s;
  }
  return s;
}

// src/core/proxier/iptables/ruleset.ts
function rulesetTable(ruleset, name) {
  return name === "filter" ? ruleset.tables[0] : ruleset.tables[1];
}
function restoreToken(token) {
  return token.includes(" ") ? `"${token}"` : token;
}
function restoreRuleLine(rule) {
  const parts = new Array(rule.args.length + 2);
  parts[0] = "-A";
  parts[1] = rule.chain;
  for (let i2 = 0; i2 < rule.args.length; i2++) parts[i2 + 2] = restoreToken(rule.args[i2]);
  return parts.join(" ");
}
function serializeRestore(ruleset) {
  const lines = [];
  for (const table of ruleset.tables) {
    lines.push(`*${table.name}`);
    for (const c of table.chains) lines.push(`:${c} - [0:0]`);
    table.rules.forEach((r, i2) => {
      if (i2 === table.deletedChainsAt) for (const c of table.deletedChains) lines.push(`-X ${c}`);
      lines.push(restoreRuleLine(r));
    });
    if (table.deletedChainsAt >= table.rules.length) for (const c of table.deletedChains) lines.push(`-X ${c}`);
    lines.push("COMMIT");
  }
  lines.push("");
  return lines.join("\n");
}

// src/core/proxier/iptables/generate.ts
var KUBE_SERVICES = "KUBE-SERVICES";
var KUBE_EXTERNAL_SERVICES = "KUBE-EXTERNAL-SERVICES";
var KUBE_NODEPORTS = "KUBE-NODEPORTS";
var KUBE_POSTROUTING = "KUBE-POSTROUTING";
var KUBE_MARK_MASQ = "KUBE-MARK-MASQ";
var KUBE_FORWARD = "KUBE-FORWARD";
var KUBE_PROXY_FIREWALL = "KUBE-PROXY-FIREWALL";
var KUBE_FIREWALL = "KUBE-FIREWALL";
var LARGE_CLUSTER_ENDPOINTS_THRESHOLD = 1e3;
var NODEPORTS_JUMP_COMMENT = "kubernetes service nodeports; NOTE: this must be the last rule in this chain";
var NFACCT_CT_STATE_INVALID = "ct_state_invalid_dropped_pkts";
var NFACCT_LOCALHOST_NODEPORTS = "localhost_nps_accepted_pkts";
function nodePortAddressesFor(family, cidrStrings) {
  let parsed = cidrStrings.map((s) => parseCIDRSloppy(s)).filter((c) => c !== void 0 && c.family === family);
  if (parsed.length === 0) parsed = [parseCIDRSloppy(family === "ipv4" ? "0.0.0.0/0" : "::/0")];
  const out2 = { cidrs: [], matchAll: false, containsIPv4Loopback: false };
  const loopbackStart = parseIPSloppy("127.0.0.0");
  for (const cidr of parsed) {
    if (cidr.family === "ipv4" && (cidr.network[0] === 127 || cidrContains(cidr, loopbackStart))) out2.containsIPv4Loopback = true;
    if (cidr.prefix === 0) {
      out2.cidrs = [cidr];
      out2.matchAll = true;
      break;
    }
    out2.cidrs.push(cidr);
  }
  return out2;
}
function localDetectorArgs(options2) {
  const d = options2.localDetector;
  switch (d.mode) {
    case "ClusterCIDR":
    case "NodeCIDR":
      return { ifLocal: ["-s", d.cidr], ifNotLocal: ["!", "-s", d.cidr] };
    case "BridgeInterface":
      return { ifLocal: ["-i", d.interfaceName], ifNotLocal: ["!", "-i", d.interfaceName] };
    case "InterfaceNamePrefix":
      return { ifLocal: ["-i", `${d.prefix}+`], ifNotLocal: ["!", "-i", `${d.prefix}+`] };
    case "NoOp":
      return void 0;
  }
}
var TableBuilder = class {
  table;
  constructor(name) {
    this.table = { name, chains: [], rules: [], deletedChains: [], deletedChainsAt: 0 };
  }
  chain(name) {
    this.table.chains.push(name);
  }
  rule(chain, args, servicePort) {
    const r = servicePort === void 0 ? { table: this.table.name, chain, args } : { table: this.table.name, chain, args, servicePort };
    this.table.rules.push(r);
  }
};
function generateIptablesRestore(input) {
  const o = input.options;
  const v = o.version;
  const isIPv6 = o.family === "ipv6";
  const mark = o.masqueradeMark ?? formatMasqueradeMark(o.masqueradeBit);
  const gates = o.featureGates;
  const filter = new TableBuilder("filter");
  const nat = new TableBuilder("nat");
  const servicePorts = buildServicePorts(input.services, { family: o.family, version: v, featureGates: gates });
  const endpointsMap = buildEndpointsMap(input.endpointSlices, { family: o.family, version: v, nodeName: o.nodeName, featureGates: gates });
  const npa = nodePortAddressesFor(o.family, o.nodePortAddresses);
  const localhostNodePorts = o.localhostNodePorts && !isIPv6 && npa.containsIPv4Loopback;
  const detector = localDetectorArgs(o);
  const nodeIP = parseIPSloppy(o.nodeIP);
  for (const c of [KUBE_SERVICES, KUBE_EXTERNAL_SERVICES, KUBE_FORWARD, KUBE_NODEPORTS, KUBE_PROXY_FIREWALL]) filter.chain(c);
  for (const c of [KUBE_SERVICES, KUBE_NODEPORTS, KUBE_POSTROUTING, KUBE_MARK_MASQ]) nat.chain(c);
  nat.rule(KUBE_POSTROUTING, ["-m", "mark", "!", "--mark", `${mark}/${mark}`, "-j", "RETURN"]);
  nat.rule(KUBE_POSTROUTING, ["-j", "MARK", "--xor-mark", mark]);
  nat.rule(KUBE_POSTROUTING, ["-m", "comment", "--comment", "kubernetes service traffic requiring SNAT", "-j", "MASQUERADE", ...o.randomFully ? ["--random-fully"] : []]);
  nat.rule(KUBE_MARK_MASQ, ["-j", "MARK", "--or-mark", mark]);
  if (!isIPv6 && localhostNodePorts) {
    filter.chain(KUBE_FIREWALL);
    filter.rule(KUBE_FIREWALL, ["-m", "comment", "--comment", "block incoming localnet connections", "-d", "127.0.0.0/8", "!", "-s", "127.0.0.0/8", "-m", "conntrack", "!", "--ctstate", "RELATED,ESTABLISHED,DNAT", "-j", "DROP"]);
  }
  const activeNatChains = /* @__PURE__ */ new Set();
  let totalEndpoints = 0;
  for (const sp of servicePorts) totalEndpoints += endpointsMap.get(sp.key)?.length ?? 0;
  const largeClusterMode = totalEndpoints > LARGE_CLUSTER_ENDPOINTS_THRESHOLD;
  const localhostNfacct = localhostNodePorts && !isIPv6 && versionAtLeast(v, 1, 31) && o.nfacct.localhostNpsAcceptedPkts;
  for (const sp of servicePorts) {
    const spn = sp.name;
    const proto = sp.protocol.toLowerCase();
    const cat = categorizeEndpoints(endpointsMap.get(sp.key) ?? [], sp, { nodeName: o.nodeName, ...o.zone !== void 0 ? { zone: o.zone } : {}, featureGates: gates });
    const { clusterEndpoints, localEndpoints, allReachableEndpoints, hasAnyEndpoints: hasEndpoints } = cat;
    const hash = portProtoHash(spn, proto);
    const svcChain = `KUBE-SVC-${hash}`;
    const svlChain = `KUBE-SVL-${hash}`;
    const extChain = `KUBE-EXT-${hash}`;
    const fwChain = `KUBE-FW-${hash}`;
    const usesClusterChain = clusterEndpoints.length > 0 && usesClusterEndpoints(sp);
    const usesLocalChain = localEndpoints.length > 0 && usesLocalEndpoints(sp);
    let internalChain = svcChain;
    let hasInternal = hasEndpoints;
    if (sp.internalPolicyLocal) {
      internalChain = svlChain;
      if (localEndpoints.length === 0) hasInternal = false;
    }
    let externalPolicyChain = svcChain;
    let hasExternal = hasEndpoints;
    if (sp.externalPolicyLocal) {
      externalPolicyChain = svlChain;
      if (localEndpoints.length === 0) hasExternal = false;
    }
    const usesExtChain = hasEndpoints && externallyAccessible(sp);
    const usesFWChain = hasEndpoints && sp.loadBalancerVIPs.length > 0 && sp.loadBalancerSourceRanges.length > 0;
    const lbChain = usesFWChain ? fwChain : extChain;
    let internalTarget = "";
    let internalComment = "";
    let externalTarget = "";
    let externalComment = "";
    if (!hasEndpoints) {
      internalTarget = externalTarget = "REJECT";
      internalComment = externalComment = `${spn} has no endpoints`;
    } else {
      if (!hasInternal) {
        internalTarget = "DROP";
        internalComment = `${spn} has no local endpoints`;
      }
      if (!hasExternal) {
        externalTarget = "DROP";
        externalComment = `${spn} has no local endpoints`;
      }
    }
    const port = String(sp.port);
    const sepNames = /* @__PURE__ */ new Map();
    const sepName = (ep) => {
      let n = sepNames.get(ep.endpoint);
      if (n === void 0) sepNames.set(ep.endpoint, n = endpointChainName(spn, proto, ep.endpoint));
      return n;
    };
    const natRule = (chain, args) => nat.rule(chain, args, spn);
    const filterRule = (chain, args) => filter.rule(chain, args, spn);
    if (hasInternal) {
      natRule(KUBE_SERVICES, ["-m", "comment", "--comment", `${spn} cluster IP`, "-m", proto, "-p", proto, "-d", sp.clusterIP, "--dport", port, "-j", internalChain]);
    } else {
      filterRule(KUBE_SERVICES, ["-m", "comment", "--comment", internalComment, "-m", proto, "-p", proto, "-d", sp.clusterIP, "--dport", port, "-j", internalTarget]);
    }
    for (const eip of sp.externalIPs) {
      if (hasEndpoints) natRule(KUBE_SERVICES, ["-m", "comment", "--comment", `${spn} external IP`, "-m", proto, "-p", proto, "-d", eip, "--dport", port, "-j", extChain]);
      if (!hasExternal) filterRule(KUBE_EXTERNAL_SERVICES, ["-m", "comment", "--comment", externalComment, "-m", proto, "-p", proto, "-d", eip, "--dport", port, "-j", externalTarget]);
    }
    for (const lbip of sp.loadBalancerVIPs) {
      if (hasEndpoints) natRule(KUBE_SERVICES, ["-m", "comment", "--comment", `${spn} loadbalancer IP`, "-m", proto, "-p", proto, "-d", lbip, "--dport", port, "-j", lbChain]);
      if (usesFWChain) filterRule(KUBE_PROXY_FIREWALL, ["-m", "comment", "--comment", `${spn} traffic not accepted by ${fwChain}`, "-m", proto, "-p", proto, "-d", lbip, "--dport", port, "-j", "DROP"]);
    }
    if (!hasExternal) {
      for (const lbip of sp.loadBalancerVIPs) filterRule(KUBE_EXTERNAL_SERVICES, ["-m", "comment", "--comment", externalComment, "-m", proto, "-p", proto, "-d", lbip, "--dport", port, "-j", externalTarget]);
    }
    if (sp.nodePort !== 0) {
      const np = String(sp.nodePort);
      if (hasEndpoints) {
        if (localhostNfacct) natRule(KUBE_NODEPORTS, ["-m", "comment", "--comment", spn, "-m", proto, "-p", proto, "-d", "127.0.0.0/8", "--dport", np, "-m", "nfacct", "--nfacct-name", NFACCT_LOCALHOST_NODEPORTS, "-j", extChain]);
        natRule(KUBE_NODEPORTS, ["-m", "comment", "--comment", spn, "-m", proto, "-p", proto, "--dport", np, "-j", extChain]);
      }
      if (!hasExternal) filterRule(KUBE_EXTERNAL_SERVICES, ["-m", "comment", "--comment", externalComment, "-m", "addrtype", "--dst-type", "LOCAL", "-m", proto, "-p", proto, "--dport", np, "-j", externalTarget]);
    }
    if (sp.healthCheckNodePort !== 0) {
      filterRule(KUBE_NODEPORTS, ["-m", "comment", "--comment", `${spn} health check node port`, "-m", "tcp", "-p", "tcp", "--dport", String(sp.healthCheckNodePort), "-j", "ACCEPT"]);
    }
    if (hasInternal) {
      const args = ["-m", "comment", "--comment", `${spn} cluster IP`, "-m", proto, "-p", proto, "-d", sp.clusterIP, "--dport", port];
      if (o.masqueradeAll) natRule(internalChain, [...args, "-j", KUBE_MARK_MASQ]);
      else if (detector) natRule(internalChain, [...args, ...detector.ifNotLocal, "-j", KUBE_MARK_MASQ]);
    }
    if (usesExtChain) {
      nat.chain(extChain);
      activeNatChains.add(extChain);
      if (!sp.externalPolicyLocal) {
        natRule(extChain, ["-m", "comment", "--comment", `masquerade traffic for ${spn} external destinations`, "-j", KUBE_MARK_MASQ]);
      } else {
        if (detector) natRule(extChain, ["-m", "comment", "--comment", `pod traffic for ${spn} external destinations`, ...detector.ifLocal, "-j", svcChain]);
        natRule(extChain, ["-m", "comment", "--comment", `masquerade LOCAL traffic for ${spn} external destinations`, "-m", "addrtype", "--src-type", "LOCAL", "-j", KUBE_MARK_MASQ]);
        natRule(extChain, ["-m", "comment", "--comment", `route LOCAL traffic for ${spn} external destinations`, "-m", "addrtype", "--src-type", "LOCAL", "-j", svcChain]);
      }
      if (hasExternal) natRule(extChain, ["-j", externalPolicyChain]);
    }
    if (usesFWChain) {
      nat.chain(fwChain);
      activeNatChains.add(fwChain);
      const head = ["-m", "comment", "--comment", `${spn} loadbalancer IP`];
      let allowFromNode = false;
      for (const range of sp.loadBalancerSourceRanges) {
        natRule(fwChain, [...head, "-s", range.text, "-j", extChain]);
        if (nodeIP && cidrContains(range.cidr, nodeIP)) allowFromNode = true;
      }
      if (allowFromNode) for (const lbip of sp.loadBalancerVIPs) natRule(fwChain, [...head, "-s", lbip, "-j", extChain]);
      natRule(fwChain, ["-m", "comment", "--comment", `other traffic to ${spn} will be dropped by KUBE-PROXY-FIREWALL`]);
    }
    if (usesClusterChain) {
      nat.chain(svcChain);
      activeNatChains.add(svcChain);
      writeServiceToEndpointRules(natRule, sp, svcChain, clusterEndpoints, largeClusterMode, sepName);
    }
    if (usesLocalChain) {
      nat.chain(svlChain);
      activeNatChains.add(svlChain);
      writeServiceToEndpointRules(natRule, sp, svlChain, localEndpoints, largeClusterMode, sepName);
    }
    for (const ep of allReachableEndpoints) {
      const sepChain = sepName(ep);
      nat.chain(sepChain);
      activeNatChains.add(sepChain);
      natRule(sepChain, largeClusterMode ? ["-s", ep.ip, "-j", KUBE_MARK_MASQ] : ["-m", "comment", "--comment", spn, "-s", ep.ip, "-j", KUBE_MARK_MASQ]);
      const dnat = ["-m", proto, "-p", proto, "-j", "DNAT", "--to-destination", ep.endpoint];
      const affinity = sp.sessionAffinityClientIP ? ["-m", "recent", "--name", sepChain, "--set"] : [];
      if (largeClusterMode) natRule(sepChain, affinity.length === 0 ? dnat : [...affinity, ...dnat]);
      else if (affinity.length === 0) natRule(sepChain, ["-m", "comment", "--comment", spn, "-m", proto, "-p", proto, "-j", "DNAT", "--to-destination", ep.endpoint]);
      else natRule(sepChain, ["-m", "comment", "--comment", spn, ...affinity, ...dnat]);
    }
  }
  const stale = [...new Set(o.existingNatChains ?? [])].filter((c) => isServiceChainName(c) && !activeNatChains.has(c)).sort();
  for (const c of stale) nat.chain(c);
  nat.table.deletedChains = stale;
  nat.table.deletedChainsAt = nat.table.rules.length;
  if (npa.matchAll) {
    const dest = ["-m", "addrtype", "--dst-type", "LOCAL"];
    if (isIPv6) dest.push("!", "-d", "::1/128");
    else if (!localhostNodePorts) dest.push("!", "-d", "127.0.0.0/8");
    nat.rule(KUBE_SERVICES, ["-m", "comment", "--comment", NODEPORTS_JUMP_COMMENT, ...dest, "-j", KUBE_NODEPORTS]);
  } else {
    for (const ip of nodePortIPs(npa, o.nodeInterfaceAddresses)) {
      if (isLoopback(ip) && (isIPv6 || !localhostNodePorts)) continue;
      nat.rule(KUBE_SERVICES, ["-m", "comment", "--comment", NODEPORTS_JUMP_COMMENT, "-d", ip.text, "-j", KUBE_NODEPORTS]);
    }
  }
  if (!(o.tcpBeLiberal && versionAtLeast(v, 1, 29))) {
    const nfacct = versionAtLeast(v, 1, 30) && o.nfacct.ctStateInvalidDroppedPkts ? ["-m", "nfacct", "--nfacct-name", NFACCT_CT_STATE_INVALID] : [];
    filter.rule(KUBE_FORWARD, ["-m", "conntrack", "--ctstate", "INVALID", ...nfacct, "-j", "DROP"]);
  }
  filter.rule(KUBE_FORWARD, ["-m", "comment", "--comment", "kubernetes forwarding rules", "-m", "mark", "--mark", `${mark}/${mark}`, "-j", "ACCEPT"]);
  filter.rule(KUBE_FORWARD, ["-m", "comment", "--comment", "kubernetes forwarding conntrack rule", "-m", "conntrack", "--ctstate", "RELATED,ESTABLISHED", "-j", "ACCEPT"]);
  const ruleset = {
    family: o.family,
    version: formatKubeProxyVersion(v),
    masqueradeMark: mark,
    largeClusterMode,
    localhostNodePorts,
    tables: [filter.table, nat.table]
  };
  return restoreOutput(ruleset);
}
function restoreOutput(ruleset) {
  let text2;
  const out2 = { ruleset };
  Object.defineProperty(out2, "text", {
    enumerable: true,
    configurable: true,
    get: () => text2 ??= serializeRestore(ruleset)
  });
  return out2;
}
function writeServiceToEndpointRules(natRule, sp, chain, endpoints, largeClusterMode, sepName) {
  if (sp.sessionAffinityClientIP) {
    const seconds = String(sp.stickyMaxAgeSeconds);
    for (const ep of endpoints) {
      const sep = sepName(ep);
      const rest = ["-m", "recent", "--name", sep, "--rcheck", "--seconds", seconds, "--reap", "-j", sep];
      natRule(chain, largeClusterMode ? rest : ["-m", "comment", "--comment", `${sp.name} -> ${ep.endpoint}`, ...rest]);
    }
  }
  const n = endpoints.length;
  for (let i2 = 0; i2 < n; i2++) {
    const ep = endpoints[i2];
    const sep = sepName(ep);
    let args;
    if (i2 < n - 1) {
      const p = computeProbability(n - i2);
      args = largeClusterMode ? ["-m", "statistic", "--mode", "random", "--probability", p, "-j", sep] : ["-m", "comment", "--comment", `${sp.name} -> ${ep.endpoint}`, "-m", "statistic", "--mode", "random", "--probability", p, "-j", sep];
    } else args = largeClusterMode ? ["-j", sep] : ["-m", "comment", "--comment", `${sp.name} -> ${ep.endpoint}`, "-j", sep];
    natRule(chain, args);
  }
}
function nodePortIPs(npa, interfaceAddresses) {
  const ips = interfaceAddresses.map((a) => parseIPSloppy(a.split("/")[0] ?? "")).filter((p) => p !== void 0);
  const found = /* @__PURE__ */ new Map();
  for (const cidr of npa.cidrs) for (const ip of ips) if (cidrContains(cidr, ip)) found.set(ip.text, ip);
  return [...found.values()].sort((a, b) => a.text < b.text ? -1 : a.text > b.text ? 1 : 0);
}

// src/core/iptables/address.ts
function parseIPv4(text2) {
  const parts = text2.split(".");
  if (parts.length < 1 || parts.length > 4) return null;
  const vals = [];
  for (const p of parts) {
    let v;
    if (/^0[xX][0-9a-fA-F]*$/.test(p)) v = p.length === 2 ? 0 : parseInt(p.slice(2), 16);
    else if (/^0[0-7]*$/.test(p)) v = parseInt(p, 8);
    else if (/^[1-9][0-9]*$/.test(p)) v = parseInt(p, 10);
    else return null;
    if (!Number.isFinite(v) || v > 4294967295) return null;
    vals.push(v);
  }
  const last2 = vals[vals.length - 1];
  const head = vals.slice(0, -1);
  if (head.some((v) => v > 255)) return null;
  const tailBits = 8 * (4 - head.length);
  if (tailBits < 32 && last2 >= 2 ** tailBits) return null;
  let out2 = 0;
  for (const [i2, v] of head.entries()) out2 += v * 2 ** (24 - 8 * i2);
  return out2 + last2;
}
function formatIPv4(v) {
  return `${Math.floor(v / 16777216) & 255}.${v >>> 16 & 255}.${v >>> 8 & 255}.${v & 255}`;
}
function parseIPv6(text2) {
  if (text2.length === 0 || text2.length > 45 || !/^[0-9a-fA-F:.]+$/.test(text2)) return null;
  let tail = [];
  let s = text2;
  const lastColon = s.lastIndexOf(":");
  if (s.indexOf(".") !== -1) {
    if (lastColon === -1) return null;
    const v4 = s.slice(lastColon + 1);
    if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(v4)) return null;
    const octets = v4.split(".").map(Number);
    if (octets.some((o) => o > 255)) return null;
    tail = [octets[0] << 8 | octets[1], octets[2] << 8 | octets[3]];
    s = s.slice(0, lastColon + 1);
    if (!s.endsWith("::")) s = s.slice(0, -1);
  }
  const dbl = s.indexOf("::");
  if (dbl !== -1 && s.indexOf("::", dbl + 1) !== -1) return null;
  const parseGroups = (g) => {
    if (g === "") return [];
    const out2 = [];
    for (const h of g.split(":")) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(h)) return null;
      out2.push(parseInt(h, 16));
    }
    return out2;
  };
  let words;
  if (dbl === -1) {
    const g = parseGroups(s);
    if (!g) return null;
    words = [...g, ...tail];
    if (words.length !== 8) return null;
  } else {
    const head = parseGroups(s.slice(0, dbl));
    const rest = parseGroups(s.slice(dbl + 2));
    if (!head || !rest) return null;
    const fill = 8 - head.length - rest.length - tail.length;
    if (fill < 1) return null;
    words = [...head, ...new Array(fill).fill(0), ...rest, ...tail];
  }
  return words;
}
function formatIPv6(words) {
  let bestBase = -1;
  let bestLen = 0;
  let curBase = -1;
  let curLen = 0;
  for (let i2 = 0; i2 < 8; i2++) {
    if (words[i2] === 0) {
      if (curBase === -1) {
        curBase = i2;
        curLen = 1;
      } else curLen++;
    } else if (curBase !== -1) {
      if (bestBase === -1 || curLen > bestLen) {
        bestBase = curBase;
        bestLen = curLen;
      }
      curBase = -1;
    }
  }
  if (curBase !== -1 && (bestBase === -1 || curLen > bestLen)) {
    bestBase = curBase;
    bestLen = curLen;
  }
  if (bestBase !== -1 && bestLen < 2) bestBase = -1;
  let out2 = "";
  for (let i2 = 0; i2 < 8; i2++) {
    if (bestBase !== -1 && i2 >= bestBase && i2 < bestBase + bestLen) {
      if (i2 === bestBase) out2 += ":";
      continue;
    }
    if (i2 !== 0) out2 += ":";
    if (i2 === 6 && bestBase === 0 && (bestLen === 6 || bestLen === 5 && words[5] === 65535)) {
      const a = words[6];
      const b = words[7];
      out2 += `${a >> 8}.${a & 255}.${b >> 8}.${b & 255}`;
      return out2;
    }
    out2 += words[i2].toString(16);
  }
  if (bestBase !== -1 && bestBase + bestLen === 8) out2 += ":";
  return out2;
}
function maskToPrefix(bits) {
  let len = 0;
  while (len < bits.length && bits[len]) len++;
  for (let i2 = len; i2 < bits.length; i2++) if (bits[i2]) return -1;
  return len;
}
function canonicalAddress(text2, family) {
  const slash = text2.indexOf("/");
  const addrText = slash === -1 ? text2 : text2.slice(0, slash);
  const maskText = slash === -1 ? null : text2.slice(slash + 1);
  if (family === "ipv4") {
    const addr = parseIPv4(addrText);
    if (addr === null) return null;
    let mask;
    if (maskText === null) mask = 4294967295;
    else if (/^\d{1,2}$/.test(maskText)) {
      const len3 = Number(maskText);
      if (len3 > 32) return null;
      mask = len3 === 0 ? 0 : 4294967295 << 32 - len3 >>> 0;
    } else {
      const m = maskText.includes(".") ? parseIPv4(maskText) : null;
      if (m === null) return null;
      mask = m;
    }
    const net2 = (addr & mask) >>> 0;
    const bits2 = Array.from({ length: 32 }, (_, i2) => (mask >>> 31 - i2 & 1) === 1);
    const len2 = maskToPrefix(bits2);
    return { text: `${formatIPv4(net2)}/${len2 === -1 ? formatIPv4(mask) : len2}`, any: net2 === 0 && mask === 0 };
  }
  const words = parseIPv6(addrText);
  if (!words) return null;
  let maskWords;
  if (maskText === null) maskWords = new Array(8).fill(65535);
  else if (/^\d{1,3}$/.test(maskText)) {
    const len2 = Number(maskText);
    if (len2 > 128) return null;
    maskWords = Array.from({ length: 8 }, (_, i2) => {
      const b = Math.max(0, Math.min(16, len2 - 16 * i2));
      return b === 0 ? 0 : 65535 << 16 - b & 65535;
    });
  } else {
    const m = parseIPv6(maskText);
    if (!m) return null;
    maskWords = m;
  }
  const net = words.map((w, i2) => w & maskWords[i2]);
  const bits = [];
  for (const w of maskWords) for (let b = 15; b >= 0; b--) bits.push((w >> b & 1) === 1);
  const len = maskToPrefix(bits);
  return {
    text: `${formatIPv6(net)}/${len === -1 ? formatIPv6(maskWords) : len}`,
    any: net.every((w) => w === 0) && maskWords.every((w) => w === 0)
  };
}
function canonicalHost(text2, family) {
  if (family === "ipv4") {
    const v = parseIPv4(text2);
    return v === null ? null : formatIPv4(v);
  }
  const w = parseIPv6(text2);
  return w ? formatIPv6(w) : null;
}

// src/core/iptables/canonical.ts
function canonicalizeRule(tokens, family) {
  let head = [];
  let args = tokens;
  if ((tokens[0] === "-A" || tokens[0] === "--append") && tokens.length >= 2) {
    head = ["-A", tokens[1]];
    args = tokens.slice(2);
  }
  return [...head, ...formatParsedRule(canonicalizeParsedRule(parseRuleArgs(args), family))];
}
function formatParsedRule(rule) {
  const out2 = [];
  const generic = (flag, v) => {
    if (!v) return;
    if (v.negated) out2.push("!");
    out2.push(flag, v.value);
  };
  generic("-s", rule.source);
  generic("-d", rule.destination);
  generic("-i", rule.inInterface);
  generic("-o", rule.outInterface);
  generic("-p", rule.protocol);
  if (rule.fragment) {
    if (rule.fragment.negated) out2.push("!");
    out2.push("-f");
  }
  for (const m of rule.matches) out2.push("-m", m.name, ...m.options);
  if (rule.target) out2.push(rule.target.goto ? "-g" : "-j", rule.target.name, ...rule.target.options);
  return out2;
}
function canonicalizeParsedRule(rule, family) {
  const addr = (v, flag) => {
    if (!v) return null;
    if (v.value.includes(",")) throw new ParseError(`${flag} ${v.value}: several addresses make iptables add one rule per address`);
    const c = canonicalAddress(v.value, family);
    if (!c) return { ...v };
    if (c.any && !v.negated) return null;
    return { value: c.text, negated: v.negated };
  };
  let protocol = null;
  if (rule.protocol) {
    const name = protocolName(rule.protocol.value);
    protocol = name === "all" && !rule.protocol.negated ? null : { value: name, negated: rule.protocol.negated };
  }
  return {
    source: addr(rule.source, "-s"),
    destination: addr(rule.destination, "-d"),
    inInterface: rule.inInterface ? { ...rule.inInterface } : null,
    outInterface: rule.outInterface ? { ...rule.outInterface } : null,
    protocol,
    fragment: rule.fragment ? { ...rule.fragment } : null,
    matches: rule.matches.map((m) => ({ name: m.name, options: canonicalMatchOptions(m, family) })),
    target: rule.target ? { ...rule.target, options: canonicalTargetOptions(rule.target, family) } : null
  };
}
var PROTOCOL_NAMES = {
  "0": "all",
  "1": "icmp",
  "2": "igmp",
  "4": "ipencap",
  "6": "tcp",
  "17": "udp",
  "33": "dccp",
  "41": "ipv6",
  "47": "gre",
  "50": "esp",
  "51": "ah",
  "58": "ipv6-icmp",
  "132": "sctp",
  "136": "udplite"
};
var PROTOCOL_ALIASES = { icmpv6: "ipv6-icmp" };
var PROTOCOL_NUMBERS = Object.fromEntries(
  Object.entries(PROTOCOL_NAMES).map(([num, name]) => [name, Number(num)])
);
function protocolName(p) {
  const l = p.toLowerCase();
  if (/^\d+$/.test(l)) return PROTOCOL_NAMES[String(Number(l))] ?? String(Number(l));
  return PROTOCOL_ALIASES[l] ?? l;
}
function splitOptions(options2, table) {
  const out2 = [];
  let neg = false;
  for (let i2 = 0; i2 < options2.length; i2++) {
    const t = options2[i2];
    if (t === "!") {
      neg = true;
      continue;
    }
    const arity = table?.[t];
    if (arity !== void 0) {
      out2.push({ neg, name: t, values: options2.slice(i2 + 1, i2 + 1 + arity) });
      i2 += arity;
      neg = false;
    } else if (t.startsWith("--") || out2.length === 0) {
      out2.push({ neg, name: t, values: [] });
      neg = false;
    } else out2[out2.length - 1].values.push(t);
  }
  return out2;
}
function last(opts, ...names) {
  for (let i2 = opts.length - 1; i2 >= 0; i2--) if (names.includes(opts[i2].name)) return opts[i2];
  return void 0;
}
function emit(out2, o, name, ...values) {
  if (!o) return;
  if (o.neg) out2.push("!");
  out2.push(name, ...values);
}
function canonicalMatchOptions(m, family) {
  const opts = splitOptions(m.options, MATCH_OPTIONS[m.name]);
  switch (m.name) {
    case "tcp":
    case "udp":
    case "udplite":
      return portMatch(m.name, opts);
    case "sctp":
      return sctpMatch(opts);
    case "statistic":
      return statisticMatch(opts);
    case "recent":
      return recentMatch(opts, family);
    case "mark":
      return markMatch(opts);
    case "conntrack":
      return conntrackMatch(opts);
    case "state":
      return stateMatch(opts);
    case "addrtype":
      return addrtypeMatch(opts);
    case "multiport":
      return multiportMatch(opts);
    default:
      return [...m.options];
  }
}
function canonicalTargetOptions(t, family) {
  const opts = splitOptions(t.options, TARGET_OPTIONS[t.name]);
  switch (t.name) {
    case "MARK":
      return markTarget(opts);
    case "REJECT":
      return rejectTarget(opts, family);
    case "DNAT":
      return natTarget(opts, "--to-destination", family);
    case "SNAT":
      return natTarget(opts, "--to-source", family);
    case "MASQUERADE":
      return masqueradeTarget(opts);
    case "LOG":
      return logTarget(opts);
    default:
      return [...t.options];
  }
}
function portRange(v) {
  const m = /^(\d*)(?::(\d*))?$/.exec(v);
  if (!m) return null;
  const a = m[1] === "" ? 0 : Number(m[1]);
  const b = m[2] === void 0 ? a : m[2] === "" ? 65535 : Number(m[2]);
  if (a > 65535 || b > 65535 || m[1] === "" && m[2] === void 0) return null;
  return [a, b];
}
function formatRange(r) {
  return r[0] === r[1] ? String(r[0]) : `${r[0]}:${r[1]}`;
}
var TCP_FLAGS = [
  ["FIN", 1],
  ["SYN", 2],
  ["RST", 4],
  ["PSH", 8],
  ["ACK", 16],
  ["URG", 32]
];
function parseTcpFlags(v) {
  let out2 = 0;
  for (const f of v.toUpperCase().split(",")) {
    if (f === "ALL") out2 |= 63;
    else if (f === "NONE") continue;
    else {
      const e = TCP_FLAGS.find(([n]) => n === f);
      if (!e) return null;
      out2 |= e[1];
    }
  }
  return out2;
}
function formatTcpFlags(v) {
  const names = TCP_FLAGS.filter(([, bit]) => (v & bit) !== 0).map(([n]) => n);
  return names.length === 0 ? "NONE" : names.join(",");
}
function portMatch(name, opts) {
  const out2 = [];
  const port = (o, flag) => {
    if (!o) return;
    const v = o.values[0] ?? "";
    const r = portRange(v);
    if (!r) return emit(out2, o, flag, v);
    if (r[0] === 0 && r[1] === 65535) return;
    emit(out2, o, flag, formatRange(r));
  };
  port(last(opts, "--sport", "--source-port"), "--sport");
  port(last(opts, "--dport", "--destination-port"), "--dport");
  if (name === "tcp") {
    const option = last(opts, "--tcp-option");
    if (option) emit(out2, option, "--tcp-option", String(Number(option.values[0])));
    const syn = last(opts, "--syn", "--tcp-flags");
    if (syn) {
      if (syn.name === "--syn") emit(out2, syn, "--tcp-flags", "FIN,SYN,RST,ACK", "SYN");
      else {
        const mask = parseTcpFlags(syn.values[0] ?? "");
        const comp = parseTcpFlags(syn.values[1] ?? "");
        if (mask === null || comp === null) emit(out2, syn, "--tcp-flags", ...syn.values);
        else emit(out2, syn, "--tcp-flags", formatTcpFlags(mask), formatTcpFlags(comp));
      }
    }
  }
  const known = /* @__PURE__ */ new Set(["--sport", "--source-port", "--dport", "--destination-port", "--tcp-option", "--syn", "--tcp-flags"]);
  for (const o of opts) if (!known.has(o.name)) emit(out2, o, o.name, ...o.values);
  return out2;
}
function sctpMatch(opts) {
  const out2 = [];
  for (const [names, flag] of [
    [["--sport", "--source-port"], "--sport"],
    [["--dport", "--destination-port"], "--dport"]
  ]) {
    const o = last(opts, ...names);
    if (!o) continue;
    const v = o.values[0] ?? "";
    const r = portRange(v);
    emit(out2, o, flag, r ? formatRange(r) : v);
  }
  for (const o of opts) if (!["--sport", "--source-port", "--dport", "--destination-port"].includes(o.name)) emit(out2, o, o.name, ...o.values);
  return out2;
}
function multiportMatch(opts) {
  const out2 = [];
  for (const o of opts) {
    const flag = o.name === "--source-ports" ? "--sports" : o.name === "--destination-ports" ? "--dports" : o.name;
    const list = (o.values[0] ?? "").split(",").map((p) => {
      const r = portRange(p);
      return r ? formatRange(r) : p;
    });
    emit(out2, o, flag, list.join(","));
  }
  return out2;
}
var TWO31 = 2147483648;
function savedProbability(text2) {
  if (!/^\s*[+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(text2)) return null;
  const p = Number(text2);
  if (!(p >= 0 && p <= 1)) return null;
  const k = BigInt(Math.round(p * TWO31));
  const scaled = k * 100000000000n;
  let q = scaled / BigInt(TWO31);
  const r = scaled % BigInt(TWO31);
  const twice = 2n * r;
  if (twice > BigInt(TWO31) || twice === BigInt(TWO31) && q % 2n === 1n) q += 1n;
  const s = q.toString().padStart(12, "0");
  return `${s.slice(0, -11)}.${s.slice(-11)}`;
}
function statisticMatch(opts) {
  const out2 = [];
  const mode = last(opts, "--mode");
  const modeValue = mode?.values[0];
  if (modeValue === "random") {
    out2.push("--mode", "random");
    const p = last(opts, "--probability");
    if (p) emit(out2, p, "--probability", savedProbability(p.values[0] ?? "") ?? (p.values[0] ?? ""));
    return out2;
  }
  if (modeValue === "nth") {
    out2.push("--mode", "nth");
    const every = last(opts, "--every");
    if (every) emit(out2, every, "--every", String(Number(every.values[0])));
    const packet = last(opts, "--packet");
    out2.push("--packet", packet ? String(Number(packet.values[0])) : "0");
    return out2;
  }
  return opts.flatMap((o) => [...o.neg ? ["!"] : [], o.name, ...o.values]);
}
function recentMatch(opts, family) {
  const out2 = [];
  const has = (n) => last(opts, n);
  const commands = ["--set", "--rcheck", "--update", "--remove"].map(has).filter((o) => o !== void 0);
  if (commands.some((c) => c.neg)) out2.push("!");
  for (const c of ["--set", "--rcheck", "--update", "--remove"]) if (has(c)) out2.push(c);
  const seconds = has("--seconds");
  if (seconds && Number(seconds.values[0]) !== 0) out2.push("--seconds", String(Number(seconds.values[0])));
  if (has("--reap")) out2.push("--reap");
  const hit = has("--hitcount");
  if (hit && Number(hit.values[0]) !== 0) out2.push("--hitcount", String(Number(hit.values[0])));
  if (has("--rttl")) out2.push("--rttl");
  out2.push("--name", has("--name")?.values[0] ?? "DEFAULT");
  const mask = has("--mask")?.values[0];
  const canonMask = mask === void 0 ? null : canonicalHost(mask, family);
  out2.push(
    "--mask",
    mask === void 0 ? family === "ipv4" ? "255.255.255.255" : "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff" : canonMask ?? mask
  );
  const side = last(opts, "--rsource", "--rdest");
  out2.push(side?.name === "--rdest" ? "--rdest" : "--rsource");
  return out2;
}
function parseUint32(s) {
  let v;
  if (/^0[xX][0-9a-fA-F]+$/.test(s)) v = parseInt(s.slice(2), 16);
  else if (/^0[0-7]*$/.test(s)) v = parseInt(s, 8);
  else if (/^[1-9]\d*$/.test(s)) v = parseInt(s, 10);
  else return null;
  return v <= 4294967295 ? v : null;
}
function hex(v) {
  return "0x" + (v >>> 0).toString(16);
}
function parseMarkMask(v) {
  const [a, b] = v.split("/");
  const mark = parseUint32(a ?? "");
  const mask = b === void 0 ? 4294967295 : parseUint32(b);
  return mark === null || mask === null ? null : [mark, mask];
}
function markMatch(opts) {
  const out2 = [];
  const o = last(opts, "--mark");
  if (!o) return [];
  const mm = parseMarkMask(o.values[0] ?? "");
  if (!mm) emit(out2, o, "--mark", ...o.values);
  else emit(out2, o, "--mark", mm[1] === 4294967295 ? hex(mm[0]) : `${hex(mm[0])}/${hex(mm[1])}`);
  return out2;
}
function markTarget(opts) {
  const o = last(opts, "--set-xmark", "--set-mark", "--and-mark", "--or-mark", "--xor-mark");
  if (!o) return opts.flatMap((x) => [x.name, ...x.values]);
  const v = o.values[0] ?? "";
  let mark;
  let mask;
  if (o.name === "--set-xmark" || o.name === "--set-mark") {
    const mm = parseMarkMask(v);
    if (!mm) return [o.name, v];
    mark = mm[0];
    mask = o.name === "--set-mark" ? (mm[0] | mm[1]) >>> 0 : mm[1];
  } else {
    const x = parseUint32(v);
    if (x === null) return [o.name, v];
    if (o.name === "--and-mark") [mark, mask] = [0, ~x >>> 0];
    else if (o.name === "--or-mark") [mark, mask] = [x, x];
    else [mark, mask] = [x, 0];
  }
  return ["--set-xmark", `${hex(mark)}/${hex(mask)}`];
}
var CT_STATES = ["INVALID", "NEW", "RELATED", "ESTABLISHED", "UNTRACKED", "SNAT", "DNAT"];
var CT_STATUSES = ["NONE", "EXPECTED", "SEEN_REPLY", "ASSURED", "CONFIRMED"];
function orderedList(v, order) {
  const given = v.split(",").map((s) => s.toUpperCase());
  if (given.some((s) => !order.includes(s))) return v;
  return order.filter((s) => given.includes(s)).join(",");
}
var CONNTRACK_ORDER = [
  "--ctstate",
  "--ctproto",
  "--ctorigsrc",
  "--ctorigdst",
  "--ctreplsrc",
  "--ctrepldst",
  "--ctorigsrcport",
  "--ctorigdstport",
  "--ctreplsrcport",
  "--ctrepldstport",
  "--ctstatus",
  "--ctexpire",
  "--ctdir"
];
function conntrackMatch(opts) {
  const out2 = [];
  for (const name of CONNTRACK_ORDER) {
    const o = last(opts, name);
    if (!o) continue;
    const v = o.values[0] ?? "";
    if (name === "--ctstate") emit(out2, o, name, orderedList(v, CT_STATES));
    else if (name === "--ctstatus") emit(out2, o, name, orderedList(v, CT_STATUSES));
    else if (name === "--ctproto") emit(out2, o, name, String(PROTOCOL_NUMBERS[protocolName(v)] ?? v));
    else emit(out2, o, name, ...o.values);
  }
  for (const o of opts) if (!CONNTRACK_ORDER.includes(o.name)) emit(out2, o, o.name, ...o.values);
  return out2;
}
function stateMatch(opts) {
  const out2 = [];
  const o = last(opts, "--state");
  if (o) emit(out2, o, "--state", orderedList(o.values[0] ?? "", CT_STATES.slice(0, 5)));
  return out2;
}
var ADDR_TYPES = [
  "UNSPEC",
  "UNICAST",
  "LOCAL",
  "BROADCAST",
  "ANYCAST",
  "MULTICAST",
  "BLACKHOLE",
  "UNREACHABLE",
  "PROHIBIT",
  "THROW",
  "NAT",
  "XRESOLVE"
];
function addrtypeMatch(opts) {
  const out2 = [];
  const src = last(opts, "--src-type");
  if (src) emit(out2, src, "--src-type", orderedList(src.values[0] ?? "", ADDR_TYPES));
  const dst = last(opts, "--dst-type");
  if (dst) emit(out2, dst, "--dst-type", orderedList(dst.values[0] ?? "", ADDR_TYPES));
  if (last(opts, "--limit-iface-in")) out2.push("--limit-iface-in");
  if (last(opts, "--limit-iface-out")) out2.push("--limit-iface-out");
  return out2;
}
var REJECT4 = {
  "icmp-net-unreachable": "icmp-net-unreachable",
  "net-unreach": "icmp-net-unreachable",
  "icmp-host-unreachable": "icmp-host-unreachable",
  "host-unreach": "icmp-host-unreachable",
  "icmp-proto-unreachable": "icmp-proto-unreachable",
  "proto-unreach": "icmp-proto-unreachable",
  "icmp-port-unreachable": "icmp-port-unreachable",
  "port-unreach": "icmp-port-unreachable",
  "icmp-net-prohibited": "icmp-net-prohibited",
  "net-prohib": "icmp-net-prohibited",
  "icmp-host-prohibited": "icmp-host-prohibited",
  "host-prohib": "icmp-host-prohibited",
  "tcp-reset": "tcp-reset",
  "tcp-rst": "tcp-reset",
  "icmp-admin-prohibited": "icmp-admin-prohibited",
  "admin-prohib": "icmp-admin-prohibited"
};
var REJECT6 = {
  "icmp6-no-route": "icmp6-no-route",
  "no-route": "icmp6-no-route",
  "icmp6-adm-prohibited": "icmp6-adm-prohibited",
  "adm-prohibited": "icmp6-adm-prohibited",
  "icmp6-addr-unreachable": "icmp6-addr-unreachable",
  "addr-unreach": "icmp6-addr-unreachable",
  "icmp6-port-unreachable": "icmp6-port-unreachable",
  "port-unreach": "icmp6-port-unreachable",
  "tcp-reset": "tcp-reset",
  "icmp6-policy-fail": "icmp6-policy-fail",
  "policy-fail": "icmp6-policy-fail",
  "icmp6-reject-route": "icmp6-reject-route",
  "reject-route": "icmp6-reject-route"
};
function rejectTarget(opts, family) {
  const o = last(opts, "--reject-with");
  const table = family === "ipv4" ? REJECT4 : REJECT6;
  const v = o?.values[0];
  if (v === void 0) return ["--reject-with", family === "ipv4" ? "icmp-port-unreachable" : "icmp6-port-unreachable"];
  return ["--reject-with", table[v] ?? v];
}
function natRange(v, family) {
  let addrPart = v;
  let portPart = null;
  if (family === "ipv6") {
    const m = /^\[([^\]]*)\](?::(.*))?$/.exec(v);
    if (m) {
      addrPart = m[1] ?? "";
      portPart = m[2] ?? null;
    }
  } else {
    const c = v.indexOf(":");
    if (c !== -1) {
      addrPart = v.slice(0, c);
      portPart = v.slice(c + 1);
    }
  }
  const addrs = addrPart === "" ? [] : addrPart.split("-").map((a) => canonicalHost(a, family) ?? a);
  let addrText = addrs.length === 2 && addrs[0] === addrs[1] ? addrs[0] : addrs.join("-");
  if (portPart !== null) {
    const ports = portPart.split("-");
    const portText = ports.length === 2 && ports[0] === ports[1] ? ports[0] : ports.join("-");
    if (family === "ipv6" && addrText !== "") addrText = `[${addrText}]`;
    return `${addrText}:${portText}`;
  }
  return addrText;
}
function natTarget(opts, rangeOpt, family) {
  const out2 = [];
  for (const o of opts) if (o.name === rangeOpt) out2.push(rangeOpt, natRange(o.values[0] ?? "", family));
  for (const f of ["--random", "--random-fully", "--persistent"]) if (last(opts, f)) out2.push(f);
  for (const o of opts) if (![rangeOpt, "--random", "--random-fully", "--persistent"].includes(o.name)) out2.push(o.name, ...o.values);
  return out2;
}
function masqueradeTarget(opts) {
  const out2 = [];
  const ports = last(opts, "--to-ports");
  if (ports) {
    const p = (ports.values[0] ?? "").split("-");
    out2.push("--to-ports", p.length === 2 && p[0] === p[1] ? p[0] : p.join("-"));
  }
  if (last(opts, "--random")) out2.push("--random");
  if (last(opts, "--random-fully")) out2.push("--random-fully");
  return out2;
}
var LOG_LEVELS = {
  emerg: 0,
  alert: 1,
  crit: 2,
  error: 3,
  err: 3,
  warning: 4,
  warn: 4,
  notice: 5,
  info: 6,
  debug: 7
};
function logTarget(opts) {
  const out2 = [];
  const prefix = last(opts, "--log-prefix");
  if (prefix && (prefix.values[0] ?? "") !== "") out2.push("--log-prefix", prefix.values[0]);
  const level = last(opts, "--log-level");
  if (level) {
    const v = level.values[0] ?? "";
    const n = /^\d+$/.test(v) ? Number(v) : LOG_LEVELS[v.toLowerCase()];
    if (n === void 0) out2.push("--log-level", v);
    else if (n !== 4) out2.push("--log-level", String(n));
  }
  for (const f of ["--log-tcp-sequence", "--log-tcp-options", "--log-ip-options", "--log-uid", "--log-macdecode"]) {
    if (last(opts, f)) out2.push(f);
  }
  return out2;
}

// src/core/iptables/canonical-cache.ts
var SLOT_OPTIONS = /* @__PURE__ */ new Map([
  ["-s", 0 /* Address */],
  ["-d", 0 /* Address */],
  ["--dport", 1 /* Port */],
  ["--sport", 1 /* Port */],
  ["--comment", 2 /* Comment */],
  ["--probability", 3 /* Probability */],
  ["--to-destination", 4 /* NatDestination */],
  ["--name", 5 /* Name */],
  ["-j", 5 /* Name */],
  ["-g", 5 /* Name */]
]);
var SLOT_KEYS = ["\0addr", "\0port", "\0comment", "\0prob", "\0nat", "\0name"];
var STRING_OPTIONS2 = /* @__PURE__ */ new Set(["--comment", "--nfacct-name", "--log-prefix", "--nflog-prefix", "--helper"]);
var MAX_SHAPES = 4096;
function isCanonicalIPv4(v, from, to) {
  let parts = 0;
  let i2 = from;
  for (; ; ) {
    const start = i2;
    let n = 0;
    while (i2 < to) {
      const c = v.charCodeAt(i2);
      if (c < 48 || c > 57) break;
      n = n * 10 + (c - 48);
      i2++;
    }
    const len = i2 - start;
    if (len === 0 || len > 3 || n > 255 || len > 1 && v.charCodeAt(start) === 48) return false;
    parts++;
    if (i2 === to) return parts === 4;
    if (parts === 4 || v.charCodeAt(i2) !== 46) return false;
    i2++;
  }
}
function isPlainPort(v, from, to) {
  const len = to - from;
  if (len < 1 || len > 5 || v.charCodeAt(from) === 48) return false;
  let n = 0;
  for (let i2 = from; i2 < to; i2++) {
    const c = v.charCodeAt(i2);
    if (c < 48 || c > 57) return false;
    n = n * 10 + (c - 48);
  }
  return n <= 65535;
}
function isKubeName(v) {
  if (!v.startsWith("KUBE-")) return false;
  for (let i2 = 5; i2 < v.length; i2++) {
    const c = v.charCodeAt(i2);
    if (!(c >= 65 && c <= 90 || c >= 97 && c <= 122 || c >= 48 && c <= 57 || c === 45 || c === 95)) return false;
  }
  return true;
}
function isBareValue(v) {
  if (v.length === 0) return false;
  for (let i2 = 0; i2 < v.length; i2++) {
    const c = v.charCodeAt(i2);
    if (!(c >= 48 && c <= 58 || c >= 65 && c <= 93 && c !== 92 || c >= 97 && c <= 122 || c === 46 || c === 47)) return false;
  }
  return true;
}
var CanonicalRuleCache = class {
  #family;
  #root = { next: void 0, plan: void 0 };
  #shapes = 0;
  #unplanned = 0;
  /** Scratch: transformed slot values and their kinds for the rule being formatted. */
  #vals = [];
  #kinds = [];
  #buf = [];
  #addressMemo = /* @__PURE__ */ new Map();
  #probabilityMemo = /* @__PURE__ */ new Map();
  #lastQuoted = "";
  #lastQuotedOut = '""';
  constructor(family) {
    this.#family = family;
  }
  /** Shapes seen so far, and how many of them have no plan (always canonicalised directly). */
  get stats() {
    return { shapes: this.#shapes, unplanned: this.#unplanned };
  }
  /** Exactly formatRuleTokens(canonicalizeRule(args, family)); throws what canonicalizeRule throws. */
  format(args) {
    const vals = this.#vals;
    const kinds = this.#kinds;
    let nslots = 0;
    let node = this.#root;
    const growing = this.#shapes < MAX_SHAPES;
    const n = args.length;
    for (let i2 = 0; i2 < n; i2++) {
      const t = args[i2];
      let key = t;
      const kind = SLOT_OPTIONS.get(t);
      if (kind !== void 0 && i2 + 1 < n) {
        node = this.#child(node, t, growing);
        if (node === void 0) return this.#direct(args);
        const v = args[i2 + 1];
        const c = this.#transform(kind, v);
        if (c !== null) {
          vals[nslots] = c;
          kinds[nslots] = kind;
          nslots++;
          key = SLOT_KEYS[kind];
        } else {
          if (v.charCodeAt(0) === 0) return this.#direct(args);
          key = v;
        }
        i2++;
      }
      if (key === t && t.charCodeAt(0) === 0) return this.#direct(args);
      const next = this.#child(node, key, growing);
      if (next === void 0) return this.#direct(args);
      node = next;
    }
    let plan = node.plan;
    if (plan === void 0) {
      plan = node.plan = this.#derive(args);
      this.#shapes++;
      if (plan === null) this.#unplanned++;
      if (plan === null && process.env.DBG) console.error("UNPLANNED", this.#family, args.join(" "));
    }
    if (plan === null) return this.#direct(args);
    return this.#apply(plan, vals);
  }
  #direct(args) {
    return formatRuleTokens(canonicalizeRule(args, this.#family));
  }
  // Returns undefined (as Node) only when the shape is unknown and no more shapes may be added.
  #child(node, key, grow) {
    let next = node.next;
    if (next === void 0) {
      if (!grow) return void 0;
      next = node.next = /* @__PURE__ */ new Map();
    }
    let child = next.get(key);
    if (child === void 0) {
      if (!grow) return void 0;
      child = { next: void 0, plan: void 0 };
      next.set(key, child);
    }
    return child;
  }
  /** A slot value in its canonical form, or null when it is kept as a literal of the shape. */
  #transform(kind, v) {
    switch (kind) {
      case 0 /* Address */: {
        if (this.#family === "ipv4") {
          if (isCanonicalIPv4(v, 0, v.length)) return v + "/32";
        } else if (!v.includes("/")) {
          const h = canonicalHost(v, "ipv6");
          return h !== null && isBareValue(h) ? h + "/128" : null;
        }
        let c = this.#addressMemo.get(v);
        if (c === void 0) {
          c = null;
          if (!v.includes(",")) {
            const a = canonicalAddress(v, this.#family);
            if (a !== null && !a.any && isBareValue(a.text)) c = a.text;
          }
          if (v.includes("/") || c === null) this.#addressMemo.set(v, c);
        }
        return c;
      }
      case 1 /* Port */:
        return isPlainPort(v, 0, v.length) ? v : null;
      case 2 /* Comment */:
        return v;
      case 3 /* Probability */: {
        let c = this.#probabilityMemo.get(v);
        if (c === void 0) {
          const p = /^[0-9]*\.?[0-9]+$/.test(v) ? savedProbability(v) : null;
          c = p !== null && isBareValue(p) ? p : null;
          this.#probabilityMemo.set(v, c);
        }
        return c;
      }
      case 4 /* NatDestination */:
        return this.#natDestination(v);
      case 5 /* Name */:
        return isKubeName(v) ? v : null;
    }
  }
  /** `ip:port` (IPv4) or `[ip]:port` (IPv6) with a plain port, the address in canonical form. */
  #natDestination(v) {
    if (this.#family === "ipv4") {
      const colon = v.indexOf(":");
      if (colon < 0 || !isCanonicalIPv4(v, 0, colon) || !isPlainPort(v, colon + 1, v.length)) return null;
      return v;
    }
    if (v.charCodeAt(0) !== 91) return null;
    const close = v.indexOf("]:");
    if (close < 0 || !isPlainPort(v, close + 2, v.length)) return null;
    const addr = v.slice(1, close);
    if (addr.includes("-")) return null;
    const host = canonicalHost(addr, "ipv6");
    if (host === null || !isBareValue(host)) return null;
    return host === addr ? v : `[${host}]${v.slice(close + 1)}`;
  }
  #apply(plan, vals) {
    const lits = plan.lits;
    const m = plan.slots.length;
    if (m === 0) return lits[0];
    const buf = this.#buf;
    buf.length = 0;
    buf.push(lits[0]);
    for (let k = 0; k < m; k++) {
      const v = vals[plan.slots[k]];
      buf.push(plan.quoted[k] ? this.#quote(v) : v, lits[k + 1]);
    }
    return buf.join("");
  }
  #quote(v) {
    if (v !== this.#lastQuoted) {
      this.#lastQuoted = v;
      this.#lastQuotedOut = quoteArg(v);
    }
    return this.#lastQuotedOut;
  }
  /**
   * The plan for the shape of `args`, or null when none can be derived safely. Slot positions are those of the
   * walk in format(): an option in SLOT_OPTIONS followed by a value its transform covers.
   */
  #derive(args) {
    const positions = [];
    const kinds = [];
    for (let i2 = 0; i2 + 1 < args.length; i2++) {
      const kind = SLOT_OPTIONS.get(args[i2]);
      if (kind === void 0) continue;
      if (this.#transform(kind, args[i2 + 1]) !== null) {
        positions.push(i2 + 1);
        kinds.push(kind);
      }
      i2++;
    }
    const a = this.#planFor(args, positions, kinds, 1);
    if (!a) return null;
    const b = this.#planFor(args, positions, kinds, 2);
    if (!b || !samePlan(a.plan, b.plan)) return null;
    const realVals = positions.map((p, k) => this.#transform(kinds[k], args[p]));
    let expected;
    try {
      expected = this.#direct(args);
    } catch {
      return null;
    }
    return this.#apply(a.plan, realVals) === expected ? a.plan : null;
  }
  /** Canonicalises the shape with sentinel set `set` in the slots and reads the plan off the output. */
  #planFor(args, positions, kinds, set) {
    const tokens = [...args];
    const canon = [];
    for (let k = 0; k < positions.length; k++) {
      const raw = this.#sentinel(kinds[k], k, set);
      const c = this.#transform(kinds[k], raw);
      if (c === null) return null;
      tokens[positions[k]] = raw;
      canon.push(c);
    }
    let out2;
    let text2;
    try {
      out2 = canonicalizeRule(tokens, this.#family);
      text2 = formatRuleTokens(out2);
    } catch {
      return null;
    }
    const slotAt = new Array(out2.length).fill(-1);
    for (let k = 0; k < canon.length; k++) {
      let found = -1;
      for (let j = 0; j < out2.length; j++) {
        if (out2[j] !== canon[k]) continue;
        if (found !== -1 || slotAt[j] !== -1) return null;
        found = j;
      }
      if (found === -1) return null;
      slotAt[found] = k;
    }
    for (let j = 0; j < out2.length; j++) if (slotAt[j] === -1 && canon.includes(out2[j])) return null;
    const lits = [];
    const slots = [];
    const quoted = [];
    let lit = "";
    const n = out2.length;
    for (let j = 0; j < n; j++) {
      const t = out2[j];
      if (j > 0) lit += " ";
      if (slotAt[j] !== -1) {
        if (kinds[slotAt[j]] === 2 /* Comment */) return null;
        lits.push(lit);
        slots.push(slotAt[j]);
        quoted.push(false);
        lit = "";
        continue;
      }
      if (STRING_OPTIONS2.has(t) && j + 1 < n) {
        lit += t + (t === "--nfacct-name" ? "  " : " ");
        j++;
        if (slotAt[j] !== -1) {
          lits.push(lit);
          slots.push(slotAt[j]);
          quoted.push(true);
          lit = "";
        } else lit += quoteArg(out2[j]);
        continue;
      }
      lit += formatRuleTokens([t]);
    }
    lits.push(lit);
    const plan = { lits, slots, quoted };
    if (this.#apply(plan, canon) !== text2) return null;
    return { plan };
  }
  /** Sentinel raw values: valid for the slot's transform, distinct per slot and per set, unlike real tokens. */
  #sentinel(kind, k, set) {
    const id = set * 64 + k + 1;
    switch (kind) {
      case 0 /* Address */:
        return this.#family === "ipv4" ? `198.51.${100 + set}.${k + 1}` : `2001:db8:${set}::${(k + 1).toString(16)}`;
      case 1 /* Port */:
        return String(61e3 + id);
      case 2 /* Comment */:
        return `sentinel ${id} "quoted" \\ 'x'`;
      case 3 /* Probability */:
        return `0.${String(id).padStart(4, "0")}123`;
      case 4 /* NatDestination */:
        return this.#family === "ipv4" ? `198.51.${100 + set}.${k + 1}:${61e3 + id}` : `[2001:db8:${set}::${(k + 1).toString(16)}]:${61e3 + id}`;
      case 5 /* Name */:
        return `KUBE-SENTINEL-${id}`;
    }
  }
};
function samePlan(a, b) {
  if (a.lits.length !== b.lits.length) return false;
  for (let i2 = 0; i2 < a.lits.length; i2++) if (a.lits[i2] !== b.lits[i2]) return false;
  for (let i2 = 0; i2 < a.slots.length; i2++) if (a.slots[i2] !== b.slots[i2] || a.quoted[i2] !== b.quoted[i2]) return false;
  return true;
}

// src/core/proxier/iptables/builtin.ts
var NEW = ["-m", "conntrack", "--ctstate", "NEW"];
function jump(table, chain, target, comment, extra = []) {
  return { table, chain, target, op: "-I", args: [...extra, ...comment ? ["-m", "comment", "--comment", comment] : [], "-j", target] };
}
function builtinJumps(_options) {
  return [
    jump("filter", "INPUT", "KUBE-EXTERNAL-SERVICES", "kubernetes externally-visible service portals", NEW),
    jump("filter", "FORWARD", "KUBE-EXTERNAL-SERVICES", "kubernetes externally-visible service portals", NEW),
    jump("filter", "INPUT", "KUBE-NODEPORTS", "kubernetes health check service ports"),
    jump("filter", "FORWARD", "KUBE-SERVICES", "kubernetes service portals", NEW),
    jump("filter", "OUTPUT", "KUBE-SERVICES", "kubernetes service portals", NEW),
    jump("filter", "FORWARD", "KUBE-FORWARD", "kubernetes forwarding rules"),
    jump("filter", "INPUT", "KUBE-PROXY-FIREWALL", "kubernetes load balancer firewall", NEW),
    jump("filter", "OUTPUT", "KUBE-PROXY-FIREWALL", "kubernetes load balancer firewall", NEW),
    jump("filter", "FORWARD", "KUBE-PROXY-FIREWALL", "kubernetes load balancer firewall", NEW),
    jump("nat", "OUTPUT", "KUBE-SERVICES", "kubernetes service portals"),
    jump("nat", "PREROUTING", "KUBE-SERVICES", "kubernetes service portals"),
    jump("nat", "POSTROUTING", "KUBE-POSTROUTING", "kubernetes postrouting rules"),
    // Duplicates of kubelet's jumps (pkg/kubelet/kubelet_network_linux.go).
    jump("filter", "INPUT", "KUBE-FIREWALL", ""),
    jump("filter", "OUTPUT", "KUBE-FIREWALL", "")
  ];
}
function ensuredChains(_options) {
  const out2 = [];
  const seen = /* @__PURE__ */ new Set();
  for (const j of builtinJumps()) {
    const k = `${j.table}/${j.target}`;
    if (!seen.has(k)) {
      seen.add(k);
      out2.push({ table: j.table, chain: j.target });
    }
  }
  for (const table of ["mangle", "nat", "filter"]) out2.push({ table, chain: "KUBE-PROXY-CANARY" });
  return out2;
}
function builtinJumpsInChainOrder(jumps = builtinJumps()) {
  return [...jumps].reverse();
}

// src/core/proxier/iptables/save.ts
var BUILTIN_CHAINS2 = {
  filter: ["INPUT", "FORWARD", "OUTPUT"],
  nat: ["PREROUTING", "INPUT", "OUTPUT", "POSTROUTING"],
  mangle: ["PREROUTING", "INPUT", "FORWARD", "OUTPUT", "POSTROUTING"]
};
function savedState(ruleset, jumps = builtinJumps()) {
  const canonical = new CanonicalRuleCache(ruleset.family);
  const out2 = /* @__PURE__ */ new Map();
  for (const tableName of ["filter", "nat", "mangle"]) {
    const userChains = /* @__PURE__ */ new Set();
    const rules = /* @__PURE__ */ new Map();
    if (tableName !== "mangle") {
      const table = rulesetTable(ruleset, tableName);
      const deleted = new Set(table.deletedChains);
      for (const c of table.chains) if (!deleted.has(c)) userChains.add(c);
      let chain;
      let list = [];
      for (const r of table.rules) {
        if (r.chain !== chain) {
          chain = r.chain;
          let l = rules.get(chain);
          if (!l) rules.set(chain, l = []);
          list = l;
        }
        list.push(canonical.format(r.args));
      }
    }
    for (const e of ensuredChains()) if (e.table === tableName) userChains.add(e.chain);
    const builtinRules = /* @__PURE__ */ new Map();
    for (const j of builtinJumpsInChainOrder(jumps)) {
      if (j.table !== tableName) continue;
      userChains.add(j.target);
      let list = builtinRules.get(j.chain);
      if (!list) builtinRules.set(j.chain, list = []);
      list.push(canonical.format(j.args));
    }
    const saved = /* @__PURE__ */ new Map();
    for (const c of BUILTIN_CHAINS2[tableName]) saved.set(c, builtinRules.get(c) ?? []);
    for (const c of [...userChains].sort()) saved.set(c, rules.get(c) ?? []);
    out2.set(tableName, saved);
  }
  return out2;
}
function serializeSave(ruleset, jumps = builtinJumps()) {
  const parts = [];
  for (const [tableName, table] of savedState(ruleset, jumps)) {
    parts.push(`*${tableName}
`);
    const builtins = new Set(BUILTIN_CHAINS2[tableName]);
    for (const chain of table.keys()) parts.push(builtins.has(chain) ? `:${chain} ACCEPT [0:0]
` : `:${chain} - [0:0]
`);
    for (const [chain, rules] of table) for (const r of rules) parts.push(`-A ${chain} ${r}
`);
    parts.push("COMMIT\n");
  }
  return parts.join("");
}

// src/core/proxier/objects.ts
import { LineCounter, parseAllDocuments } from "yaml";
var ObjectsParseError = class extends ParseError {
  source;
  constructor(source, detail, line) {
    super(detail, line);
    this.source = source;
  }
};
function isObj(v) {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}
function parseDocuments(name, text2) {
  const trimmed = text2.trimStart();
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
    try {
      return [{ value: JSON.parse(text2) }];
    } catch {
    }
  }
  const lineCounter = new LineCounter();
  const docs = parseAllDocuments(text2, { lineCounter });
  const out2 = [];
  for (const doc of Array.isArray(docs) ? docs : [docs]) {
    const err = doc.errors[0];
    if (err) {
      const line2 = lineCounter.linePos(err.pos[0]).line;
      throw new ObjectsParseError(name, `not valid JSON or YAML: ${err.message.split("\n")[0]}`, line2);
    }
    const value = doc.toJS({ maxAliasCount: 1e4 });
    if (value === null || value === void 0) continue;
    const line = doc.contents?.range ? lineCounter.linePos(doc.contents.range[0]).line : void 0;
    out2.push(line === void 0 ? { value } : { value, line });
  }
  return out2;
}
var Checker = class {
  constructor(source, what2, line) {
    this.source = source;
    this.what = what2;
    this.line = line;
  }
  source;
  what;
  line;
  fail(path, detail) {
    throw new ObjectsParseError(this.source, `${this.what}: ${path}: ${detail}`, this.line);
  }
  optString(o, key, path) {
    const v = o[key];
    if (v !== void 0 && v !== null && typeof v !== "string") this.fail(path, `expected a string, got ${JSON.stringify(v)}`);
  }
  optInt(o, key, path, min = 0, max = 65535) {
    const v = o[key];
    if (v === void 0 || v === null) return;
    if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max) this.fail(path, `expected an integer in [${min}, ${max}], got ${JSON.stringify(v)}`);
  }
  optBool(o, key, path) {
    const v = o[key];
    if (v !== void 0 && v !== null && typeof v !== "boolean") this.fail(path, `expected true or false, got ${JSON.stringify(v)}`);
  }
  optStringList(o, key, path) {
    const v = o[key];
    if (v === void 0 || v === null) return;
    if (!Array.isArray(v) || v.some((x) => typeof x !== "string")) this.fail(path, `expected a list of strings, got ${JSON.stringify(v)}`);
  }
  optList(o, key, path) {
    const v = o[key];
    if (v === void 0 || v === null) return [];
    if (!Array.isArray(v)) this.fail(path, `expected a list, got ${JSON.stringify(v)}`);
    return v.map((x, i2) => {
      if (!isObj(x)) this.fail(`${path}[${i2}]`, `expected an object, got ${JSON.stringify(x)}`);
      return x;
    });
  }
  optObj(o, key, path) {
    const v = o[key];
    if (v === void 0 || v === null) return void 0;
    if (!isObj(v)) this.fail(path, `expected an object, got ${JSON.stringify(v)}`);
    return v;
  }
  optEnum(o, key, path, values) {
    const v = o[key];
    if (v === void 0 || v === null) return;
    if (typeof v !== "string" || !values.includes(v)) this.fail(path, `expected one of ${values.join(", ")}, got ${JSON.stringify(v)}`);
  }
};
var PROTOCOLS = ["TCP", "UDP", "SCTP"];
function checkService(c, o) {
  const spec = c.optObj(o, "spec", "spec");
  if (!spec) c.fail("spec", "missing");
  c.optEnum(spec, "type", "spec.type", ["ClusterIP", "NodePort", "LoadBalancer", "ExternalName"]);
  c.optString(spec, "clusterIP", "spec.clusterIP");
  c.optStringList(spec, "clusterIPs", "spec.clusterIPs");
  c.optStringList(spec, "ipFamilies", "spec.ipFamilies");
  c.optStringList(spec, "externalIPs", "spec.externalIPs");
  c.optStringList(spec, "loadBalancerSourceRanges", "spec.loadBalancerSourceRanges");
  c.optEnum(spec, "externalTrafficPolicy", "spec.externalTrafficPolicy", ["Cluster", "Local"]);
  c.optEnum(spec, "internalTrafficPolicy", "spec.internalTrafficPolicy", ["Cluster", "Local"]);
  c.optEnum(spec, "sessionAffinity", "spec.sessionAffinity", ["None", "ClientIP"]);
  c.optInt(spec, "healthCheckNodePort", "spec.healthCheckNodePort");
  const sac = c.optObj(spec, "sessionAffinityConfig", "spec.sessionAffinityConfig");
  const cip = sac ? c.optObj(sac, "clientIP", "spec.sessionAffinityConfig.clientIP") : void 0;
  if (cip) c.optInt(cip, "timeoutSeconds", "spec.sessionAffinityConfig.clientIP.timeoutSeconds", 0, 86400);
  c.optList(spec, "ports", "spec.ports").forEach((p, i2) => {
    const path = `spec.ports[${i2}]`;
    c.optString(p, "name", `${path}.name`);
    c.optEnum(p, "protocol", `${path}.protocol`, PROTOCOLS);
    if (typeof p.port !== "number") c.fail(`${path}.port`, `expected a port number, got ${JSON.stringify(p.port)}`);
    c.optInt(p, "port", `${path}.port`, 1);
    c.optInt(p, "nodePort", `${path}.nodePort`);
  });
  const status = c.optObj(o, "status", "status");
  const lb = status ? c.optObj(status, "loadBalancer", "status.loadBalancer") : void 0;
  if (lb) {
    c.optList(lb, "ingress", "status.loadBalancer.ingress").forEach((ing, i2) => {
      c.optString(ing, "ip", `status.loadBalancer.ingress[${i2}].ip`);
      c.optEnum(ing, "ipMode", `status.loadBalancer.ingress[${i2}].ipMode`, ["VIP", "Proxy"]);
    });
  }
}
function checkEndpointSlice(c, o) {
  c.optEnum(o, "addressType", "addressType", ["IPv4", "IPv6", "FQDN"]);
  if (o.addressType === void 0) c.fail("addressType", "missing");
  c.optList(o, "ports", "ports").forEach((p, i2) => {
    c.optString(p, "name", `ports[${i2}].name`);
    c.optEnum(p, "protocol", `ports[${i2}].protocol`, PROTOCOLS);
    c.optInt(p, "port", `ports[${i2}].port`);
  });
  c.optList(o, "endpoints", "endpoints").forEach((e, i2) => {
    const path = `endpoints[${i2}]`;
    c.optStringList(e, "addresses", `${path}.addresses`);
    c.optString(e, "nodeName", `${path}.nodeName`);
    const cond = c.optObj(e, "conditions", `${path}.conditions`);
    if (cond) for (const k of ["ready", "serving", "terminating"]) c.optBool(cond, k, `${path}.conditions.${k}`);
    const hints = c.optObj(e, "hints", `${path}.hints`);
    if (hints) {
      for (const k of ["forZones", "forNodes"]) {
        c.optList(hints, k, `${path}.hints.${k}`).forEach((h, j) => {
          if (typeof h.name !== "string") c.fail(`${path}.hints.${k}[${j}].name`, "expected a string");
        });
      }
    }
  });
}
function checkNode(c, o) {
  const spec = c.optObj(o, "spec", "spec");
  if (spec) {
    c.optString(spec, "podCIDR", "spec.podCIDR");
    c.optStringList(spec, "podCIDRs", "spec.podCIDRs");
  }
  const status = c.optObj(o, "status", "status");
  if (status) {
    c.optList(status, "addresses", "status.addresses").forEach((a, i2) => {
      c.optString(a, "type", `status.addresses[${i2}].type`);
      c.optString(a, "address", `status.addresses[${i2}].address`);
    });
  }
}
function checkConfigMap(c, o) {
  const data = c.optObj(o, "data", "data");
  if (data) for (const k of Object.keys(data)) c.optString(data, k, `data.${k}`);
}
function checkMetadata(c, o, kind) {
  const md = c.optObj(o, "metadata", "metadata");
  if (!md || typeof md.name !== "string" || md.name === "") c.fail("metadata.name", `a ${kind} needs a name`);
  c.optString(md, "namespace", "metadata.namespace");
  for (const k of ["labels", "annotations"]) {
    const m = c.optObj(md, k, `metadata.${k}`);
    if (m) for (const key of Object.keys(m)) c.optString(m, key, `metadata.${k}.${key}`);
  }
}
function loadObjects(texts) {
  const out2 = { services: [], endpointSlices: [], nodes: [], configMaps: [], serviceCIDRs: [], daemonSets: [], other: [] };
  for (const { name, text: text2 } of texts) {
    const docs = parseDocuments(name, text2);
    docs.forEach((doc, di) => {
      const where = docs.length > 1 ? `document ${di + 1}` : "the document";
      const add = (value, pos, inheritedKind) => {
        if (!isObj(value)) throw new ObjectsParseError(name, `${pos}: expected a Kubernetes object, got ${Array.isArray(value) ? "a list" : JSON.stringify(value)}`, doc.line);
        const kind = typeof value.kind === "string" ? value.kind : inheritedKind;
        if (Array.isArray(value.items) && (kind === void 0 || kind.endsWith("List"))) {
          const itemKind = kind && kind !== "List" ? kind.slice(0, -"List".length) : void 0;
          value.items.forEach((item, i2) => add(item, `${pos}, items[${i2}]`, itemKind));
          return;
        }
        if (kind === void 0) throw new ObjectsParseError(name, `${pos}: object has no kind`, doc.line);
        const md = isObj(value.metadata) ? value.metadata : {};
        const id = `${kind} ${typeof md.namespace === "string" ? md.namespace + "/" : ""}${typeof md.name === "string" ? md.name : `(${pos})`}`;
        const c = new Checker(name, id, doc.line);
        const obj = kind === value.kind ? value : { ...value, kind };
        switch (kind) {
          case "Service":
            checkMetadata(c, obj, kind);
            checkService(c, obj);
            out2.services.push(obj);
            break;
          case "EndpointSlice":
            checkMetadata(c, obj, kind);
            checkEndpointSlice(c, obj);
            out2.endpointSlices.push(obj);
            break;
          case "Node":
            checkMetadata(c, obj, kind);
            checkNode(c, obj);
            out2.nodes.push(obj);
            break;
          case "ConfigMap":
            checkMetadata(c, obj, kind);
            checkConfigMap(c, obj);
            out2.configMaps.push(obj);
            break;
          case "ServiceCIDR":
            checkMetadata(c, obj, kind);
            out2.serviceCIDRs.push(obj);
            break;
          case "DaemonSet":
            checkMetadata(c, obj, kind);
            out2.daemonSets.push(obj);
            break;
          default:
            if (isObj(obj.metadata)) out2.other.push(obj);
        }
      };
      add(doc.value, where);
    });
  }
  return out2;
}

// bench/proxier-objects.ts
function benchObjectsJson(SERVICES, ENDPOINTS) {
  const items = [];
  for (let s = 0; s < SERVICES; s++) {
    const ns = `ns${s % 100}`;
    const name = `svc${s}`;
    const kind = s % 10 === 0 ? "LoadBalancer" : s % 5 === 0 ? "NodePort" : "ClusterIP";
    items.push({
      apiVersion: "v1",
      kind: "Service",
      metadata: { namespace: ns, name },
      spec: {
        type: kind,
        clusterIP: `172.30.${s >> 8 & 255}.${s & 255}`,
        ports: [{ name: "http", port: 80, protocol: "TCP", ...kind !== "ClusterIP" ? { nodePort: 3e4 + s % 2700 } : {} }],
        ...kind === "LoadBalancer" ? { externalTrafficPolicy: s % 20 === 0 ? "Local" : "Cluster", healthCheckNodePort: 32e3 + s % 700 } : {}
      },
      ...kind === "LoadBalancer" ? { status: { loadBalancer: { ingress: [{ ip: `203.0.${s >> 8 & 255}.${s & 255}` }] } } } : {}
    });
    items.push({
      apiVersion: "discovery.k8s.io/v1",
      kind: "EndpointSlice",
      metadata: { namespace: ns, name: `${name}-abcde`, labels: { "kubernetes.io/service-name": name } },
      addressType: "IPv4",
      endpoints: Array.from({ length: ENDPOINTS }, (_, e) => {
        const n = s * ENDPOINTS + e;
        return { addresses: [`10.${n >> 16 & 255}.${n >> 8 & 255}.${n & 255}`], nodeName: `node-${n % 50}`, conditions: { ready: true, serving: true, terminating: false } };
      }),
      ports: [{ name: "http", port: 8080, protocol: "TCP" }]
    });
  }
  return JSON.stringify({ apiVersion: "v1", kind: "List", items });
}

// bench/_diff_tmp.ts
var objects = loadObjects([{ name: "bench.json", text: benchObjectsJson(1e4, 10) }]);
var options = { family: "ipv4", version: NEWEST_SUPPORTED_VERSION, nodeName: "node-0", nodeIP: "192.168.0.2", masqueradeBit: 14, masqueradeAll: false, localDetector: { mode: "ClusterCIDR", cidr: "10.0.0.0/8" }, nodePortAddresses: [], localhostNodePorts: true, randomFully: true, nfacct: { ctStateInvalidDroppedPkts: true, localhostNpsAcceptedPkts: true }, tcpBeLiberal: false, nodeInterfaceAddresses: ["127.0.0.1", "192.168.0.2"], featureGates: featureGatesFor(NEWEST_SUPPORTED_VERSION) };
var out = generateIptablesRestore({ services: objects.services, endpointSlices: objects.endpointSlices, options });
var text = serializeSave(out.ruleset);
var i = text.indexOf("-A KUBE-SERVICES ");
var nodeDump = text.slice(0, i) + text.slice(text.indexOf("\n", i) + 1);
var cpu = (f, name) => {
  const c = process.cpuUsage();
  const t = performance.now();
  const v = f();
  const d = process.cpuUsage(c);
  console.log(name, ((d.user + d.system) / 1e3).toFixed(0), "wall", (performance.now() - t).toFixed(0));
  return v;
};
var what = process.env.WHAT ?? "diff";
for (let k = 0; k < 4; k++) {
  const expected = cpu(() => viewFromSaved(savedState(out.ruleset)), "expected");
  const dump = cpu(() => parseIptablesSave(nodeDump), "parse");
  const actual = cpu(() => viewFromDump(dump), "view");
  const groups = cpu(() => chainGroups(out.ruleset), "groups");
  cpu(() => diffIptables(expected.view, actual, { chainGroups: groups, requiredJumps: expected.requiredJumps }), "diff");
}
