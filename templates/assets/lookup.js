/*
 * errorkb lookup in the browser: a pasted log, traceback or message → the vLLM errors it shows.
 *
 * A faithful port of generator/lookup/ (read generator/lookup/match.py's module docstring
 * for the approach): clean_paste → squash with an origin map → 6-gram candidate index →
 * in-order chunk verification with truncation and missing-chunk handling → wrappers, frame
 * bonus, non-vLLM rules. The matcher is built from api/lookup-index.json (written by
 * generator.lookup.index.compact_index). Every number, text and pattern of the rules
 * travels inside its "rules" (see compileRules): this file holds the code, not the
 * settings, and copies none of them. tests/test_browser.py checks that this file answers
 * exactly as the Python matcher does, and that it keeps no copies.
 *
 * Python and JavaScript differ in ways that matter here, and this file makes up for them:
 *  - Python strings are code points, JavaScript strings UTF-16 units. Every position,
 *    length and slice of the matcher is counted in code points: text is turned into a
 *    "slot form" where each astral code point (and each lone surrogate, which Python
 *    keeps as a code point of its own, e.g. from a JSON "\ud83d\ude80") is one unit, a
 *    lone high surrogate standing for it (see toSlots / fromSlots).
 *  - Python's \w, \d, \s, \b and . are Unicode-aware and differ from JavaScript's;
 *    Python-syntax patterns (ours and the index's) go through pyRegex, which rewrites them.
 *  - str.split(), str.strip(), find(sub, start, end), rfind, round(x, 3) (half-even on
 *    the binary value), stable sorts of tuples and html.unescape are ported as functions.
 *
 * The page stays responsive whatever is pasted: the matcher is built, and every paste
 * looked up, in a Web Worker running this same file (see "the worker" below). The page
 * fetches the index (so the fetch is the page's, and lazy) and hands its text over; the
 * worker asks the page for the HTML entities a paste names, as only a document can read
 * them (DOMParser). Where a worker cannot start, the page runs the matcher itself.
 */
(function () {
  "use strict";

  // --- where the site is ----------------------------------------------------------------

  const IN_WORKER = typeof WorkerGlobalScope !== "undefined" && self instanceof WorkerGlobalScope;
  const SCRIPT_URL = (function () {
    if (IN_WORKER) return self.location.href;
    if (typeof document === "undefined") return "";
    if (document.currentScript && document.currentScript.src) return document.currentScript.src;
    const scripts = document.getElementsByTagName("script");
    for (let i = scripts.length - 1; i >= 0; i--) {
      if (/(?:^|\/)assets\/lookup\.js(?:[?#].*)?$/.test(scripts[i].src)) return scripts[i].src;
    }
    return document.baseURI;
  })();
  function resolve(path) {
    try {
      return new URL(path, SCRIPT_URL).href;
    } catch (error) {
      return path; // no page to resolve against (not a browser)
    }
  }
  const INDEX_URL = resolve("../api/lookup-index.json");
  const SITE_ROOT = resolve("../");

  // --- the index -----------------------------------------------------------------------------

  // The index format this file reads (generator.lookup.index.INDEX_SCHEMA_VERSION); the
  // numbers and patterns of the rules come from the index itself.
  const INDEX_SCHEMA_VERSION = 11;

  // --- code points: the slot form -----------------------------------------------------------
  //
  // Slots are lone high surrogates (never a pair, as no low surrogate is ever used), in
  // three ranges so that the rewritten \d and \w classes can include them: astral
  // decimal digits, other astral letters and numbers, everything else.

  const SLOT_RANGES = { digit: [0xd800, 0xd880], word: [0xd880, 0xda00], other: [0xda00, 0xdc00] };
  const slotOfCp = new Map(); // code point → slot char
  const cpOfSlot = new Map(); // slot unit → code point
  const slotLower = new Map(); // slot char → slot char of its lower case, where it differs
  const nextSlot = { digit: SLOT_RANGES.digit[0], word: SLOT_RANGES.word[0], other: SLOT_RANGES.other[0] };
  const HAS_SURROGATE = /[\ud800-\udfff]/;

  function slotFor(cp) {
    let slot = slotOfCp.get(cp);
    if (slot !== undefined) return slot;
    let kind = "other";
    if (cp > 0xffff) {
      const ch = String.fromCodePoint(cp);
      if (/\p{Nd}/u.test(ch)) kind = "digit";
      else if (/[\p{L}\p{N}]/u.test(ch)) kind = "word";
    }
    let unit = nextSlot[kind];
    if (unit < SLOT_RANGES[kind][1]) {
      nextSlot[kind] = unit + 1;
    } else {
      unit = SLOT_RANGES[kind][1] - 1; // out of slots: share the last one (never seen in practice)
    }
    slot = String.fromCharCode(unit);
    slotOfCp.set(cp, slot);
    if (!cpOfSlot.has(unit)) cpOfSlot.set(unit, cp);
    if (cp > 0xffff) {
      const lower = String.fromCodePoint(cp).toLowerCase();
      const lowerCp = lower.codePointAt(0);
      if (lower.length && lowerCp !== cp) slotLower.set(slot, lowerCp > 0xffff ? slotFor(lowerCp) : lower);
    }
    return slot;
  }

  // The slots the index and the rules took stay; a paste's own are dropped before the next
  // paste, so that slots run out only for a single paste with over 1024 distinct astral chars.
  let slotMark = null;

  function markSlots() {
    slotMark = Object.assign({}, nextSlot);
  }

  function resetSlots() {
    if (slotMark === null || Object.keys(nextSlot).every((kind) => nextSlot[kind] === slotMark[kind])) return;
    const fresh = (unit) => Object.keys(SLOT_RANGES).some(
      (kind) => unit >= slotMark[kind] && unit < SLOT_RANGES[kind][1],
    );
    for (const [cp, slot] of slotOfCp) {
      const unit = slot.charCodeAt(0);
      if (!fresh(unit)) continue;
      slotOfCp.delete(cp);
      slotLower.delete(slot);
      cpOfSlot.delete(unit);
    }
    Object.assign(nextSlot, slotMark);
  }

  /** Text with each astral code point (or lone surrogate) as one unit. */
  function toSlots(text) {
    if (!HAS_SURROGATE.test(text)) return text;
    let out = "";
    for (const ch of text) {
      const cp = ch.codePointAt(0);
      out += cp > 0xffff || (cp >= 0xd800 && cp <= 0xdfff) ? slotFor(cp) : ch;
    }
    return out;
  }

  /**
   * Python's _join_surrogates on a slot form: the two halves of an escaped surrogate
   * pair become one code point again, and a lone half becomes U+FFFD.
   */
  function joinSurrogateSlots(text) {
    if (!HAS_SURROGATE.test(text)) return text;
    const half = (unit) => {
      const cp = unit === undefined ? undefined : cpOfSlot.get(unit.charCodeAt(0));
      return cp !== undefined && cp >= 0xd800 && cp <= 0xdfff ? cp : undefined;
    };
    let out = "";
    for (let i = 0; i < text.length; i++) {
      const first = half(text[i]);
      if (first === undefined) {
        out += text[i];
        continue;
      }
      const second = half(text[i + 1]);
      if (first <= 0xdbff && second !== undefined && second >= 0xdc00) {
        out += slotFor(0x10000 + ((first - 0xd800) << 10) + (second - 0xdc00));
        i += 1;
      } else {
        out += "\ufffd";
      }
    }
    return out;
  }

  /** The real text of a slot form. */
  function fromSlots(text) {
    if (!HAS_SURROGATE.test(text)) return text;
    return text.replace(/[\ud800-\udbff]/g, (unit) => {
      const cp = cpOfSlot.get(unit.charCodeAt(0));
      if (cp === undefined) return unit;
      return cp > 0xffff ? String.fromCodePoint(cp) : String.fromCharCode(cp);
    });
  }

  /** Python's str.lower() of a slot form. */
  function lowerSlots(text) {
    let low = text.toLowerCase();
    if (slotLower.size && HAS_SURROGATE.test(low)) {
      low = low.replace(/[\ud800-\udbff]/g, (slot) => slotLower.get(slot) || slot);
    }
    return low;
  }

  /** The last ``count`` code points of a JavaScript string (Python's text[-count:]). */
  function lastCodePoints(text, count) {
    if (text.length <= count) return text;
    if (!HAS_SURROGATE.test(text)) return text.slice(text.length - count);
    let i = text.length;
    let taken = 0;
    while (i > 0 && taken < count) {
      const unit = text.charCodeAt(i - 1);
      if (unit >= 0xdc00 && unit <= 0xdfff && i >= 2) {
        const lead = text.charCodeAt(i - 2);
        if (lead >= 0xd800 && lead <= 0xdbff) i -= 1; // a pair is one code point
      }
      i -= 1;
      taken += 1;
    }
    return text.slice(i);
  }

  // --- Python's string methods ---------------------------------------------------------------

  // str.isspace(): what str.split(), str.strip() and re's \s treat as whitespace
  const PY_SPACE = "\\t\\n\\x0b\\x0c\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
  const PY_SPACE_RUN = new RegExp("[" + PY_SPACE + "]+");
  const PY_SPACE_LEAD = new RegExp("^[" + PY_SPACE + "]+");
  const PY_SPACE_TAIL = new RegExp("[" + PY_SPACE + "]+$");
  const PY_SPACE_ONE = new RegExp("^[" + PY_SPACE + "]$");

  /** str.split() */
  function pySplit(text) {
    return text.split(PY_SPACE_RUN).filter((word) => word !== "");
  }

  /** str.strip() */
  function pyStrip(text) {
    return text.replace(PY_SPACE_LEAD, "").replace(PY_SPACE_TAIL, "");
  }

  /** str.strip(chars) and str.rstrip(chars) */
  function pyStripChars(text, chars) {
    let a = 0, b = text.length;
    while (a < b && chars.includes(text[a])) a++;
    while (b > a && chars.includes(text[b - 1])) b--;
    return text.slice(a, b);
  }

  function pyRstripChars(text, chars) {
    let b = text.length;
    while (b > 0 && chars.includes(text[b - 1])) b--;
    return text.slice(0, b);
  }

  /** str.find(sub, start, end) for 0 <= start */
  /** foreign.py _reads_as_text(): a line of text, not longer than the limit, no replaced character (U+FFFD), and ASCII
   *  letters and blanks half of it or more. (cleaned is in slot form: one unit a code point, as Python counts.) */
  function readsAsText(line, limit) {
    if (line.length > limit || line.includes("\ufffd")) return false;
    let text = 0;
    for (const c of line) if (/^[A-Za-z ]$/.test(c)) text += 1;
    return 2 * text >= line.length;
  }

  /** match.py _partial_missing(): the fewest missing characters that make a match partial, its score (rounded) below sure. */
  function partialMissing(matched, sure) {
    let missing = Math.floor(matched * (1 - sure) / sure);
    while (pyRound3(matched / (matched + missing)) >= sure) missing += 1;
    return missing;
  }

  /** match.py _edit_distance(): characters to insert, delete or change to make a into b (Levenshtein), or
   *  limit + 1 as soon as it is sure to be more than limit. */
  function editDistance(a, b, limit) {
    if (Math.abs(a.length - b.length) > limit) return limit + 1;
    const row = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      let diagonal = row[0];
      row[0] = i;
      let least = row[0];
      for (let j = 1; j <= b.length; j++) {
        const above = row[j];
        row[j] = Math.min(row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] !== b[j - 1] ? 1 : 0));
        diagonal = above;
        if (row[j] < least) least = row[j];
      }
      if (least > limit) return limit + 1;
    }
    return row[b.length];
  }

  function pyFind(text, sub, start, end) {
    const n = text.length;
    if (end === undefined || end > n) end = n;
    if (start > n || end - start < sub.length) return -1;
    const at = text.indexOf(sub, start);
    return at !== -1 && at + sub.length <= end ? at : -1;
  }

  /** clean._shared_prefix: the prefix of the pattern most of the lines start with, or null. */
  function sharedPrefixOf(lines, pattern, rules) {
    const counts = new Map();
    for (const line of lines) {
      const found = pattern.exec(line);
      if (found) counts.set(found[0], (counts.get(found[0]) || 0) + 1);
    }
    let prefix = null;
    for (const [key, count] of counts) if (prefix === null || count > counts.get(prefix)) prefix = key;
    if (prefix === null) return null;
    const nonBlank = lines.filter((line) => pyStrip(line) !== "").length;
    return counts.get(prefix) < Math.max(3, rules.sharedPrefixShare * nonBlank) ? null : prefix;
  }

  /** clean._without_shared_prefix: the lines less the short prefix most of them start with. */
  function withoutSharedPrefix(lines, rules) {
    const prefix = sharedPrefixOf(lines, rules.sharedPrefix, rules);
    if (prefix === null) return lines;
    return lines.map((line) => (line.startsWith(prefix) ? line.slice(prefix.length) : line));
  }

  /** str.startswith(prefix, start) for 0 <= start */
  function pyStartsWith(text, prefix, start) {
    return start <= text.length && text.startsWith(prefix, start);
  }

  /** str.rfind(sub, start, end) */
  function pyRfind(text, sub, start, end) {
    if (end > text.length) end = text.length;
    if (end - start < sub.length) return -1;
    const at = text.lastIndexOf(sub, end - sub.length);
    return at >= start ? at : -1;
  }

  /** round(x, 3): the binary value rounded to 3 decimals, ties to even. */
  function pyRound3(x) {
    if (!Number.isFinite(x)) return x;
    const sixteenths = x * 16; // exact; a tie at the 4th decimal is an odd number of sixteenths
    if (Number.isInteger(sixteenths) && sixteenths % 2 !== 0) {
      const low = Math.floor(x * 1000); // x * 1000 is exact here (k * 62.5)
      return (low % 2 === 0 ? low : low + 1) / 1000;
    }
    return Number(x.toFixed(3));
  }

  /** f"{x:.2f}": ties to even, as Python formats (display only). */
  function pyFixed2(x) {
    const eighths = x * 8; // exact; a tie at the 3rd decimal is an odd number of eighths
    if (Number.isInteger(eighths) && eighths % 2 !== 0) {
      const low = Math.floor(x * 100); // exact here (k * 12.5)
      return ((low % 2 === 0 ? low : low + 1) / 100).toFixed(2);
    }
    return x.toFixed(2);
  }

  // the first place in an ascending list at which x would go (Python's bisect.bisect_left)
  function bisectLeft(list, x) {
    let lo = 0, hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  function compareTuples(a, b) {
    for (let i = 0; i < a.length; i++) {
      if (a[i] < b[i]) return -1;
      if (a[i] > b[i]) return 1;
    }
    return 0;
  }

  // --- Python regular expressions in JavaScript ----------------------------------------------

  const W_CLASS = "\\p{L}\\p{N}_\\ud800-\\ud9ff"; // Python's \w (letters, numbers, _), slots included
  const D_CLASS = "\\p{Nd}\\ud800-\\ud87f"; // Python's \d
  const WORD = "[" + W_CLASS + "]";
  const JS_SYNTAX = "^$\\.*+?()[]{}|/";

  function escapeCp(cp) {
    if (cp > 0xffff || (cp >= 0xd800 && cp <= 0xdfff)) cp = slotFor(cp).charCodeAt(0);
    return "\\u" + cp.toString(16).padStart(4, "0");
  }

  /**
   * A JavaScript RegExp that matches as Python's re does (str patterns, Unicode),
   * on slot-form text. Supports what the index and this file use, and the usual rest.
   */
  function pyRegex(source, pyFlags, jsFlags) {
    let flags = pyFlags || "";
    let i = 0;
    const inline = /^\(\?([aiLmsux]+)\)/.exec(source);
    if (inline) {
      flags += inline[1];
      i = inline[0].length;
    }
    if (flags.includes("x")) throw new Error("verbose patterns are not supported");
    const dotall = flags.includes("s");
    const multiline = flags.includes("m");
    // re.I makes i, I, ı and İ one letter; JavaScript's case folding keeps the dotless and dotted apart
    const ignore = flags.includes("i");
    const TURKIC = "iI\u0131\u0130";
    let classStart = 0;
    const n = source.length;
    let out = "";
    let inClass = false;
    let classFirst = false;
    while (i < n) {
      const c = source[i];
      if (c === "\\") {
        const d = source[i + 1];
        i += 2;
        if (d === undefined) throw new Error("bad escape at the end of the pattern");
        if (d === "w") out += inClass ? W_CLASS : WORD;
        else if (d === "W") out += inClass ? "\\W" : "[^" + W_CLASS + "]"; // in a class: ASCII only
        else if (d === "d") out += inClass ? D_CLASS : "[" + D_CLASS + "]";
        else if (d === "D") out += inClass ? "\\P{Nd}" : "[^" + D_CLASS + "]";
        else if (d === "s") out += inClass ? PY_SPACE : "[" + PY_SPACE + "]";
        else if (d === "S") out += inClass ? "\\P{White_Space}" : "[^" + PY_SPACE + "]";
        else if (d === "b") out += inClass ? "\\b" : `(?:(?<=${WORD})(?!${WORD})|(?<!${WORD})(?=${WORD}))`;
        else if (d === "B" && !inClass) out += `(?:(?<=${WORD})(?=${WORD})|(?<!${WORD})(?!${WORD}))`;
        else if (d === "A" && !inClass) out += "(?<![\\s\\S])";
        else if (d === "Z" && !inClass) out += "(?![\\s\\S])";
        else if (d === "a") out += "\\x07";
        else if (d === "x") {
          const hex = source.slice(i, i + 2);
          out += escapeCp(parseInt(hex, 16));
          i += 2;
        } else if (d === "u") {
          out += escapeCp(parseInt(source.slice(i, i + 4), 16));
          i += 4;
        } else if (d === "U") {
          out += escapeCp(parseInt(source.slice(i, i + 8), 16));
          i += 8;
        } else if (d === "0" || (inClass && d >= "1" && d <= "7")) {
          let digits = d;
          while (digits.length < 3 && /[0-7]/.test(source[i] || "")) digits += source[i++];
          out += escapeCp(parseInt(digits, 8));
        } else if (d >= "1" && d <= "9") {
          let digits = d;
          if (/[0-9]/.test(source[i] || "")) digits += source[i++];
          out += "\\" + digits;
        } else if ("fnrtv".includes(d)) out += "\\" + d;
        else if (/[A-Za-z0-9]/.test(d)) throw new Error("unsupported escape \\" + d);
        else if (JS_SYNTAX.includes(d) || (inClass && d === "-")) out += "\\" + d;
        else out += escapeCp(source.codePointAt(i - 1));
        if (source.codePointAt(i - 1) > 0xffff) i += 1;
        classFirst = false;
        continue;
      }
      const cp = source.codePointAt(i);
      if (ignore && !inClass && TURKIC.includes(c)) {
        out += "[" + TURKIC + "]";
        i += 1;
        continue;
      }
      if (cp > 0xffff) {
        out += escapeCp(cp);
        i += 2;
        classFirst = false;
        continue;
      }
      if (inClass) {
        if (c === "]" && !classFirst) {
          inClass = false;
          if (ignore) {
            const set = new RegExp("^[" + out.slice(classStart) + "]$", "ui");
            if (Array.from(TURKIC).some((letter) => set.test(letter))) out += TURKIC;
          }
          out += "]";
        } else if (c === "]" || c === "[") {
          out += "\\" + c;
        } else {
          out += c;
        }
        classFirst = false;
        i += 1;
        continue;
      }
      if (c === "[") {
        inClass = true;
        out += "[";
        i += 1;
        if (source[i] === "^") {
          out += "^";
          i += 1;
        }
        classStart = out.length;
        classFirst = true;
        continue;
      }
      if (c === ".") out += dotall ? "[\\s\\S]" : "[^\\n]";
      else if (c === "$") out += multiline ? "(?=\\n|(?![\\s\\S]))" : "(?=\\n?(?![\\s\\S]))";
      else if (c === "^") out += multiline ? "(?:(?<![\\s\\S])|(?<=\\n))" : "^";
      else if (c === "{") {
        const quant = /^\{(\d*)(?:(,)(\d*))?\}/.exec(source.slice(i));
        if (quant && (quant[1] || quant[3]) && (quant[1] !== "" || quant[2])) {
          out += "{" + (quant[1] || "0") + (quant[2] ? "," + quant[3] : "") + "}";
          i += quant[0].length;
          continue;
        }
        out += "\\{";
      } else if (c === "}") out += "\\}";
      else if (c === "(" && source.startsWith("(?P<", i)) {
        out += "(?<";
        i += 4;
        continue;
      } else if (c === "(" && source.startsWith("(?P=", i)) {
        const close = source.indexOf(")", i);
        out += "\\k<" + source.slice(i + 4, close) + ">";
        i = close + 1;
        continue;
      } else if (c === "(" && source.startsWith("(?#", i)) {
        i = source.indexOf(")", i) + 1;
        continue;
      } else out += c;
      i += 1;
    }
    return new RegExp(out, "u" + (flags.includes("i") ? "i" : "") + (jsFlags || ""));
  }

  // --- cleaning --------------------------------------------------------------------------------

  // html.unescape's pattern (Python's standard library, not errorkb's rules)
  const CHARREF = pyRegex(String.raw`&(#[0-9]+;?|#[xX][0-9a-fA-F]+;?|[^\t\n\f <&#;]{1,32};?)`, "", "g");
  const ALNUM = /[\p{L}\p{N}]/u; // str.isalnum()

  // html.unescape
  const INVALID_CHARREFS = {
    0x00: "\ufffd", 0x0d: "\r", 0x80: "\u20ac", 0x81: "\x81", 0x82: "\u201a", 0x83: "\u0192", 0x84: "\u201e",
    0x85: "\u2026", 0x86: "\u2020", 0x87: "\u2021", 0x88: "\u02c6", 0x89: "\u2030", 0x8a: "\u0160", 0x8b: "\u2039",
    0x8c: "\u0152", 0x8d: "\x8d", 0x8e: "\u017d", 0x8f: "\x8f", 0x90: "\x90", 0x91: "\u2018", 0x92: "\u2019",
    0x93: "\u201c", 0x94: "\u201d", 0x95: "\u2022", 0x96: "\u2013", 0x97: "\u2014", 0x98: "\u02dc", 0x99: "\u2122",
    0x9a: "\u0161", 0x9b: "\u203a", 0x9c: "\u0153", 0x9d: "\x9d", 0x9e: "\u017e", 0x9f: "\u0178",
  };

  function invalidCodepoint(num) {
    return (
      (num >= 0x1 && num <= 0x8) || num === 0xb || (num >= 0xe && num <= 0x1f) || (num >= 0x7f && num <= 0x9f) ||
      (num >= 0xfdd0 && num <= 0xfdef) || (num & 0xfffe) === 0xfffe
    );
  }

  const ENTITY_FALLBACK = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0" };
  const entityCache = new Map();

  /** The browser's reading of "&" + name (ASCII letters and digits, maybe a ";"): as HTML5 reads it. */
  function decodeEntity(name) {
    let text = entityCache.get(name);
    if (text !== undefined) return text;
    if (typeof DOMParser !== "undefined") {
      // An inert document: nothing in it runs or loads; the name holds no markup anyway.
      text = new DOMParser().parseFromString("<!DOCTYPE html><body>&" + name, "text/html").body.textContent;
    } else {
      const bare = name.replace(/;$/, "");
      text = bare in ENTITY_FALLBACK ? ENTITY_FALLBACK[bare] : "&" + name;
    }
    entityCache.set(name, text);
    return text;
  }

  /** What the browser is asked to decode for a named reference (decodeEntity), or "". */
  function entityName(ref) {
    // Entity names are ASCII letters and digits (and a final ";"): the longest prefix
    // of the reference that names one is replaced, exactly what the browser does too.
    const run = /^[A-Za-z0-9]*/.exec(ref)[0];
    return ref === run + ";" ? ref : run;
  }

  /** The entity names that cleaning this text (after ANSI and control characters are gone) decodes, not known yet. */
  function entityNamesIn(text) {
    if (!text.includes("&")) return [];
    const names = new Set();
    for (const match of text.matchAll(CHARREF)) {
      if (match[1][0] === "#") continue;
      const name = entityName(match[1]);
      if (name && !entityCache.has(name)) names.add(name);
    }
    return Array.from(names);
  }

  /** decodeEntity of many names, with one inert document for them all (for the worker). */
  function decodeEntities(names) {
    const missing = names.filter((name) => !entityCache.has(name));
    if (missing.length > 1 && typeof DOMParser !== "undefined") {
      // Names are letters and digits (and a final ";"): they hold no markup. Each one is
      // read alone in its own element, as decodeEntity reads it at the end of a body.
      const markup = "<!DOCTYPE html><body>" + missing.map((name) => "<b>&" + name + "</b>").join("");
      const found = new DOMParser().parseFromString(markup, "text/html").body.children;
      if (found.length === missing.length) missing.forEach((name, i) => entityCache.set(name, found[i].textContent));
    }
    return names.map(decodeEntity);
  }

  function replaceCharref(whole, ref) {
    if (ref[0] === "#") {
      const hex = ref[1] === "x" || ref[1] === "X";
      const digits = pyRstripChars(ref.slice(hex ? 2 : 1), ";").replace(/^0+(?=.)/, "");
      const num = digits.length > 8 ? Infinity : parseInt(digits, hex ? 16 : 10);
      if (num in INVALID_CHARREFS) return INVALID_CHARREFS[num];
      if ((num >= 0xd800 && num <= 0xdfff) || num > 0x10ffff) return "\ufffd";
      if (invalidCodepoint(num)) return "";
      return num > 0xffff ? slotFor(num) : String.fromCharCode(num);
    }
    const name = entityName(ref);
    const decoded = name ? toSlots(decodeEntity(name)) : "&";
    return decoded + ref.slice(name.length);
  }

  function htmlUnescape(text) {
    if (!text.includes("&")) return text;
    return text.replace(CHARREF, replaceCharref);
  }

  function jsonUnescape(whole, code) {
    if (code[0] === "u") {
      const unit = parseInt(code.slice(1), 16);
      // a surrogate half stays a half here, as in Python; joinSurrogateSlots pairs them up
      return unit >= 0xd800 && unit <= 0xdfff ? slotFor(unit) : String.fromCharCode(unit);
    }
    return code === "n" || code === "r" ? "\n" : code === "t" ? "\t" : code;
  }

  /** generator.text.readable_message: placeholders as "…", doubled braces as one. */
  function readableMessage(template) {
    let out = "";
    let i = 0;
    while (i < template.length) {
      const pair = template.slice(i, i + 2);
      if (pair === "{{" || pair === "}}") {
        out += pair[0];
        i += 2;
      } else if (template[i] === "{") {
        let depth = 0;
        let j = i;
        for (; j < template.length; j++) {
          if (template[j] === "{") depth++;
          else if (template[j] === "}") depth--;
          if (depth === 0) break;
        }
        out += "\u2026";
        i = j + 1;
      } else {
        out += template[i];
        i++;
      }
    }
    return out;
  }

  /** error_title(), with generator.text.shorten's cut. */
  function errorTitle(exception, template, hasMessage, rules, fn) {
    const width = rules.titleWidth;
    const readable = template ? readableMessage(template) : "";
    if (!hasMessage || !template || !readable.replace(/^[ \u2026]+|[ \u2026]+$/g, "")) {
      return fn && fn !== "<module>" ? exception + " in " + fn : exception;
    }
    let text = pySplit(toSlots(readable)).join(" ");
    if (text.length > width) {
      const head = text.slice(0, width);
      const space = head.lastIndexOf(" ");
      const cut = space === -1 ? head : head.slice(0, space);
      text = pyRstripChars(cut || head, rules.cutTrailing) + rules.ellipsis;
    }
    return exception + ": " + fromSlots(text);
  }

  // --- squashing -------------------------------------------------------------------------------

  class Origin {
    constructor(starts, shifts) {
      this.starts = starts;
      this.shifts = shifts;
    }

    get(index) {
      const starts = this.starts;
      let lo = 0, hi = starts.length; // bisect_right
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (index < starts[mid]) hi = mid;
        else lo = mid + 1;
      }
      return index + (lo ? this.shifts[lo - 1] : 0);
    }
  }

  function fold(text, rules) {
    return lowerSlots(text.replace(rules.quotes, "'"));
  }

  /** squash(): the text without whitespace, backticks or quotes, lower case; and its origin map. */
  function squash(text, rules) {
    let folded = fold(text, rules);
    if (folded.length !== text.length) {
      let perChar = "";
      for (let i = 0; i < text.length; i++) perChar += fold(text[i], rules)[0] || text[i];
      folded = perChar;
    }
    const starts = [];
    const shifts = [];
    let dropped = 0;
    for (const run of folded.matchAll(rules.dropRun)) {
      const end = run.index + run[0].length;
      dropped += run[0].length;
      starts.push(end - dropped);
      shifts.push(dropped);
    }
    return [folded.replace(rules.dropRun, ""), new Origin(starts, shifts)];
  }

  function squashText(text, rules) {
    return fold(text, rules).replace(rules.dropRun, "");
  }

  /** Whether squashText(text.slice(start, end)) is longer than size, read only as far as needed to tell. */
  /** match.py: _in_order */
  /** match.py _same_case(): the ASCII letters the paste shows are the template's, capitals and all. */
  function sameCase(shown, template) {
    const letters = shown.match(/[A-Za-z]/g) || [];
    const want = (template.match(/[A-Za-z]/g) || []).slice(0, letters.length);
    return letters.length === want.length && letters.every((c, i) => c === want[i]);
  }

  function inOrder(line, chunks, owners) {
    const starts = [0];
    let pos = chunks[0].length;
    for (let i = 1; i < chunks.length; i++) {
      let at = pos;
      if (owners[i] === owners[i - 1]) {
        if (!line.startsWith(chunks[i], pos)) return null;
      } else {
        at = i === chunks.length - 1 ? line.lastIndexOf(chunks[i]) : line.indexOf(chunks[i], pos + 1);
        if (at < pos + 1) return null;
      }
      starts.push(at);
      pos = at + chunks[i].length;
    }
    return pos === line.length ? starts : null;
  }

  function squashesLonger(text, start, end, size, rules) {
    let kept = 0;
    for (let i = start; i < end; i++) {
      // a kept character stays at least one (lower case never drops one)
      if (!rules.dropped.test(text[i]) && ++kept > size) return true;
    }
    return false;
  }

  // --- templates ---------------------------------------------------------------------------------

  function splitTemplate(template) {
    const segments = [""];
    const holes = [];
    let i = 0;
    const n = template.length;
    while (i < n) {
      const ch = template[i];
      if (ch === "{" && template.startsWith("{{", i)) {
        segments[segments.length - 1] += "{";
        i += 2;
      } else if (ch === "}" && template.startsWith("}}", i)) {
        segments[segments.length - 1] += "}";
        i += 2;
      } else if (ch === "{") {
        let depth = 0, j = i, quote = "";
        while (j < n) {
          const c = template[j];
          if (quote) {
            if (c === "\\") {
              j += 2;
              continue;
            }
            if (c === quote) quote = "";
          } else if (c === '"' || c === "'") {
            quote = c;
          } else if (c === "{") {
            depth += 1;
          } else if (c === "}") {
            depth -= 1;
            if (depth === 0) break;
          }
          j += 1;
        }
        holes.push(template.slice(i + 1, j));
        segments.push("");
        i = j + 1;
      } else {
        segments[segments.length - 1] += ch;
        i += 1;
      }
    }
    return [segments, holes];
  }

  function holeName(source) {
    let depth = 0, quote = "";
    for (let i = 0; i < source.length; i++) {
      const c = source[i];
      if (quote) {
        if (c === quote) quote = "";
      } else if (c === '"' || c === "'") {
        quote = c;
      } else if ("([{".includes(c)) {
        depth += 1;
      } else if (")]}".includes(c)) {
        depth -= 1;
      } else if (
        depth === 0 &&
        (c === ":" || (c === "!" && ["r", "s", "a"].includes(source.slice(i + 1, i + 2)) && ["", ":"].includes(source.slice(i + 2, i + 3))))
      ) {
        return source.slice(0, i);
      }
    }
    return source;
  }

  // --- the matcher ---------------------------------------------------------------------------------

  /** A character class (Python syntax) of the given characters. */
  function charClass(chars) {
    return "[" + Array.from(chars, (c) => "\\U" + c.codePointAt(0).toString(16).padStart(8, "0")).join("") + "]";
  }

  /** str.format() with named fields, for the index's texts (an error page's path, a reason). */
  function pyFormat(template, values) {
    return template.replace(/\{\{|\}\}|\{(\w+)\}/g, (whole, name) => (name === undefined ? whole[0] : String(values[name])));
  }

  /** clean.py join_hard_wraps(): the lines a terminal cut at its width joined again; one that
   * opens with the collector's prefix of every line is a line of its own. */
  function joinHardWraps(lines, rules, collector) {
    let width = 0;
    for (const line of lines) width = Math.max(width, line.length);
    if (width < rules.hardWrapWidth || new Set(lines.filter((l) => l.length === width)).size < rules.hardWrapLines)
      return lines;
    const joined = [lines[0]];
    let cut = lines[0].length === width;
    for (const line of lines.slice(1)) {
      const before = joined[joined.length - 1];
      // clean.py _rest_of_a_cut_word(): a type's name cut inside its first word goes on the line before
      const restOfAWord = /[A-Za-z0-9]$/.test(before) && atStart(rules.cutTypeName, line);
      const own = startsOwnLine(line, rules) || (collector !== null && line.startsWith(collector));
      if (cut && (!own || restOfAWord) && !(atStart(rules.wholeFrame, before) && atStart(rules.codeLine, line)))
        joined[joined.length - 1] += line;
      else joined.push(line);
      cut = line.length === width;
    }
    return joined;
  }

  function startsOwnLine(line, rules) {
    // clean.py _starts_own_line(): a quote's "> " (the last prefix) may be cut text: what follows it tells
    line = line.replace(rules.linePrefixes[rules.linePrefixes.length - 1], "");
    return atStart(rules.newLine, line) || atStart(rules.recordStartAt, line) ||
      rules.linePrefixes.slice(0, -1).some((p) => p.test(line));
  }

  /** Python's pattern.match(text): a sticky regex tried at 0. */
  function atStart(sticky, text) {
    sticky.lastIndex = 0;
    return sticky.test(text);
  }

  /** clean.split_records: ``line`` cut before each log record it holds, when it holds two or more. */
  function splitRecords(line, rules) {
    const starts = [...line.matchAll(rules.recordStart)].map((m) => m.index);
    if (starts.length < 2) return [line];
    return cutAt(line, starts.filter((n) => n > 0));
  }

  /** clean.py _cut_at(): the line cut at each position, blank pieces dropped, each right-stripped. */
  function cutAt(line, cuts) {
    const bounds = [0, ...[...new Set(cuts)].sort((a, b) => a - b), line.length];
    const parts = [];
    for (let i = 0; i + 1 < bounds.length; i++) {
      const part = line.slice(bounds[i], bounds[i + 1]);
      if (pyStrip(part)) parts.push(part.replace(PY_SPACE_TAIL, ""));
    }
    return parts;
  }

  /** clean.py without_prefixes(): the line less the log prefixes it starts with, however stacked. */
  function withoutPrefixes(line, rules) {
    return withoutStacked(line, rules.linePrefixes, rules);
  }

  /** clean.py without_outer_prefixes(): a line less what a container's log collector or a reply put before it. */
  function withoutOuterPrefixes(line, rules) {
    return withoutStacked(line, rules.outerPrefixes, rules);
  }

  function withoutStacked(line, prefixes, rules) {
    for (let round = 0; round < rules.prefixRounds; round++) {
      const before = line;
      for (const pattern of prefixes) line = line.replace(pattern, "");
      if (line === before) break;
    }
    return line;
  }

  /** clean.py split_access_records(): a line cut before and after each access log record it holds among other text. */
  function splitAccessRecords(line, rules) {
    if (!rules.accessLog.test(line)) return [line];
    const cuts = [];
    for (const m of line.matchAll(rules.flatAccessRecord)) {
      const start = m.index + 1; // the group after its one whitespace character
      if (pyStrip(withoutPrefixes(line.slice(0, start), rules))) cuts.push(start);
    }
    for (const m of line.matchAll(rules.accessRecord)) {
      const end = m.index + m[0].length;
      if (pyStrip(line.slice(end))) cuts.push(end);
    }
    return cuts.length ? cutAt(line, cuts) : [line];
  }

  /** clean.py split_traceback(): a line cut back into the lines of the traceback it holds run together. */
  function splitTraceback(line, rules) {
    const found = [...line.matchAll(rules.flatFrame)];
    const frames = found.filter((m) => m[0].startsWith("File")).length;
    if (!frames) {
      // a raise's code line and its exception: 'raise X(e) X: e' (clean.py: behind a log's prefixes too)
      rules.raiseCode.lastIndex = line.length - withoutPrefixes(line, rules).length;
      const code = rules.raiseCode.exec(line);
      if (code === null) return [line];
      rules.flatException.lastIndex = code.index + code[0].length;
      const exception = rules.flatException.exec(line);
      return exception === null ? [line] : cutAt(line, [exception.index + 1]);
    }
    const lastEnd = found[found.length - 1].index + found[found.length - 1][0].length;
    const after = (pattern) => {
      pattern.lastIndex = lastEnd;
      const all = [];
      let m;
      while ((m = pattern.exec(line)) !== null) {
        all.push(m.index + 1); // the group after its one whitespace character
        if (m[0].length === 0) pattern.lastIndex++;
      }
      return all;
    };
    const exceptions = after(rules.flatException);
    // clean.py: a frame's code line after it
    const code = found.filter((m) => m[0].startsWith("File") && pyStrip(line.slice(m.index + m[0].length))).map((m) => m.index + m[0].length);
    if (frames < 2 && !exceptions.length && !code.length) return [line];
    const cuts = found.filter((m) => pyStrip(line.slice(0, m.index))).map((m) => m.index).concat(code);
    if (exceptions.length) cuts.push(exceptions[0]);
    cuts.push(...after(rules.flatAccessRecord));
    return cutAt(line, cuts);
  }

  /**
   * The index's rules, ready to run: numbers and texts as generator/lookup/ defines them,
   * patterns (Python syntax, flags inline) rewritten for JavaScript. Nothing here is a copy.
   */
  function compileRules(rules) {
    const patterns = rules.patterns;
    return {
      // generator/lookup/clean.py
      maxTextChars: rules.max_text_chars,
      unescapeRounds: rules.unescape_rounds,
      prefixRounds: rules.prefix_rounds,
      quotes: pyRegex(charClass(rules.quotes), "", "g"),
      ansi: pyRegex(patterns.ansi, "", "g"),
      control: pyRegex(patterns.control, "", "g"),
      jsonEscape: pyRegex(patterns.json_escape, "", "g"),
      linePrefixes: rules.line_prefixes.map((source) => pyRegex(source)),
      outerPrefixes: rules.outer_prefixes.map((source) => pyRegex(source)),
      sharedPrefix: pyRegex(patterns.shared_prefix),
      collectorPrefix: pyRegex(patterns.collector_prefix),
      ellipsisMark: pyRegex(patterns.ellipsis_mark),
      sharedPrefixShare: rules.shared_prefix_share,
      chatter: pyRegex(patterns.chatter),
      codeFence: pyRegex(patterns.code_fence),
      quotedExceptionLine: pyRegex(patterns.quoted_exception_line),
      recordStart: pyRegex(patterns.record_start, "", "g"),
      recordStartAt: pyRegex(patterns.record_start, "", "y"),
      doubleSpacedLeast: rules.double_spaced_least,
      hardWrapWidth: rules.hard_wrap_width,
      hardWrapLines: rules.hard_wrap_lines,
      newLine: pyRegex(patterns.new_line, "", "y"),
      wholeFrame: pyRegex(patterns.whole_frame, "", "y"),
      codeLine: pyRegex(patterns.code_line, "", "y"),
      flatFrame: pyRegex(patterns.flat_frame, "", "g"),
      typographicFrame: pyRegex(patterns.typographic_frame, "", "g"),
      cutFrame: pyRegex(patterns.cut_frame),
      wrappedFramePath: pyRegex(patterns.wrapped_frame_path, "", "g"),
      wrappedFrameFunction: pyRegex(patterns.wrapped_frame_function, "", "g"),
      cutTypeName: pyRegex(patterns.cut_type_name, "", "y"),
      webSpace: pyRegex(patterns.web_space, "", "g"),
      closingWords: pyRegex(patterns.closing_words, "", "y"),
      closingForm: pyRegex(patterns.closing_form, "", "y"),
      closingNoise: pyRegex(patterns.closing_noise, "", "y"),
      wordLeft: pyRegex(patterns.word_left),
      errorLeft: pyRegex(patterns.error_left),
      closingLines: rules.closing_lines,
      closingTail: rules.closing_tail,
      invisible: pyRegex(patterns.invisible, "", "g"),
      typographicFlag: pyRegex(patterns.typographic_flag, "", "g"),
      markdownStrong: pyRegex(patterns.markdown_strong, "", "g"),
      curlySingle: pyRegex(patterns.curly_single, "", "g"),
      curlyDouble: pyRegex(patterns.curly_double, "", "g"),
      fullWidthTypeColon: pyRegex(patterns.full_width_type_colon, "", "g"),
      shownCr: pyRegex(patterns.shown_cr, "", "g"),
      dockerJsonLog: pyRegex(patterns.docker_json_log, "", "g"),
      jsonLogLine: pyRegex(patterns.json_log_line, "", "g"),
      jsonLogMessageKeys: rules.json_log_message_keys,
      jsonLogRecordKeys: rules.json_log_record_keys,
      jsonLogDetailKeys: rules.json_log_detail_keys,
      jsonLogBrackets: rules.json_log_brackets,
      anothersLogLine: pyRegex(patterns.anothers_log_line, "", "y"),
      pyLoggerLine: pyRegex(patterns.py_logger_line, "", "y"),
      typeAlone: pyRegex(patterns.type_alone),
      saysWhatAfter: pyRegex(patterns.says_what_after, "", "y"),
      flatException: pyRegex(patterns.flat_exception, "", "g"),
      flatAccessRecord: pyRegex(patterns.flat_access_record, "", "g"),
      raiseCode: pyRegex(patterns.raise_code, "", "y"),
      punctuation: pyRegex(patterns.punctuation, "", "g"),
      valueTail: pyRegex(patterns.value_tail, "", "g"),
      quoteClosesDouble: pyRegex(patterns.quote_closes_double, "", "g"),
      quoteClosesSingle: pyRegex(patterns.quote_closes_single, "", "g"),
      valueSentenceEnd: pyRegex(patterns.value_sentence_end),
      quoteOpensMessage: pyRegex(patterns.quote_opens_message),
      typedWords: pyRegex(patterns.typed_words),
      labelledInException: pyRegex(patterns.labelled_in_exception),
      chatterKeep: pyRegex(patterns.chatter_keep),
      accessLog: pyRegex(patterns.access_log),
      refusedRequest: pyRegex(patterns.refused_request),
      accessRecord: pyRegex(patterns.access_record, "", "g"),
      dropRun: pyRegex(patterns.drop_run, "", "g"),
      // one character that squashing drops: a quote, or one of drop_run's
      dropped: pyRegex("^(?:" + charClass(rules.quotes) + "|" + patterns.drop_run + ")$"),
      // generator/lookup/match.py
      gram: rules.gram,
      chunkWords: rules.chunk_words,
      window: rules.window,
      maxGramsPerEntry: rules.max_grams_per_entry,
      openingGrams: rules.opening_grams,
      stopGramEntries: rules.stop_gram_entries,
      maxCandidates: rules.max_candidates,
      candidateShare: rules.candidate_share,
      candidateGrams: rules.candidate_grams,
      anchors: rules.anchors,
      anchorTries: rules.anchor_tries,
      tail: rules.tail,
      minLiteral: rules.min_literal,
      minMatched: rules.min_matched,
      reasonLeast: rules.reason_least,
      laterLeast: rules.later_least,
      headCutLeast: rules.head_cut_least,
      rewordedShare: rules.reworded_share,
      quotedLeast: rules.quoted_least,
      stockPhraseWords: rules.stock_phrase_words,
      openingLeast: rules.opening_least,
      ellipsisLeast: rules.ellipsis_least,
      userCut: pyRegex(patterns.user_cut, "", "y"),
      vllmQualified: pyRegex(patterns.vllm_qualified),
      issueTag: pyRegex(patterns.issue_tag, "", "y"), // tried at the line's start, as Python's match()
      writesItsMessage: pyRegex(patterns.writes_its_message, "", "y"),
      typeRightBefore: pyRegex(patterns.type_right_before),
      pydanticValueErrors: rules.pydantic_value_errors.slice(),
      valueOpensAfter: pyRegex(patterns.value_opens_after),
      reportsAbove: pyRegex(patterns.reports_above),
      pointsToItsValue: pyRegex(patterns.points_to_its_value),
      responseBody: pyRegex(patterns.response_body),
      pasteEndsInAWord: pyRegex(patterns.paste_ends_in_a_word),
      asciiWord: pyRegex(patterns.ascii_word, "", "g"),
      sure: rules.sure,
      nearlyWhole: rules.nearly_whole,
      titleStops: rules.title_stops,
      unnamedLeast: rules.unnamed_least,
      newSentence: pyRegex(patterns.new_sentence),
      newSentenceAfter: pyRegex(patterns.new_sentence_after, "", "y"),
      outweighs: rules.outweighs,
      openValueLines: rules.open_value_lines,
      agreeBonus: rules.agree_bonus,
      frameBonus: rules.frame_bonus,
      maxValueChars: rules.max_value_chars,
      titleWidth: rules.title_width,
      closers: rules.closers,
      openingQuotes: rules.opening_quotes,
      closingQuote: rules.closing_quote,
      cutMessageLeast: rules.cut_message_least,
      rewordedLeast: rules.reworded_least,
      stopWordLeast: rules.stop_word_least,
      partLeast: rules.part_least,
      smallWord: rules.small_word,
      leftOutLeast: rules.left_out_least,
      diverge: rules.diverge,
      valueClosers: rules.value_closers,
      hole: pyRegex(patterns.hole, "", "g"),
      pythonWrote: pyRegex(patterns.python_wrote, "", "y"),
      // generator/text.py
      ellipsis: rules.ellipsis,
      cutTrailing: rules.cut_trailing,
      errorPath: rules.error_path,
      // generator/lookup/foreign.py
      exceptionLine: pyRegex(patterns.exception_line),
      exceptionPrefix: pyRegex(patterns.exception_prefix),
      pythonsOwn: pyRegex(patterns.pythons_own),
      endsInAValue: pyRegex(patterns.ends_in_a_value),
      frame: pyRegex(patterns.frame, "", "g"),
      frameOnce: pyRegex(patterns.frame),
      frameTail: pyRegex(patterns.frame_tail),
      chained: pyRegex(patterns.chained, "", "y"),
      quotedPart: pyRegex(patterns.quoted_part, "", "g"),
      headCutLead: pyRegex(patterns.head_cut_lead),
      notebookFrame: pyRegex(patterns.notebook_frame, "", "g"),
      sitePackage: pyRegex(patterns.site_package, "", "g"),
      qualifiedException: pyRegex(patterns.qualified_exception),
      notAPackage: rules.not_a_package.slice(),
      exceptionTypeReason: rules.exception_type_reason,
      unmatched: { id: rules.unmatched.id, reason: rules.unmatched.reason, source: rules.unmatched.source,
                   builtinExceptions: rules.unmatched.builtin_exceptions.slice(),
                   pythonOnVllmsLineReason: rules.unmatched.python_on_vllms_line_reason,
                   forkRaiseReason: rules.unmatched.fork_raise_reason, forkRaiseSource: rules.unmatched.fork_raise_source },
      raiseOfAType: pyRegex(patterns.raise_of_a_type),
      vllmLogLine: pyRegex(patterns.vllm_log_line, "", "g"),
      processLine: pyRegex(patterns.process_line),
      namesVllm: pyRegex(patterns.names_vllm),
      codeName: pyRegex(patterns.code_name),
      tracebackShown: pyRegex(patterns.traceback_shown),
      nativeBacktrace: pyRegex(patterns.native_backtrace),
      raisesOrCallsAKernel: pyRegex(patterns.raises_or_calls_a_kernel),
      codeWord: pyRegex(patterns.code_word),
      messageWord: pyRegex(patterns.message_word, "", "g"),
      errorLine: pyRegex(patterns.error_line),
      loggedAboveTraceback: pyRegex(patterns.logged_above_traceback, "", "y"),
      unmatchedLine: { id: rules.unmatched_line.id, reason: rules.unmatched_line.reason, source: rules.unmatched_line.source,
                       lineWords: rules.unmatched_line.line_words, shownChars: rules.unmatched_line.shown_chars,
                       vllmLogLineReason: rules.unmatched_line.vllm_log_line_reason, vllmLogLineSource: rules.unmatched_line.vllm_log_line_source,
                       vllmLogLineHead: rules.unmatched_line.vllm_log_line_head,
                       processLineReason: rules.unmatched_line.process_line_reason, processLineSource: rules.unmatched_line.process_line_source,
                       anothersLineReason: rules.unmatched_line.anothers_line_reason, anothersLineSource: rules.unmatched_line.anothers_line_source,
                       unnamedReason: rules.unmatched_line.unnamed_reason, unnamedSource: rules.unmatched_line.unnamed_source,
                       unnamedLineChars: rules.unmatched_line.unnamed_line_chars },
      raiseAtTheEnd: pyRegex(patterns.raise_at_the_end),
      raiseTailChars: rules.raise_tail_chars,
      logHeader: pyRegex(patterns.log_header, "", "g"),
      logHeaderTail: rules.log_header_tail,
      foreignCall: pyRegex(patterns.foreign_call),
      foreignCallReason: rules.foreign_call_reason,
      foreignPackages: rules.foreign_packages.slice(),
      foreignFrameReason: rules.foreign_frame_reason,
      outsideFrameReason: rules.outside_frame_reason, outsideFrameSource: rules.outside_frame_source,
      quoteHead: rules.quote_head,
      notVllm: rules.not_vllm.map(([source, keywords, pattern, reason, weak, id, vllmWording, wordingWords]) => ({
        source,
        keywords: keywords.map(toSlots),
        pattern: pyRegex(pattern, "", "g"),
        reason,
        weak: !!weak,
        id,
        // vLLM's message that reads as it, and its words as a pattern (foreign.py vllm_wording, wording_words)
        vllmWording: vllmWording || "",
        wordingWords: vllmWording ? pyRegex(wordingWords, "", "y") : null,
      })),
      foreign: rules.foreign,
      wrapper: pyRegex(rules.wrapper),
      versionString: pyRegex(rules.version_string),
    };
  }

  class Match {
    constructor(rules, error, fields) {
      this.rules = rules;
      this.error = error;
      this.values = fields.values || new Map();
      this.start = fields.start;
      this.matched = fields.matched || 0;
      this.missing = fields.missing || 0;
      this.coverage = fields.coverage || 0;
      this.exceptionAgrees = !!fields.exceptionAgrees;
      this.inLast = !!fields.inLast;
      this.tagged = !!fields.tagged; // opens after an issue title's tag (match.py)
      this.wordedAlike = !!fields.wordedAlike;
      this.lineageNewest = -1; // set before ranking
      this.frame = !!fields.frame;
      this.end = fields.end || 0;
      this.valueSpans = fields.valueSpans || [];
      this.wrapper = false;
      this.holes = fields.holes || 0; // placeholders in the template
      this.openValue = !!fields.openValue; // the paste stops inside a value (match.py: open_value)
      this.valueToLineEnd = !!fields.valueToLineEnd; // the match ends with a value that runs to its line's end (match.py)
      this.current = null; // the problem's current error (the pin's, or what it became)
      this.also = []; // the problem's other ids
      this.form = fields.form || ""; // the other form of the message that matched (match.py: Match.form)
      this.wordedAs = []; // the problem's other errors the paste matches as well (match.py: worded_as)
      this.typeOnly = !!fields.typeOnly; // the paste is only the exception's type (match.py: type_only)
      this.reason = false; // what matched is a reason the message may show (match.py: Match.reason)
      this.carried = !!fields.carried; // its words are a foreign error's that vLLM's message carries (match.py: Match.carried)
    }

    get verdict() {
      return this.score >= this.rules.sure ? "exact" : "partial";
    }

    get score() {
      if (this.matched) return pyRound3(this.matched / Math.max(1, this.matched + this.missing));
      return 0.5 * this.frame;
    }

    get rankKey() {
      return [
        this.wrapper ? 0 : 1,
        this.score >= this.rules.sure ? 1 : 0,
        this.matched - this.missing + this.rules.agreeBonus * (this.exceptionAgrees || this.frame ? 1 : 0) +
          this.rules.frameBonus * (this.frame ? 1 : 0),
        this.coverage >= this.rules.sure ? 1 : 0, // a cut paste does not tell a longer message from a shorter one
        -this.holes, // of two templates that fit alike, the one with fewer holes says more
        this.wordedAlike ? 1 : 0,
        this.inLast ? 1 : 0,
        this.tagged && this.error.kind === "log" ? 0 : 1, // a tag stands for a type, which a log line has not (match.py)
        // the same message in several releases: the problem the pin still raises first (match.py)
        Math.max(this.lineageNewest, this.error.newest),
        this.error.newest,
      ];
    }

    toJSON() {
      const e = this.error;
      const values = {};
      for (const [name, value] of this.values) {
        Object.defineProperty(values, name, { value: value, enumerable: true, writable: true, configurable: true });
      }
      const current = this.current || e;
      return {
        id: e.id,
        exception: e.exception,
        kind: e.kind,
        template: e.template,
        title: current.title,
        url: e.url,
        score: this.score,
        verdict: this.verdict,
        coverage: pyRound3(this.coverage),
        versions: e.versions.slice(),
        sites: e.sites.map((s) => ({ path: s.path, line: s.line })),
        values: values,
        // the message as the paste shows it: the form that matched, values filled in
        message: this.form || e.template ? fill(this.form && !this.reason ? this.form : e.template, this.values, this.rules) : "",
        current: {
          id: current.id,
          url: current.url,
          versions: current.versions.slice(),
          sites: current.sites.map((s) => ({ path: s.path, line: s.line })),
        },
        also: this.also.map((a) => ({ id: a.id, versions: a.versions.slice() })),
        entry: current.entry && Object.assign({}, current.entry, { fix: fixWithValues(current.entry.fix, this.values) }),
        // only where it says something: found by the exception's type alone
        ...(this.typeOnly ? { type_only: true } : {}),
        // only where it says something: the paste shows one of the reasons the message gives
        ...(this.reason ? { reason: fill(this.form, this.values, this.rules) } : {}),
      };
    }
  }

  class Matcher {
    constructor(index) {
      if (!index || index.schema_version !== INDEX_SCHEMA_VERSION) {
        throw new Error("unknown lookup index schema " + (index && index.schema_version));
      }
      const rules = (this.rules = compileRules(index.rules));

      this.errors = [];
      this.wordsCache = new Map(); // template → each chunk's words: a walk asks again and again (match.py _template_words)
      this.entries = [];
      this.index = new Map();
      this.short = [];
      this.byLocation = new Map();
      const own = (object, key) => Object.prototype.hasOwnProperty.call(object, key);
      // entries by slug, each with its ids; kinds as row numbers; curated titles where no entry
      // gives one (index.py: entries_of, kinds_of, titles_of)
      const entryOf = {};
      const curated = {};
      for (const [slug, entry] of Object.entries(index.entries || {})) {
        const { ids, ...rest } = entry;
        for (const id of ids) {
          entryOf[id] = { slug, ...rest };
          curated[id] = rest.title;
        }
      }
      Object.assign(curated, index.curated || {});
      const kindOfRow = new Map();
      for (const [kind, rows] of Object.entries(index.kinds || {})) for (const n of rows) kindOfRow.set(n, kind);
      const order = new Map((index.revisions || []).map((revision, place) => [revision, place]));
      // a row's versions are a bitmask over the revisions, its sites' paths numbers in `paths`
      // (generator.lookup.index.error_rows reads them back the same way)
      const revisionList = index.revisions || [];
      const pathList = Object.keys(index.paths || {});
      // by path, the functions where an older release raises or logs and the errors' newest sites
      // do not (index.py: functions_before)
      this.functionsBefore = new Map(Object.entries(index.functions_before || {})
        .map(([p, names]) => [pathList[Number(p)], new Set(names.split(" "))]));
      // one column per field (generator.lookup.index.ERROR_COLUMNS): a row is the same place in each
      const columns = index.errors;
      columns.id.forEach((id, number) => {
        const exception = columns.exception[number], template = columns.template[number];
        const hasMessage = columns.has_message[number], mask = columns.versions[number];
        const numberedSites = columns.sites[number], forms = columns.forms[number];
        const versions = revisionList.filter((_, n) => Math.floor(mask / 2 ** n) % 2 === 1);
        const sites = numberedSites.map(([p, line, fn]) => [pathList[p], line, fn]);
        let title = null; // worked out when a result shows it: ten thousand titles cost a tenth of a second
        const error = {
          id,
          exception,
          template,
          get title() {
            if (title === null) {
              title = own(curated, id) && curated[id]
                ? fromSlots(pySplit(toSlots(curated[id])).join(" "))
                : errorTitle(exception, template, hasMessage, rules, sites.length ? sites[0][2] : "");
            }
            return title;
          },
          url: pyFormat(rules.errorPath, { id }),
          versions,
          newest: Math.max(-1, ...versions.map((v) => (order.has(v) ? order.get(v) : -1))),
          sites: sites.map(([path, line, fn]) => ({ path, line, function: fn })),
          exceptionLow: lowerSlots(toSlots(exception)),
          number,
          kind: kindOfRow.has(number) ? kindOfRow.get(number) : "raise",
          entry: own(entryOf, id) ? entryOf[id] : null,
        };
        this.errors.push(error);
        for (const site of error.sites) {
          const parts = site.function.split(".");
          const key = site.path + "\u0000" + parts[parts.length - 1];
          if (!this.byLocation.has(key)) this.byLocation.set(key, []);
          this.byLocation.get(key).push(number);
        }
        for (const form of (hasMessage ? [template] : []).concat(forms)) {
          if (form) this.add(number, exception, form, form !== template ? form : "");
        }
      });
      // foreign id → the errors whose template is the words it names as vLLM's (match.py: worded)
      this.worded = new Map();
      for (const rule of rules.notVllm) {
        if (rule.vllmWording) this.worded.set(rule.id, this.errors.filter((e) => e.template === rule.vllmWording).map((e) => e.number));
      }
      // the reasons a message may show, after every message (match.py: reasons_at), by row
      this.reasonsAt = this.entries.length;
      for (const [row, given] of Object.entries(index.reasons || {})) {
        const number = Number(row);
        for (const reason of given) this.add(number, columns.exception[number], reason, reason, true);
      }
      // a gram too common to keep is one of too many messages: the reasons do not count (match.py)
      for (const [gram, entries] of this.index) {
        if (entries.length > rules.stopGramEntries && bisectLeft(entries, this.reasonsAt) > rules.stopGramEntries) this.index.delete(gram);
      }
      // match.py: a template all of whose grams were too common to keep is tried on every paste
      const indexed = new Set();
      for (const list of this.index.values()) for (const n of list) indexed.add(n);
      this.entries.forEach((entry, number) => {
        if (entry.grams && !indexed.has(number)) this.short.push(number);
      });
      this.revisions = (index.revisions || []).slice();
      this.paths = new Map(Object.entries(index.paths || {}));
      // one result per problem: error id -> its problem's current error id (index.problem_groups)
      this.byId = new Map(this.errors.map((e) => [e.id, e]));
      // match.py logged_at: "file.py:line" -> the error logs written there
      this.loggedAt = new Map();
      for (const [id, places] of Object.entries(index.log_lines || {})) {
        const error = this.byId.get(id);
        if (error === undefined) continue;
        for (const place of places) {
          if (!this.loggedAt.has(place)) this.loggedAt.set(place, []);
          this.loggedAt.get(place).push(error);
        }
      }
      this.groups = new Map(Object.entries(index.groups || {}));
      // index.py pack_groups() leaves out each current error's entry for itself (groups_of())
      for (const current of new Set(this.groups.values())) this.groups.set(current, current);
      this.members = new Map();
      for (const [id, current] of this.groups) {
        if (!this.byId.has(id)) continue;
        if (!this.members.has(current)) this.members.set(current, []);
        this.members.get(current).push(this.byId.get(id));
      }
      markSlots();
    }

    /** releases_of(): the releases the paste is consistent with, and by what evidence. */
    releasesOf(cleaned, frames, matches) {
      const revisions = this.revisions;
      if (!revisions.length) return null;
      // masks as BigInt: a release list may outgrow 31 bits
      const everything = (1n << BigInt(revisions.length)) - 1n;
      const evidence = [];
      let version = null;
      const found = this.rules.versionString.exec(cleaned);
      if (found) {
        version = fromSlots(found.slice(1).find((g) => g));
        const mask = releaseOfVersion(version, revisions);
        if (mask) evidence.push(["the version string " + version, mask]);
      }
      let paths = 0;
      let mask = everything;
      for (const [raw] of frames) {
        const relative = vllmRelative(raw);
        if (relative !== null && this.paths.has(relative)) {
          mask &= BigInt(this.paths.get(relative));
          paths += 1;
        }
      }
      if (paths) evidence.push(["the files of its traceback (" + paths + " frame" + (paths > 1 ? "s" : "") + ")", mask]);
      const top = matches.find((m) => m.verdict === "exact");
      if (top) {
        let wording = 0n;
        for (const e of [top.error, ...top.wordedAs]) {
          e.versions.forEach((v) => {
            const n = revisions.indexOf(v);
            if (n !== -1) wording |= 1n << BigInt(n);
          });
        }
        evidence.push(["the wording of its message", wording]);
      }
      if (!evidence.length) return null;
      let combined = everything;
      const used = [];
      for (const [reason, m] of evidence) {
        if (combined & m) {
          combined &= m;
          used.push(reason);
        }
      }
      return { releases: revisions.filter((_, n) => (combined >> BigInt(n)) & 1n), of: revisions.length, last: revisions[revisions.length - 1], version, evidence: used };
    }

    /** match.py _problem_of(): the key of the error's problem, and that problem's current error. */
    problemOf(error) {
      const key = this.groups.has(error.id) ? this.groups.get(error.id) : error.id;
      return [key, this.byId.get(key) || error];
    }

    onePerProblem(ranked) {
      const seen = new Set();
      const out = [];
      for (const m of ranked) {
        const [key, current] = this.problemOf(m.error);
        if (seen.has(key)) continue;
        seen.add(key);
        m.current = current;
        // the pin raises what matched (one entry may hold several pin errors): match.py does the same
        if (this.revisions.length && m.error.newest === this.revisions.length - 1) m.current = m.error;
        m.also = (this.members.get(key) || []).filter((e) => e.id !== m.current.id);
        out.push(m);
      }
      return out;
    }

    phaseOf(foreignId, frames) {
      const error = Object.prototype.hasOwnProperty.call(this.rules.foreign, foreignId) ? this.rules.foreign[foreignId] : null;
      if (!error || !error.phases.length) return null;
      for (let i = frames.length - 1; i >= 0; i--) {
        const parts = frames[i][1].split(".");
        const name = parts[parts.length - 1];
        for (const [phase, functions, advice] of error.phases) {
          if (functions.includes(name)) return [phase, advice];
        }
      }
      return null;
    }

    foreignInfo(source, reason, foreignId, frames) {
      const info = { source, reason, id: foreignId || null };
      const error = foreignId && Object.prototype.hasOwnProperty.call(this.rules.foreign, foreignId) ? this.rules.foreign[foreignId] : null;
      if (error) {
        info.title = error.title;
        info.summary = error.summary;
        info.steps = error.steps.slice();
        info.url = error.url;
        // match.py: told from this paste (which package, which type; which header, or that nothing names vLLM), where the page is general
        if (foreignId === this.rules.unmatched.id
            || foreignId === this.rules.unmatchedLine.id && reason !== this.rules.unmatchedLine.reason) info.why = reason;
        const phase = this.phaseOf(foreignId, frames);
        if (phase !== null) {
          info.phase = phase[0];
          info.advice = phase[1];
        }
      }
      return info;
    }

    chunkSegments(segments) {
      const [words, owners] = this.chunkWords(segments);
      return [words.map((w) => w.join("")), owners];
    }

    /** match.py chunk_words(): each chunk's squashed words, and the segment it is of. */
    chunkWords(segments) {
      const rules = this.rules;
      const chunks = [];
      const owners = [];
      segments.forEach((segment, number) => {
        const words = pySplit(segment).map((w) => squashText(w, rules));
        let pieces = [];
        for (let i = 0; i < words.length; i += rules.chunkWords) {
          pieces.push(words.slice(i, i + rules.chunkWords).filter((w) => w));
        }
        if (!words.length && squashText(segment, rules)) pieces = [[squashText(segment, rules)]];
        const merged = [];
        for (const piece of pieces) {
          if (!piece.length) continue; // only quotes or backticks: nothing to find
          if (merged.length && piece.join("").length < rules.gram) merged[merged.length - 1].push(...piece);
          else merged.push(piece);
        }
        for (const chunk of merged) {
          chunks.push(chunk);
          owners.push(number);
        }
      });
      return [chunks, owners];
    }

    /** match.py _words_of(): each chunk's words, read from the template again. */
    wordsOf(entry) {
      const template = entry.form || this.errors[entry.error].template;
      let words = this.wordsCache.get(template);
      if (words === undefined) {
        words = this.chunkWords(splitTemplate(toSlots(template))[0])[0];
        this.wordsCache.set(template, words);
      }
      return words;
    }

    add(error, exception, template, form = "", reason = false) {
      const [segments, holes] = splitTemplate(toSlots(template));
      const [chunks, owners] = this.chunkSegments(segments);
      let literal = 0;
      for (const chunk of chunks) literal += chunk.length;
      if (literal === 0 || (reason && literal < this.rules.reasonLeast)) return;
      const number = this.entries.length;
      const entry = {
        error,
        chunks,
        segmentOf: owners,
        holes: holes.map((hole) => fromSlots(holeName(hole))),
        literal,
        exception: lowerSlots(toSlots(exception)),
        grams: 0,
        form, // the template, when it is another form of the error's message (match.py: Entry.form)
        reason, // the form is a reason the message may show, tried last (match.py: Entry.reason)
      };
      this.entries.push(entry);
      const g = this.rules.gram;
      const most = this.rules.maxGramsPerEntry;
      let possible = 0;
      for (const chunk of chunks) possible += Math.max(0, chunk.length - g + 1);
      if (!possible) {
        this.short.push(number);
        return;
      }
      if (possible <= most) {
        // No sampling: every gram goes in, once (a list's last entry tells a repeat). The
        // order of an entry's grams does not matter then: lists only ever grow by entry.
        let count = 0;
        for (const chunk of chunks) {
          for (let i = 0; i + g <= chunk.length; i++) {
            const gram = chunk.slice(i, i + g);
            let list = this.index.get(gram);
            if (!list) this.index.set(gram, (list = []));
            if (list[list.length - 1] !== number) {
              list.push(number);
              count++;
            }
          }
        }
        entry.grams = count;
        return;
      }
      const unique = new Set();
      for (const chunk of chunks) {
        for (let i = 0; i + g <= chunk.length; i++) unique.add(chunk.slice(i, i + g));
      }
      let grams = Array.from(unique); // in the message's order (a Set keeps its first insertion's)
      if (grams.length > most) {
        // sampled as Python samples: the opening's grams, then grams spread evenly over the rest
        const opening = this.rules.openingGrams;
        const rest = grams.slice(opening);
        const step = rest.length / (most - opening);
        const sampled = grams.slice(0, opening);
        for (let i = 0; i < most - opening; i++) sampled.push(rest[Math.floor(i * step)]);
        grams = sampled;
      }
      entry.grams = grams.length;
      for (const gram of grams) {
        let list = this.index.get(gram);
        if (!list) this.index.set(gram, (list = []));
        list.push(number);
      }
    }

    // --- cleaning (the parts that depend on the index's rules) ---

    cleanPaste(text) {
      return this.cleanRest(this.cleanStart(text));
    }

    /** clean_paste up to the HTML entities: the paste's end, in slot form, without ANSI or control characters. */
    cleanStart(text) {
      const rules = this.rules;
      text = toSlots(lastCodePoints(text, rules.maxTextChars));
      text = text.replace(rules.ansi, "");
      return text.replace(rules.control, "");
    }

    /** The rest of clean_paste, from the HTML entities on. */
    cleanRest(text) {
      const rules = this.rules;
      if (text.includes("&")) text = htmlUnescape(text);
      // clean.py's DOCKER_JSON_LOG: a json-file log line is its "log" value
      text = text.replace(rules.dockerJsonLog, "$1");
      // clean.py's JSON_LOG_LINE: a JSON logger's line is its message
      if (text.includes('{"')) text = text.replace(rules.jsonLogLine, (line) => jsonLogMessage(line, rules));
      for (let round = 0; round < rules.unescapeRounds; round++) {
        if (!text.includes("\\")) break;
        text = text.replace(rules.jsonEscape, jsonUnescape);
      }
      text = joinSurrogateSlots(text);
      // clean.py's TYPOGRAPHIC_FRAME: a frame's curly quotes made straight
      text = text.replace(rules.typographicFrame, 'File "$1", line');
      // clean.py's restore_cut_frame: a paste that opens inside a frame's path gets its 'File "' back,
      // behind its first line's prefixes too
      const newline = text.indexOf("\n");
      const first = newline === -1 ? text : text.slice(0, newline);
      const skip = first.length - withoutPrefixes(first, rules).length;
      text = text.slice(0, skip) + text.slice(skip).replace(rules.cutFrame, '$1File "$2", line $3, in ');
      text = untypeset(text, rules);
      // clean.py's FULL_WIDTH_TYPE_COLON: "ValueError：" typed on a Chinese or Japanese keyboard
      if (text.includes("\uff1a")) text = text.replace(rules.fullWidthTypeColon, "$1: ");
      // clean.py's SHOWN_CR: a pager's "^M" at a line's end
      text = text.replace(rules.shownCr, "");
      const lines = [];
      const records = [];
      const given = dedented(singleSpaced(text.replace(/\r\n/g, "\n").replace(/\r/g, "\n").split("\n"), rules), rules);
      // clean.py's COLLECTOR_PREFIX: a tool's prefix on most lines, read off before anything else
      const collector = sharedPrefixOf(given, rules.collectorPrefix, rules);
      let joined = joinHardWraps(given, rules, collector);
      // clean.py's join_wrapped_frames: a frame cut at a terminal's width, inside its path or its function's name
      if (joined.some((line) => line.includes('File "'))) {
        joined = joined.join("\n").replace(rules.wrappedFramePath, "$1$2")
          .replace(rules.wrappedFrameFunction, (whole, frame, rest) => (frame.length >= rules.hardWrapWidth ? frame + rest : whole))
          .split("\n");
      }
      for (const line of joined)
        for (const piece of splitRecords(collector !== null && line.startsWith(collector) ? line.slice(collector.length) : line, rules))
          for (const part of splitAccessRecords(piece, rules)) records.push(...splitTraceback(part, rules));
      for (const raw of records) {
        const line = withoutPrefixes(raw, rules);
        if (rules.accessLog.test(raw)) {
          // clean.py: a refused request's line keeps its request and status
          const refused = rules.refusedRequest.exec(line);
          if (refused !== null) lines.push(refused[0]);
          continue;
        }
        if (rules.chatter.test(raw) && !rules.chatterKeep.test(raw)) continue;
        if (rules.codeFence.test(line)) continue; // clean.py: a Markdown fence's own line
        // clean.py's QUOTED_EXCEPTION_LINE: a line that is one quoted exception line is that line
        const unquoted = line && "\"'`, \t".includes(line[line.length - 1]) ? line.replace(rules.quotedExceptionLine, "$1$3") : line;
        lines.push(unquoted.replace(/[ \t]+$/, "")); // clean.py: a line's end is where its text ends
      }
      return withoutSharedPrefix(lines, rules).join("\n");
    }

    lastException(cleaned) {
      let found = null;
      let pos = 0;
      for (const line of cleaned.split("\n")) {
        const m = this.rules.exceptionLine.exec(pyStrip(line));
        if (m) found = [pos, m[2] || m[1]];
        pos += line.length + 1;
      }
      return found;
    }

    /** match.py _carried(): vLLM's message in the words a foreign rule names as its, without its type. */
    carriedBy(results, cleaned, last) {
      const rules = this.rules;
      let low = null;
      for (const rule of rules.notVllm) {
        const numbers = rule.wordingWords ? this.worded.get(rule.id) : null;
        if (!numbers || !numbers.length || numbers.some((n) => results.has(n))) continue;
        if (low === null) low = cleaned.toLowerCase();
        if (!rule.keywords.some((k) => low.includes(k))) continue;
        const places = []; // [where the words start, where its value does, its line's end] (match.py)
        let lineEnd = -1;
        let inARaise = false;
        for (const found of cleaned.matchAll(rule.pattern)) {
          const at = found.index;
          if (at > lineEnd) { // (a line's bounds read once: a long line may hold many matches)
            lineEnd = cleaned.indexOf("\n", at);
            if (lineEnd === -1) lineEnd = cleaned.length;
            // (nor in the raise a traceback shows, match.py)
            const lineStart = at === 0 ? 0 : cleaned.lastIndexOf("\n", at - 1) + 1;
            inARaise = atStart(rules.writesItsMessage, cleaned.slice(lineStart, lineEnd));
          }
          rule.wordingWords.lastIndex = at;
          const shown = rule.wordingWords.exec(cleaned);
          if (shown === null) continue;
          const shownEnd = shown.index + shown[0].length;
          if (shownEnd < lineEnd && !inARaise) places.push([at, shownEnd, lineEnd]);
        }
        // the last place whose value is more than what closes around it: one result per error (match.py)
        for (let k = places.length - 1; k >= 0; k--) {
          const [at, valueStart, end] = places[k];
          // (a value is cut after maxValueChars, as any value is)
          const whole = valueStart + rules.maxValueChars >= end;
          const value = whole ? closersOff(cleaned.slice(valueStart, end)) : cleaned.slice(valueStart, valueStart + rules.maxValueChars);
          if (!pyStrip(value)) continue;
          let number = numbers[0];
          for (const n of numbers) if (this.errors[n].newest > this.errors[number].newest) number = n; // the newest release's, of several
          const error = this.errors[number];
          const open = error.template.indexOf("{");
          const inLast = last !== null && at >= last[0];
          results.set(number, new Match(rules, error, {
            values: new Map([[holeName(error.template.slice(open + 1, -1)), fromSlots(value)]]),
            valueSpans: [[valueStart, valueStart + value.length]],
            start: at,
            end: valueStart + value.length,
            matched: squashText(toSlots(error.template.slice(0, open)), rules).length + squashText(value, rules).length,
            coverage: 1,
            holes: 1,
            inLast,
            exceptionAgrees: inLast && lowerSlots(last[1]) === error.exceptionLow,
            carried: true,
          }));
          break;
        }
      }
    }

    notVllm(cleaned, weak) {
      let best = null;
      const low = cleaned.toLowerCase();
      for (const rule of this.rules.notVllm) {
        if ((rule.weak && !weak) || !rule.keywords.some((k) => low.includes(k))) continue;
        for (const m of cleaned.matchAll(rule.pattern)) {
          // foreign.py: the line a match ends on
          let lineEnd = cleaned.indexOf("\n", Math.max(m.index, m.index + m[0].length - 1));
          if (lineEnd === -1) lineEnd = cleaned.length;
          if (best === null || lineEnd > best[0]) best = [lineEnd, rule.source, rule.reason, rule.id, m.index];
        }
      }
      return best;
    }

    /** Whether start opens the message of a "SomeError: message" line (match.py: _after_exception_type). */
    afterExceptionType(cleaned, start) {
      const lineStart = start === 0 ? 0 : cleaned.lastIndexOf("\n", start - 1) + 1;
      return this.rules.exceptionPrefix.test(cleaned.slice(lineStart, start));
    }

    /** Whether [start, end) lies within the SomeError of a "SomeError: message" line (match.py: _inside_type_name). */
    insideTypeName(cleaned, start, end) {
      if (end <= start) return false;
      const lineStart = start === 0 ? 0 : cleaned.lastIndexOf("\n", start - 1) + 1;
      let lineEnd = cleaned.indexOf("\n", start);
      if (lineEnd === -1) lineEnd = cleaned.length;
      const line = cleaned.slice(lineStart, lineEnd);
      const colon = line.indexOf(":");
      if (colon === -1 || end > lineStart + colon + 1) return false; // the type's colon may come with it
      const found = this.rules.exceptionLine.exec(pyStrip(line));
      // the repr form, SomeError('...'): the type ends where its bracket opens (match.py)
      if (found !== null && found[4] !== undefined) return start < lineStart + line.indexOf("(");
      return found !== null;
    }

    /** match.py _named_otherwise(): the paste names a type right before m's words that none of its problem's errors has. */
    namedOtherwise(cleaned, m) {
      const named = this.rules.typeRightBefore.exec(cleaned.slice(cleaned.lastIndexOf("\n", m.start - 1) + 1, m.start));
      if (named === null) return false;
      const types = new Set([m.error, m.current || m.error, ...(m.also || [])].map((e) => e.exception.split(".").pop().toLowerCase()));
      return !types.has(named[1].toLowerCase());
    }

    /** foreign.py raising_frame(): [the frame, its code line] right above the last exception. */
    raisingFrame(cleaned, last) {
      if (last === null) return null;
      let frame = null;
      for (const m of cleaned.matchAll(this.rules.frame)) frame = m;
      if (frame === null || frame.index + frame[0].length > last[0]) return null;
      // (the frame line may end in spaces, a terminal's width)
      const between = cleaned.slice(frame.index + frame[0].length, last[0]).replace(/^[ \t]+/, "").replace(/^\n+|\n+$/g, "").split("\n");
      return between.length > 3 ? null : [frame, between[0]];
    }

    /** [start, end] of the last exception's message when the traceback's innermost frame, right above it, is another package's (match.py: _raised_outside_vllm). */
    raisedOutsideVllm(cleaned, frames, last) {
      if (last === null) return this.cutAtAnothersRaise(cleaned, frames);
      const raising = frames.length ? this.raisingFrame(cleaned, last) : null;
      // match.py: another package's code, or any package's own raise or assert that writes the message there
      if (raising === null || (this.foreignFrame(frames, false) === null
          && !(this.foreignFrame(frames) !== null && atStart(this.rules.writesItsMessage, raising[1])))) return null;
      let lineEnd = cleaned.indexOf("\n", last[0]);
      if (lineEnd === -1) lineEnd = cleaned.length;
      const colon = cleaned.slice(last[0], lineEnd).indexOf(": ");
      if (colon === -1) return null;
      return [last[0] + colon + 2, last[0] + colon + 4, lineEnd];
    }

    /** match.py _cut_at_anothers_raise(): a traceback cut after another package's raise line, with no exception line: [line start, message start, line end]. */
    cutAtAnothersRaise(cleaned, frames) {
      if (!frames.length || this.foreignFrame(frames) === null) return null;
      let frame = null;
      for (const m of cleaned.matchAll(this.rules.frame)) frame = m;
      if (frame === null) return null;
      const frameEnd = frame.index + frame[0].length;
      const lines = cleaned.slice(frameEnd).replace(/^\n+|\n+$/g, "").split("\n");
      if (lines.length > 2 || (lines.length === 2 && lines[1].replace(/[ ^~]/g, ""))) return null;
      this.rules.writesItsMessage.lastIndex = 0;
      const written = this.rules.writesItsMessage.exec(lines[0]);
      if (written === null) return null;
      const start = cleaned.indexOf(lines[0], frameEnd);
      return [start, start + written[0].length, start + lines[0].length];
    }

    foreignFrame(frames, anyPackage = true) {
      if (!frames.length) return null;
      const path = frames[frames.length - 1][0].replace(/\\/g, "/");
      for (const pkg of this.rules.foreignPackages) {
        if (path.includes("/" + pkg + "/") && !path.includes("/vllm/")) {
          return [0, pkg, pyFormat(this.rules.foreignFrameReason, { package: pkg, file: path.slice(path.lastIndexOf("/") + 1) }), this.rules.unmatched.id, 0];
        }
      }
      // any other installed package (foreign.py: SITE_PACKAGE)
      const found = anyPackage ? Array.from(path.matchAll(this.rules.sitePackage), (m) => m[1]) : [];
      if (found.length && found[found.length - 1] !== "vllm") {
        const pkg = found[found.length - 1];
        return [0, pkg, pyFormat(this.rules.foreignFrameReason, { package: pkg, file: path.slice(path.lastIndexOf("/") + 1) }), this.rules.unmatched.id, 0];
      }
      return null;
    }

    /** foreign.py frame_outside_vllm(): the innermost frame is in no file of vLLM's, nor Python's made-up "<...>";
     *  not under an exception of vLLM's own types. */
    frameOutsideVllm(frames, last) {
      if (!frames.length || (last !== null && this.ownTypeNames().has(fromSlots(last[1])))) return null;
      const path = frames[frames.length - 1][0].replace(/\\/g, "/");
      if (path.toLowerCase().includes("vllm") || path.startsWith("<")) return null;
      const tail = path.split("/").slice(-3).join("/");
      return [0, this.rules.outsideFrameSource, pyFormat(this.rules.outsideFrameReason, { file: tail }), this.rules.unmatched.id, 0];
    }

    /** The package whose module the last exception's type is in (foreign.py: foreign_exception_type). */
    foreignExceptionType(cleaned, last) {
      if (last === null) return null;
      let lineEnd = cleaned.indexOf("\n", last[0]);
      if (lineEnd === -1) lineEnd = cleaned.length;
      const line = pyStrip(cleaned.slice(last[0], lineEnd));
      const found = this.rules.qualifiedException.exec(line);
      if (found === null || this.rules.notAPackage.includes(found[1])) return null;
      const type = line.slice(0, found[0].length);
      return [0, found[1], pyFormat(this.rules.exceptionTypeReason, { type, package: found[1] }), this.rules.unmatched.id, 0];
    }

    /** match.py raise_at_the_end(): [where, type] of the raise line a paste ends with, under its last frame. */
    raiseAtTheEnd(cleaned) {
      const offset = Math.max(0, cleaned.length - this.rules.raiseTailChars);
      const found = this.rules.raiseAtTheEnd.exec(cleaned.slice(offset));
      if (found === null) return null;
      let type;
      let where;
      if (found[1] === undefined) {
        // an assert's line: only one with a message (match.py: _assert_has_message)
        if (!assertHasMessage(found[2])) return null;
        type = "AssertionError";
        where = offset + found.index + found[0].indexOf("\n") + 1;
        while (cleaned[where] === " " || cleaned[where] === "\t") where++;
      } else {
        const name = found[1].split(".");
        type = name[name.length - 1];
        where = offset + found.index + found[0].indexOf("raise " + found[1]);
      }
      // ... or a line after it that starts that type's name, cut (match.py)
      if (found[3] !== undefined) {
        const cut = found[3].split(".");
        if (!type.startsWith(cut[cut.length - 1])) return null;
      }
      return [where, type];
    }

    /** match.py own_types: the names of the exception types vLLM defines (not Python's). */
    ownTypeNames() {
      if (this.ownTypes === undefined) {
        const builtin = new Set(this.rules.unmatched.builtinExceptions);
        this.ownTypes = new Set(this.errors.filter((e) => ["raise", "assert", "response"].includes(e.kind) && !builtin.has(e.exception))
          .map((e) => e.exception));
      }
      return this.ownTypes;
    }

    /** foreign.py unmatched_exception(): the last exception, when a message of its own no release of vLLM writes says it is not vLLM's. */
    unmatchedException(cleaned, last) {
      if (last === null) return null;
      if (this.ownTypeNames().has(fromSlots(last[1]))) return null;
      let lineEnd = cleaned.indexOf("\n", last[0]);
      if (lineEnd === -1) lineEnd = cleaned.length;
      const line = pyStrip(cleaned.slice(last[0], lineEnd));
      const colon = line.indexOf(":");
      const message = colon === -1 ? "" : line.slice(colon + 1);
      if ((message.match(this.rules.messageWord) || []).length < 2) return null;
      let frame = null;
      for (const m of cleaned.slice(0, last[0]).matchAll(this.rules.frame)) frame = m;
      const u = this.rules.unmatched;
      if (frame !== null && frame[1].replace(/\\/g, "/").includes("vllm/")) {
        // Python's own exception on a line of vLLM's that neither raises nor calls a kernel (foreign.py)
        const raising = this.raisingFrame(cleaned, last);
        if (raising === null || raising[0].index !== frame.index || !u.builtinExceptions.includes(fromSlots(last[1]))
            || !this.rules.codeWord.test(raising[1]) || this.rules.raisesOrCallsAKernel.test(raising[1])) return null;
        const path = frame[1].replace(/\\/g, "/");
        return [0, u.source, pyFormat(u.pythonOnVllmsLineReason, { type: fromSlots(last[1]), file: path.slice(path.lastIndexOf("/") + 1), line: frame[2] }), u.id, 0];
      }
      return [0, u.source, pyFormat(u.reason, { type: fromSlots(last[1]) }), u.id, 0];
    }

    /** match.py _may_raise_in(): whether some release raises (or logs) in fn of path (vllm/...), or none has the file. */
    mayRaiseIn(path, fn) {
      return !this.paths.has(path) || this.byLocation.has(path + "\u0000" + fn)
        || (this.functionsBefore.has(path) && this.functionsBefore.get(path).has(fn));
    }

    /** foreign.py raise_vllm_never_wrote(): the last exception, raised by its type's name on the traceback's last
     * frame's line, in a vLLM file's function where no release raises: a fork's copy of the file. */
    raiseVllmNeverWrote(cleaned, last) {
      const raising = this.raisingFrame(cleaned, last);
      if (raising === null) return null;
      const [frame, code] = raising;
      const path = fromSlots(frame[1]).replace(/\\/g, "/");
      const at = path.lastIndexOf("vllm/");
      const found = this.rules.raiseOfAType.exec(code);
      const type = fromSlots(last[1]);
      if (at === -1 || found === null || found[1] !== type.slice(type.lastIndexOf(".") + 1)) return null;
      const fn = fromSlots(frame[3]).slice(fromSlots(frame[3]).lastIndexOf(".") + 1);
      if (this.mayRaiseIn(path.slice(at), fn)) return null;
      const u = this.rules.unmatched;
      return [0, u.forkRaiseSource, pyFormat(u.forkRaiseReason, { function: fn, file: path.slice(at), type }), u.id, 0];
    }

    /** foreign.py unmatched_line(): when nothing else told the paste, its last error line, which no release of vLLM writes. */
    unmatchedLine(cleaned, last) {
      let found = null;
      let start = 0;
      for (const line of cleaned.split("\n")) {
        if (this.rules.errorLine.test(line) && (line.match(this.rules.messageWord) || []).length >= this.rules.unmatchedLine.lineWords
            && !this.rules.frameOnce.test(line) && !this.rules.exceptionLine.test(pyStrip(line))) found = [start, start + line.length];
        start += line.length + 1;
      }
      if (found === null) return null;
      let frame = null;
      for (const m of cleaned.matchAll(this.rules.frame)) frame = m;
      if (frame !== null && frame[1].replace(/\\/g, "/").includes("vllm/")) {
        // foreign.py: but not the line V0 logged above the traceback it printed, the paste cut inside it
        this.rules.loggedAboveTraceback.lastIndex = found[1];
        if (!this.rules.loggedAboveTraceback.test(cleaned) || (last !== null && last[0] > found[1])) return null;
        const x = this.rules.unmatched;
        return [found[1], x.source, pyFormat(x.reason, { type: "exception" }), x.id, found[0]];
      }
      const u = this.rules.unmatchedLine;
      return [found[1], u.source, u.reason, u.id, found[0]];
    }

    /** match.py _raised_from_it(): vLLM's raise m, shown whole above the foreign error, was raised from it. */
    raisedFromIt(m, cleaned, at, lineEnd) {
      if (m.error.kind === "log" || m.score < this.rules.sure || m.end > at) return false;
      const chained = this.rules.chained;
      chained.lastIndex = lineEnd;
      if (!chained.test(cleaned)) return false;
      let frame = null;
      for (const f of cleaned.slice(0, at).matchAll(this.rules.frame)) frame = f;
      if (frame === null || frame.index < m.end) return false;
      const relative = vllmRelative(fromSlots(frame[1]));
      if (relative === null) return false;
      const problemOf = (id) => (this.groups.has(id) ? this.groups.get(id) : id);
      const problem = problemOf(m.error.id);
      return (this.byLocation.get(relative + "\u0000" + fromSlots(frame[3])) || []).some((n) => problemOf(this.errors[n].id) === problem);
    }

    /** foreign.py foreign_call(): vLLM's innermost frame calls another package on a line that is no raise. */
    foreignCall(cleaned, last) {
      const raising = this.raisingFrame(cleaned, last);
      if (raising === null || !raising[0][1].replace(/\\/g, "/").includes("vllm/")) return null;
      const [frame, code] = raising;
      const found = this.rules.foreignCall.exec(code);
      if (found === null) return null;
      const pkg = found[1] === "np" ? "numpy" : found[1];
      const path = fromSlots(frame[1]).replace(/\\/g, "/");
      return [0, pkg, pyFormat(this.rules.foreignCallReason, { file: path.slice(path.lastIndexOf("/") + 1), line: frame[2], package: pkg }), this.rules.unmatched.id, 0];
    }

    // --- querying ---

    lookup(text, top) {
      resetSlots();
      // match.py: what reads the paste's end reads it before the person's question (clean.py without_closing_words)
      const given = withoutClosingWords(String(text), this.rules);
      return this.lookupCleaned(this.cleanPaste(given), top, given);
    }

    /** match.py _as_typed(): the cleaning left the paste's words as given (took no log prefix off); once per paste. */
    asTyped(cleaned) {
      if (this.typed === null) {
        const words = pySplit(untypeset(toSlots(this.raw), this.rules)), own = pySplit(cleaned);
        this.typed = words.length === own.length && words.every((word, i) => word === own[i]);
      }
      return this.typed;
    }

    /** match.py unmatched_vllm_log_line(): the paste's last line with vLLM's log header at warning level or above
     * (read from raw, the paste as given), whose words no release logs, placed in cleaned; not under vLLM's frame. */
    unmatchedVllmLogLine(raw, cleaned) {
      let found = null;
      for (const m of this.asGiven(raw).matchAll(this.rules.vllmLogLine)) found = m;
      if (found === null) return null;
      const message = pyStrip(toSlots(found[1]));
      const u = this.rules.unmatchedLine;
      if ((message.match(this.rules.messageWord) || []).length < u.lineWords) return null;
      return this.linePlaced(message, cleaned, u.vllmLogLineSource, u.vllmLogLineReason);
    }

    /** match.py _line_placed(): a line read from the paste as given, at its place in cleaned; not under vLLM's frame. */
    linePlaced(message, cleaned, source, reason) {
      let frame = null;
      for (const m of cleaned.matchAll(this.rules.frame)) frame = m;
      if (frame !== null && frame[1].replace(/\\/g, "/").includes("vllm/")) return null;
      const at = cleaned.lastIndexOf(message.slice(0, this.rules.unmatchedLine.vllmLogLineHead));  // slot form: one unit a code point
      if (at === -1) return null;
      const end = cleaned.indexOf("\n", at);
      return [end === -1 ? cleaned.length : end, source, reason, this.rules.unmatchedLine.id, at];
    }

    /** match.py unmatched_process_line(): the paste's last line (read from raw, the paste as given) is a sentence
     * a library printed in one of vLLM's processes, with no log header; placed in cleaned; not under vLLM's frame. */
    unmatchedProcessLine(raw, cleaned) {
      const tail = this.asGiven(raw).replace(PY_SPACE_TAIL, "");
      const found = this.rules.processLine.exec(tail.slice(tail.lastIndexOf("\n") + 1));
      if (found === null) return null;
      const message = pyStrip(toSlots(found[1]));
      const u = this.rules.unmatchedLine;
      if ((message.match(this.rules.messageWord) || []).length < u.lineWords || this.rules.exceptionLine.test(message)
          || message.endsWith(":")) return null;
      return this.linePlaced(message, cleaned, u.processLineSource, u.processLineReason);
    }

    /** match.py unmatched_anothers_line(): the paste's last line (read from raw) opens with another program's log
     * header: that program wrote it; placed in cleaned; not under vLLM's frame. */
    unmatchedAnothersLine(raw, cleaned) {
      const tail = this.asGiven(raw).replace(PY_SPACE_TAIL, "");
      const line = tail.slice(tail.lastIndexOf("\n") + 1);
      const pattern = this.rules.anothersLogLine;
      pattern.lastIndex = 0;
      const header = pattern.exec(line);
      if (header === null) return null;
      const message = pyStrip(toSlots(line.slice(header[0].length)));
      const u = this.rules.unmatchedLine;
      if ((message.match(this.rules.messageWord) || []).length < u.lineWords) return null;
      return this.linePlaced(message, cleaned, u.anothersLineSource, u.anothersLineReason);
    }

    /** foreign.py unmatched_unnamed(): a paste that names vLLM nowhere (in raw, the paste as given, or a frame), judged
     * by its last line of words, when that is no exception's and names something of code. */
    unmatchedUnnamed(raw, cleaned) {
      const rules = this.rules;
      if (rules.namesVllm.test(raw) || cleaned.search(rules.frame) !== -1) return null;
      const u = rules.unmatchedLine;
      const lines = cleaned.split("\n");
      let end = cleaned.length;
      for (let i = lines.length - 1; i >= 0; i--) {
        const line = lines[i];
        const start = end - line.length;
        if ((line.match(rules.messageWord) || []).length >= u.lineWords) {
          if (rules.exceptionLine.test(pyStrip(line)) || !rules.codeName.test(line) || !readsAsText(line, u.unnamedLineChars)) return null;
          return [end, u.unnamedSource, u.unnamedReason, u.id, start];
        }
        end = start - 1;
      }
      return null;
    }

    /** match.py _as_given(): the paste's end as given, for its log headers: no colours, no-break spaces as
     *  spaces, no Markdown code fence's line, no container's or reply's prefixes (clean.py without_outer_prefixes). */
    asGiven(raw) {
      // (three last-resort rules ask for the same paste's: read once)
      if (this.givenOf === raw) return this.given;
      const rules = this.rules;
      const given = raw.slice(-rules.logHeaderTail).replace(rules.ansi, "").replace(rules.webSpace, " ");
      this.given = given.split("\n").filter((line) => !rules.codeFence.test(line)).map((line) => withoutOuterPrefixes(line, rules)).join("\n");
      this.givenOf = raw;
      return this.given;
    }

    /** match.py _logged_there(): the error log the paste's log header names, when one problem is logged there. */
    // match.py _candidates(): of the messages' entries (or of the reasons', from reasonsAt on),
    // those of which a fair share of grams occur, best share first
    candidates(counts, reasons) {
      const rules = this.rules, entries = this.entries, at = this.reasonsAt;
      const ranked = [];
      for (const [e, n] of counts) {
        if ((e >= at) !== reasons) continue;
        if (n * rules.candidateShare >= entries[e].grams || n >= rules.candidateGrams) ranked.push([-n / entries[e].grams, -n, e]);
      }
      ranked.sort(compareTuples);
      return ranked.slice(0, rules.maxCandidates).map((r) => r[2]).concat(this.short.filter((e) => (e >= at) === reasons));
    }

    // match.py _found(): error number -> its best match among the candidate entries
    found(candidates, flat, origin, cleaned, last) {
      const results = new Map();
      for (const number of candidates) {
        const found = this.verify(number, flat, origin, cleaned, last);
        if (found === null) continue;
        const entry = this.entries[number];
        found.reason = !!entry.reason;
        const previous = results.get(entry.error);
        if (previous === undefined || compareTuples(found.rankKey, previous.rankKey) > 0) results.set(entry.error, found);
      }
      return results;
    }

    loggedThere(raw) {
      // match.py: a native library's backtrace with no Python traceback is none that logger.exception printed
      const tail = raw.slice(-this.rules.logHeaderTail);
      if (this.rules.nativeBacktrace.test(tail) && !this.rules.tracebackShown.test(tail)) return [];
      const found = Array.from(tail.replace(this.rules.ansi, "").replace(this.rules.webSpace, " ").matchAll(this.rules.logHeader));
      for (let i = found.length - 1; i >= 0; i--) {
        const errors = this.loggedAt.get(found[i][1] + ":" + found[i][2]) || [];
        const problems = new Set(errors.map((e) => (this.groups.has(e.id) ? this.groups.get(e.id) : e.id)));
        if (problems.size !== 1) continue;
        let newest = errors[0];
        for (const e of errors) if (e.newest > newest.newest) newest = e;
        return this.onePerProblem([new Match(this.rules, newest, { start: 0, frame: true })]);
      }
      return [];
    }

    /** lookup() of a paste already cleaned (cleanPaste), in slot form; ``raw``: the paste as given. */
    /** foreign.py traceback_frames(): standard frames and IPython's, in the order of the paste. */
    tracebackFrames(cleaned) {
      const placed = [];
      for (const m of cleaned.matchAll(this.rules.frame)) placed.push([m.index, fromSlots(m[1]), fromSlots(m[3])]);
      for (const m of cleaned.matchAll(this.rules.notebookFrame)) placed.push([m.index, fromSlots(m[1]), fromSlots(m[2])]);
      placed.sort((x, y) => x[0] - y[0]);
      return placed.map(([, path, fn]) => [path, fn]);
    }

    lookupCleaned(cleaned, top, raw) {
      if (top === undefined) top = 5;
      this.raw = raw === undefined ? fromSlots(cleaned) : raw; // match.py: the paste as given (_as_typed)
      this.typed = null; // match.py _as_typed(): read only when a title's rule needs it
      this.quoted = null; // match.py _quoted_part(): the quoted words, read once, when a message needs them
      const rules = this.rules;
      const [flat, origin] = squash(cleaned, rules);
      if (!flat) return { matches: [], not_vllm: null, releases: null };
      const last = this.lastException(cleaned);
      const frames = this.tracebackFrames(cleaned);

      const g = rules.gram;
      const seen = new Set();
      const counts = new Map();
      for (let i = 0; i + g <= flat.length; i++) {
        const gram = flat.slice(i, i + g);
        if (seen.has(gram)) continue;
        seen.add(gram);
        const list = this.index.get(gram);
        if (!list) continue;
        for (const e of list) counts.set(e, (counts.get(e) || 0) + 1);
      }
      // a title or a bare line often leaves out the message's closing full stop
      const addGram = (gram) => {
        if (seen.has(gram)) return;
        seen.add(gram);
        const list = this.index.get(gram);
        if (list) for (const e of list) counts.set(e, (counts.get(e) || 0) + 1);
      };
      if (flat.length >= g && !flat.endsWith(".")) addGram(flat.slice(flat.length - g + 1) + ".");
      // ... and a title that goes on in its own words, the full stop of the first sentence it quotes,
      // at a word's end on its first line (match.py)
      const firstLine = cleaned.indexOf("\n");
      for (const end of origin.starts) {
        if (end < g - 1) continue;
        if (end > rules.titleStops || (firstLine !== -1 && origin.get(end - 1) >= firstLine)) break;
        if (flat[end - 1] !== ".") addGram(flat.slice(end + 1 - g, end) + ".");
      }
      let results = this.found(this.candidates(counts, false), flat, origin, cleaned, last);
      if (results.size === 0) {
        // no message matched: the paste may quote a reason one gives, alone, whole (match.py)
        results = this.found(this.candidates(counts, true), flat, origin, cleaned, last);
        for (const [number, found] of results) if (found.score < rules.sure) results.delete(number);
      }
      this.carriedBy(results, cleaned, last);
      this.frameBonus(results, frames, last, cleaned);
      if (results.size === 0) this.typeAlone(results, cleaned);
      // a logged message is no exception's message (match.py: _after_exception_type)
      // ... nor is a line that another program logged (match.py: _on_anothers_log_line)
      const readable = Array.from(results.values()).filter(
        (m) => !(m.error.kind === "log" && this.afterExceptionType(cleaned, m.start)) && (m.frame || !this.rules.pythonsOwn.test(m.error.template))
          // match.py PYTHON_WROTE: a line of the paste in Python's own words ("module 'x' has no attribute 'y'")
          && (m.frame || !pythonWrote(cleaned, m.start, this.rules))
          && (m.frame || !onAnothersLogLine(cleaned, m.start, this.rules, m.error))
          // match.py _in_a_response_body(): a client's error body holds no line vLLM logged
          && (m.frame || m.error.kind !== "log" || !inAResponseBody(cleaned, m.start, this.rules))
          // match.py _goes_on_after_a_stock_phrase(): "An unexpected error occurred: <another program's words>"
          && (m.frame || !goesOnAfterAStockPhrase(cleaned, m, this.rules)),
      );
      // match.py _inside_words(): a message that starts inside the words of another the paste shows
      // whole, or of a near one that shows OUTWEIGHS times as much
      // ... and the raising frame does not keep a message that a longer one grew from, where the
      // paste goes on in the longer one's words (match.py _grown_past)
      const found = readable.filter((m) => m.frame ? !readable.some((other) => grownPast(m, other, rules)) : !readable.some((other) =>
        other !== m && other.start <= m.start && m.start < other.end
        && ((other.start < m.start && other.score >= rules.sure && other.coverage >= rules.sure
            // match.py _only_a_value_before(): not where the other opens with a value and shows only punctuation before m, or fewer words
            && !(opensWithHole(other.form || other.error.template, rules)
              && (other.matched < m.matched || !/[A-Za-z0-9]/.test(cleaned.slice(other.start, m.start)))))
          || (nearlyWhole(other, rules) && other.matched >= rules.outweighs * m.matched)
          || (other.start === m.start && nearlyWhole(other, rules) && other.matched > m.matched
            && grewFrom(other.error.template, m.error.template, rules)))
        && !other.valueSpans.some(([a, b]) => a <= m.start && m.start < b)));
      for (const outer of found) {
        // ... or, when the outer says it wraps another error, run on past the value's end as read
        const wraps = this.rules.wrapper.test(outer.error.template);
        // a report whose value is the original error wraps it where it is repeated whole elsewhere too (match.py)
        const points = this.rules.pointsToItsValue.test(outer.error.template);
        // ... or the paste stops in the value it opens, which holds the inner error on its line (match.py)
        const spans = outer.valueSpans.slice();
        if (outer.openValue || outer.valueToLineEnd) {
          const openTo = cleaned.indexOf("\n", outer.end);
          spans.push([outer.end, openTo === -1 ? cleaned.length : openTo]);
        }
        outer.wrapper = spans.some(([a, b]) =>
          found.some((inner) => inner !== outer && ((a <= inner.start && inner.start < b && (inner.end <= b || wraps || !pyStripChars(cleaned.slice(b, inner.end), " \t.,;:!")))
            || (points && quotedWhole(cleaned, inner, a, b, this.rules)))
            && inner.score >= rules.sure && inner.coverage >= rules.sure
            // match.py: a short message only as the whole of a wrapper's value
            && (inner.matched >= rules.minMatched || (wraps && wholeValue(cleaned, inner, a, b)))),
        );
      }
      for (const m of found) m.lineageNewest = this.problemOf(m.error)[1].newest;
      // sorted(reverse=True) is stable: equal keys keep their order
      let best = this.onePerProblem(
        failureUnderItsLog(
          failureBeforeItsReport(
            lastOfWarnings(
              failureBeforeWarnings(
                found
                  .map((match) => [match, match.rankKey])
                  .sort((x, y) => compareTuples(y[1], x[1]))
                  .map((pair) => pair[0]),
                rules,
              ),
              cleaned,
              rules,
            ),
            rules,
          ),
          cleaned,
          rules,
        ),
      );
      // match.py: the problem's other wordings the paste shows as exactly witness its release too
      for (const m of best) {
        if (m.verdict !== "exact") continue;
        const key = this.problemOf(m.error)[0];
        m.wordedAs = Array.from(results.values()).filter((r) => r !== m && r.verdict === "exact"
          && r.score === m.score && this.problemOf(r.error)[0] === key).map((r) => r.error);
      }
      const raisedBy = this.raisedOutsideVllm(cleaned, frames, last);
      // ... nor a near match later on its line (match.py)
      if (raisedBy !== null)
        best = best.filter(
          (m) => m.frame || !((raisedBy[0] <= m.start && m.start <= raisedBy[1]) || (raisedBy[0] <= m.start && m.start <= raisedBy[2] && m.missing)
            // a message that opens with a value starts where its value does (match.py)
            || (opensWithHole(m.error.template, rules) && raisedBy[0] <= valueStart(cleaned, cleaned.slice(0, m.start).replace(/[ \t]+$/, "").length)
                && valueStart(cleaned, cleaned.slice(0, m.start).replace(/[ \t]+$/, "").length) <= raisedBy[1])),
        );

      // Warnings logged above the last exception did not stop vLLM: told as if nothing matched.
      const warnedOnly = last !== null && best.length > 0 && best.every(
        (m) => !m.frame && m.error.kind === "log" && m.error.exception.toUpperCase() === "WARNING" && m.end <= last[0]);
      // match.py: near matches raised with a type no release of theirs raises them with are
      // another program's copy of the words, told as if nothing had matched
      const retyped = best.length > 0 && best.every((m) => m.verdict !== "exact" && !m.frame && this.namedOtherwise(cleaned, m));
      // a reason a message gives, matched alone, is weaker than any rule that tells another
      // program's error: told as if nothing had matched, listed after (match.py)
      const reasonsOnly = best.length > 0 && best.every((m) => m.reason);
      const quiet = !best.length || warnedOnly || retyped || reasonsOnly;
      // match.py reported_above: vLLM's report of a failure logged above its traceback says
      // nothing of the cause: the weak foreign rules tell the error the traceback ends on too
      const reportedAbove = last !== null && best.length > 0 && best.every(
        (m) => !m.frame && m.error.kind === "log" && rules.wrapper.test(m.error.template) && m.end <= last[0]);
      let foreign = this.notVllm(cleaned, quiet || reportedAbove) || (quiet ? this.foreignFrame(frames) || this.foreignExceptionType(cleaned, last) || this.foreignCall(cleaned, last) || this.unmatchedException(cleaned, last)
        || this.raiseVllmNeverWrote(cleaned, last) : null);
      // match.py: vLLM only reported a failure whose root cause lies above: an exception above
      // the report, told as not vLLM's as if nothing had matched, is the failure
      if (foreign === null && best.length && best.every((m) => rules.reportsAbove.test(m.error.template) && !m.frame)) {
        let above = cleaned.slice(0, cleaned.lastIndexOf("\n", Math.min(...best.map((m) => m.start)) - 1) + 1);
        let lastAbove = this.lastException(above);
        // ... above its copies: a copy of the report is the report again, not the failure
        const reports = best.map((m) => cleaned.slice(m.start, m.end).split("\n", 1)[0].trim());
        while (lastAbove !== null && reports.some((r) => above.slice(lastAbove[0]).split("\n", 1)[0].includes(r))) {
          above = above.slice(0, lastAbove[0]);
          lastAbove = this.lastException(above);
        }
        if (lastAbove !== null) {
          foreign = this.notVllm(above, true) || this.foreignFrame(this.tracebackFrames(above)) || this.foreignExceptionType(above, lastAbove)
            || this.foreignCall(above, lastAbove) || this.unmatchedException(above, lastAbove) || this.raiseVllmNeverWrote(above, lastAbove);
        }
      }
      if (foreign === null) {
        if (!best.length && raw !== undefined) best = this.loggedThere(raw);
        if (!best.length) foreign = this.unmatchedLine(cleaned, last) || (raw !== undefined ? this.unmatchedVllmLogLine(raw, cleaned) || this.unmatchedProcessLine(raw, cleaned)
        || this.unmatchedAnothersLine(raw, cleaned) || this.unmatchedUnnamed(raw.slice(-this.rules.logHeaderTail), cleaned) : null)
          || this.frameOutsideVllm(frames, last);
      }
      if (foreign === null) {
        return { matches: best.slice(0, top).map((m) => m.toJSON()), not_vllm: null, releases: this.releasesOf(cleaned, frames, best.slice(0, top)) };
      }
      const [lineEnd, source, reason, foreignId, at] = foreign;
      const info = this.foreignInfo(source, reason, foreignId, frames);
      // which line was judged (match.py)
      if (foreignId === rules.unmatchedLine.id) info.line = fromSlots(pyStrip(cleaned.slice(at, lineEnd)).slice(0, rules.unmatchedLine.shownChars));
      const quotesIt = (m) => {
        if (m.score < rules.sure) return false; // a near match on the foreign error's line is no message of vLLM's (match.py)
        if ((m.start < at || (m.start === at && (m.exceptionAgrees || m.carried) && (m.end >= lineEnd || rules.endsInAValue.test(m.error.template)))) && (m.valueSpans.some(([a, b]) => a <= at && at < b) || !cleaned.slice(Math.min(m.end, at), at).includes("\n") || (m.openValue && continues(cleaned, m.end, at, rules)))) return true;
        // ... or in another copy of the vLLM message (match.py: quotes_it)
        const head = pyStrip(cleaned.slice(m.start, Math.min(...m.valueSpans.map(([a]) => a), m.end)));
        if (head.length >= rules.quoteHead && cleaned.slice(cleaned.lastIndexOf("\n", at - 1) + 1, at).includes(head)) return true;
        // ... or it quotes another copy of the foreign error (match.py)
        const quoted = pyStrip(cleaned.slice(at, lineEnd)).replace(/^['"`]+|['"`]+$/g, ""); // a value's span leaves out its quotes
        return quoted.length >= rules.quoteHead && m.valueSpans.some(([a, b]) => cleaned.slice(a, b).includes(quoted));
      };
      // a foreign error vLLM only warned about did not stop it (match.py)
      const warned = best.some((m) => m.error.kind === "log" && m.error.exception.toUpperCase() === "WARNING" && quotesIt(m));
      const kept = best.filter(
        (m) =>
          m.frame ||
          quotesIt(m) ||
          this.raisedFromIt(m, cleaned, at, lineEnd) ||
          wrappedByIt(m, cleaned, at, rules) ||
          (!rules.wrapper.test(m.error.template) &&
            m.start > lineEnd &&
            (m.error.kind !== "log" || (warned && ["ERROR", "CRITICAL"].includes(m.error.exception.toUpperCase())))),
      );
      // ... nor vLLM's report that the root cause lies elsewhere, though its raise is the last frame (match.py)
      // near matches of another type are listed, as near; the foreign error is the answer (match.py)
      info.role = !retyped && kept.some((m) => !m.reason && (m.error.kind !== "log" || (warned && m.start > lineEnd))
        && !(rules.reportsAbove.test(m.error.template) && lineEnd <= m.start)
        // ... nor a report whose value is the original error (match.py)
        && !(rules.pointsToItsValue.test(m.error.template) && quotesIt(m))) ? "cause" : "answer";
      // the other program's error only carries vLLM's: no cause of it (match.py)
      if (info.role === "cause" && wrappedByIt(kept[0], cleaned, at, rules)) info.role = "wrapper";
      return { matches: kept.slice(0, top).map((m) => m.toJSON()), not_vllm: info, releases: this.releasesOf(cleaned, frames, kept.slice(0, top)) };
    }

    verify(number, flat, origin, cleaned, last) {
      const entry = this.entries[number];
      let best = null;
      let skipped = 0;
      for (let first = 0; first < Math.min(this.rules.anchors, entry.chunks.length); first++) {
        const anchor = entry.chunks[first];
        let start = pyFind(flat, anchor, 0);
        let tries = 0;
        while (start !== -1 && tries < this.rules.anchorTries) {
          tries += 1;
          let found = this.walk(entry, first, start, skipped, flat, origin, cleaned, last);
          // a type name is no message (match.py: _inside_type_name)
          if (found !== null && (this.insideTypeName(cleaned, found.start, found.end) || oneIdentifier(cleaned, found.start, found.end, found.error.template)
              || insidePath(cleaned, found.start, found.error.template))) found = null;
          if (found !== null && (best === null || compareTuples(found.rankKey, best.rankKey) > 0)) best = found;
          start = pyFind(flat, anchor, start + 1);
        }
        if (best !== null) break;
        skipped += anchor.length;
      }
      if (best === null && entry.segmentOf[0] === 0) {
        best = this.cutInOpening(entry, flat, origin, cleaned, last) || this.firstSentenceWithoutStop(entry, flat, origin, cleaned, last);
      }
      if (best === null && entry.literal >= this.rules.laterLeast + this.rules.minMatched) {
        best = this.laterSentence(entry, flat, origin, cleaned, last);
      }
      if (best === null && entry.literal >= this.rules.quotedLeast) {
        best = this.quotedPart(entry, cleaned, last);
      }
      if (best === null && entry.literal >= this.rules.headCutLeast + this.rules.minMatched) {
        best = this.headCutOff(entry, flat, origin, cleaned, last);
      }
      if (best === null && entry.chunks.length > 1 && !entry.segmentOf[1]) {
        best = this.openingReworded(entry, flat, origin, cleaned, last);
      }
      return best;
    }

    /** match.py _opening_reworded(): the message's type, then its first words with a word left out, added or changed,
     * then the rest of it: partial. */
    openingReworded(entry, flat, origin, cleaned, last) {
      const rules = this.rules;
      const head = entry.exception + ":";
      const chunk = entry.chunks[0];
      let at = pyFind(flat, head, 0);
      while (at !== -1) {
        const begin = at + head.length;
        if (!(at > 0 && /^[A-Za-z0-9_]$/.test(flat[at - 1]))) {
          const start = pyFind(flat, entry.chunks[1], begin, begin + chunk.length + rules.window + entry.chunks[1].length);
          if (start > begin) {
            const changed = editDistance(flat.slice(begin, start), chunk, Math.floor(chunk.length * rules.rewordedShare));
            if (changed <= chunk.length * rules.rewordedShare) {
              const found = this.walk(entry, 1, start, changed, flat, origin, cleaned, last, false);
              if (found !== null && found.matched >= rules.minMatched) {
                found.matched += chunk.length - changed;
                found.missing = Math.max(found.missing, partialMissing(found.matched, rules.sure));
                found.coverage = found.matched / entry.literal;
                found.start = origin.get(begin);
                found.exceptionAgrees = true;
                return found;
              }
            }
          }
        }
        at = pyFind(flat, head, at + 1);
      }
      return null;
    }

    /** match.py _head_cut_off(): the paste's line begins inside the message, its opening cut off: the walk from the
     * first of its chunks found whole where a line begins, long enough, is a partial match. */
    headCutOff(entry, flat, origin, cleaned, last) {
      const chunks = entry.chunks, owners = entry.segmentOf;
      let before = chunks[0].length;
      let own = ""; // its segment's words before it
      for (let first = 1; first < chunks.length; first++) {
        const chunk = chunks[first];
        own = owners[first - 1] === owners[first] ? own + chunks[first - 1] : "";
        let at = pyFind(flat, chunk, 0);
        let tries = 0;
        while (at !== -1 && tries < this.rules.anchorTries) {
          tries += 1;
          const shown = this.cutHeadShown(cleaned, origin.get(at), own);
          if (shown !== null) {
            // (the words shown before the chunk count as found once: not again as a changed chunk's)
            const found = this.walk(entry, first, at, 0, flat, origin, cleaned, last, false, shown);
            if (found !== null && found.matched >= this.rules.headCutLeast) {
              found.missing += before - shown;
              return found;
            }
          }
          at = pyFind(flat, chunk, at + 1);
        }
        before += chunk.length;
      }
      return null;
    }

    /** match.py _cut_head_shown(): squashed characters of the words before a chunk that the line shows, when only
     * blanks, quote marks, an exception's type or an ellipsis lie before them; null otherwise. */
    cutHeadShown(cleaned, position, own) {
      const lineStart = position === 0 ? 0 : cleaned.lastIndexOf("\n", position - 1) + 1;
      const lead = cleaned.slice(lineStart, position);
      const rest = squashText(lead.slice(this.rules.headCutLead.exec(lead)[0].length), this.rules);
      return own.endsWith(rest) ? rest.length : null;
    }

    /** match.py _quoted_part(): words quoted from inside the message, whole between double quotes or backticks: partial. */
    quotedPart(entry, cleaned, last) {
      const rules = this.rules;
      if (this.quoted === null) {
        this.quoted = [];
        for (const found of cleaned.matchAll(rules.quotedPart)) {
          const part = squashText(found[1], rules);
          if (part.length >= rules.quotedLeast) this.quoted.push([found.index + 1, found.index + 1 + found[1].length, part]);
        }
      }
      let best = null;
      for (const [start, end, part] of this.quoted) {
        for (let segment = 0; segment <= entry.holes.length; segment++) {
          let text = "";
          for (let i = 0; i < entry.chunks.length; i++) if (entry.segmentOf[i] === segment) text += entry.chunks[i];
          if (!text.includes(part)) continue;
          if (best === null || part.length > best.matched) {
            const inLast = last !== null && start >= last[0];
            best = new Match(rules, this.errors[entry.error], {
              values: new Map(),
              start,
              end,
              matched: part.length,
              // match.py: partial, the words it leaves out and never fewer than a near match lacks
              missing: Math.max(entry.literal - part.length, partialMissing(part.length, rules.sure)),
              coverage: part.length / entry.literal,
              exceptionAgrees: inLast && lowerSlots(last[1]) === entry.exception,
              inLast,
              form: entry.form,
            });
          }
          break;
        }
      }
      return best;
    }

    /** match.py _later_sentence(): a later sentence of the message quoted on a line of its own (or after the type), its opening left out: partial. */
    laterSentence(entry, flat, origin, cleaned, last) {
      const rules = this.rules;
      const least = rules.laterLeast;
      let best = null;
      let before = 0;
      for (let segment = 0; segment <= entry.holes.length; segment++) {
        let text = "";
        for (let i = 0; i < entry.chunks.length; i++) if (entry.segmentOf[i] === segment) text += entry.chunks[i];
        for (let j = 1; j < text.length - least + 1; j++) {
          if (!(text[j - 1] === "." && /^\p{L}$/u.test(text[j])
                && ((j >= 2 && (/^\p{L}$/u.test(text[j - 2]) || text[j - 2] === ")" || text[j - 2] === "]")) || (j === 1 && segment > 0)))) continue;
          const run = text.slice(j);
          const head = run.slice(0, least);
          let at = pyFind(flat, head, 0);
          while (at !== -1) {
            const common = commonPrefix(flat, at, run);
            const position = origin.get(at);
            const lineStart = position === 0 ? 0 : cleaned.lastIndexOf("\n", position - 1) + 1;
            const lead = cleaned.slice(lineStart, position);
            if ((common === run.length || atLineEnd(cleaned, origin.get(at + common - 1) + 1))
                && (pyStripChars(squashText(lead, rules), ">*-") === "" || rules.exceptionPrefix.test(lead))
                && (best === null || common > best.matched)) {
              const inLast = last !== null && position >= last[0];
              best = new Match(rules, this.errors[entry.error], {
                values: new Map(),
                start: position,
                end: origin.get(at + common - 1) + 1,
                matched: common,
                missing: before + j,
                coverage: common / entry.literal,
                exceptionAgrees: inLast && lowerSlots(last[1]) === entry.exception,
                inLast,
                form: entry.form,
              });
            }
            at = pyFind(flat, head, at + 1);
          }
        }
        before += text.length;
      }
      return best;
    }

    /** match.py _first_sentence_without_stop(): the paste quotes the first sentence after its type, without its stop, where that sentence is the whole first chunk. */
    firstSentenceWithoutStop(entry, flat, origin, cleaned, last) {
      const rules = this.rules;
      const chunk = entry.chunks[0];
      // (match.py: a message of one chunk ends at its stop, after a number too)
      const whole = entry.chunks.length === 1 && chunk.endsWith(".");
      if (!(whole || sentenceEnds(chunk, chunk.length - 1)) || chunk.length - 1 < rules.minMatched) return null;
      const head = entry.exception + ":" + chunk.slice(0, -1);
      const at = pyFind(flat, head, 0);
      const typed = !(at === -1 || (at > 0 && /^[A-Za-z0-9_]$/.test(flat[at - 1]))); // not where another type's name ends
      let begin;
      let end;
      if (typed) {
        begin = at + entry.exception.length + 1;
        end = at + head.length;
      } else {
        // ... or after an issue title's tag, which stands for the type (match.py)
        begin = pyFind(flat, chunk.slice(0, -1), 0);
        if (begin === -1) return null;
        const lineStart = cleaned.lastIndexOf("\n", origin.get(begin) - 1) + 1;
        end = begin + chunk.length - 1;
        // ... or, for a whole message as long as an unnamed sentence needs, a line of its own (match.py)
        const alone = whole && chunk.length - 1 >= rules.unnamedLeast && !cleaned.slice(lineStart, origin.get(begin)).trim()
          && atLineEnd(cleaned, origin.get(end - 1) + 1);
        if (!(alone || atStart(rules.issueTag, cleaned.slice(lineStart, origin.get(begin))))) return null;
      }
      const after = origin.get(end - 1) + 1;
      if ((after < cleaned.length && /^[A-Za-z0-9]$/.test(cleaned[after])) // the paste's word goes on
          || laterWordsFollow(flat, origin, cleaned, end, entry.chunks.slice(1), false)) return null;
      return new Match(rules, this.errors[entry.error], {
        values: new Map(),
        start: origin.get(begin),
        end: after,
        matched: end - begin,
        coverage: (end - begin) / entry.literal,
        exceptionAgrees: typed,
        inLast: last !== null && origin.get(begin) >= last[0],
        form: entry.form,
      });
    }

    /** match.py _cut_in_opening(): the paste stops inside the message's first words, right after its type. */
    cutInOpening(entry, flat, origin, cleaned, last) {
      const rules = this.rules;
      const head = entry.exception + ":";
      const at = flat.lastIndexOf(head);
      if (at === -1 || (at > 0 && /^[A-Za-z0-9_]$/.test(flat[at - 1]))) return null; // another type's name ends there
      const begin = at + head.length;
      const shown = flat.slice(begin);
      if (!(rules.ellipsisLeast <= shown.length && shown.length < entry.chunks[0].length && entry.chunks[0].startsWith(shown)
            && cutInsideWord(cleaned, this.errors[entry.error].template, rules))) return null;
      return new Match(rules, this.errors[entry.error], {
        values: new Map(),
        start: origin.get(begin),
        end: origin.get(flat.length - 1) + 1,
        matched: shown.length,
        coverage: shown.length / entry.literal,
        exceptionAgrees: true,
        inLast: last !== null && origin.get(begin) >= last[0],
        form: entry.form,
      });
    }

    walk(entry, first, start, skipped, flat, origin, cleaned, last, leadBefore = true, credit = 0) {
      const rules = this.rules;
      const chunks = entry.chunks;
      const owners = entry.segmentOf;
      // match.py: its first word inside another's name ("self.packed_modules_mapping" holds no "Module '...'")
      if (first === 0 && !owners[0] && /^[A-Za-z0-9]/.test(chunks[0][0]) && inAName(cleaned, origin.get(start))) return null;
      let matched = chunks[first].length + credit; // (credit: the words before it shown, match.py _head_cut_off)
      let missing = skipped;
      let truncated = false;
      let openValue = false; // the paste stops inside a value vLLM's later words would close
      let valueToLineEnd = false; // ... or the match ends with a value, open or not (match.py: value_to_line_end)
      const bounds = new Array(chunks.length).fill(null);
      bounds[first] = [start, start + chunks[first].length];
      let pos = start + chunks[first].length;
      // match.py: the chunk before the anchor with a word changed counts its start and end found
      let reworded = false; // match.py: a chunk found with a small word inserted into it, or one left out: never exact
      const wordsLeftOut = entry.literal >= rules.leftOutLeast; // match.py: only in a message long enough
      if (first && owners[first - 1] === owners[first] && leadBefore) {
        const lead = chunkEndsAt(flat, start, chunks[first - 1], rules) ?? chunkWithSmallWordBefore(flat, start, chunks[first - 1], rules);
        const leftOut = lead === null && wordsLeftOut ? wordLeftOut(flat, start, this.wordsOf(entry)[first - 1], null, true, rules) : null;
        if (lead !== null) {
          bounds[first - 1] = [lead[0], start];
          matched += lead[1];
          if (lead[1] === chunks[first - 1].length && smallWordInserted(flat, lead[0], start, chunks[first - 1], rules)) {
            // match.py: every character of it, a small word among them: found, yet partial
            missing -= chunks[first - 1].length - Math.floor((start - lead[0] - chunks[first - 1].length) / 2);
            reworded = true;
          }
          start = lead[0];
        } else if (leftOut !== null) {
          // match.py: or with one of its words left out, right before the anchor: partial
          const shown = chunks[first - 1].length - leftOut;
          bounds[first - 1] = [start - shown, start];
          matched += shown;
          missing -= shown;
          start -= shown;
          reworded = true;
        }
      } else if (first === 1 && owners[0] !== owners[1]) {
        // match.py: or the message's opening words before its first value, their last words left out
        const lead = openingBeforeAValue(flat, start, chunks[0], origin, cleaned, this.errors[entry.error].template, rules);
        if (lead !== null) {
          bounds[0] = [lead[0], lead[0] + lead[1]];
          matched += lead[1];
          missing -= lead[1];
          start = lead[0];
        }
      }
      let slack = 0;
      let valueBefore = false; // match.py: a hole's value lies before pos, the chunk after it not found
      let runMissing = 0; // match.py: what the chunks not found since the last one found count as missing
      let runStart = 0; // ... and where the paste's text after that one begins
      const nameStart = start - entry.exception.length - 1;
      const exceptionBeside = (flat.slice(Math.max(0, nameStart), start) === entry.exception + ":"
          // match.py: the whole name, not the end of another ("RuntimeError" is not the level "Error")
          && (nameStart <= 0 || !/[A-Za-z0-9_]/.test(cleaned.charAt(Math.max(0, origin.get(nameStart) - 1)))))
        // pydantic's words for a ValueError it caught (match.py)
        || (rules.pydanticValueErrors.includes(entry.exception) && flat.slice(Math.max(0, start - 11), start) === "valueerror,");
      // match.py: the message is named as one (its type beside it, or an issue title's tag where it opens) ...
      // (where a message that opens with a value opens: match.py)
      const opening = first === 0 && owners[0] ? openingOf(cleaned, origin.get(start)) : origin.get(start);
      const tagged = first === 0 && atStart(rules.issueTag, cleaned.slice(cleaned.lastIndexOf("\n", opening - 1) + 1, opening));
      const named = exceptionBeside || tagged;
      // ... or opens where a message may (not after another's word) and goes on without a stop: then only a
      // nearly whole sentence counts (match.py _opens_unnamed, read only when needed)
      const opensUnnamed = () => first === 0 && !midSentence(cleaned, owners[0] ? openingOf(cleaned, origin.get(start)) : origin.get(start));
      // match.py _unnamed_least(): less of it where it opens a title that goes on in words of no sentence of their own
      const unnamedLeast = (end) => unnamedLeastAt(() => this.asTyped(cleaned), cleaned, origin.get(start), owners[0], end, rules);
      for (let i = first + 1; i < chunks.length; i++) {
        const chunk = chunks[i];
        const hole = owners[i] !== owners[i - 1] || valueBefore; // a value of any length may lie before it
        let at = -1;
        // match.py: an issue title, or a sentence that goes on, drops the message's last full stop
        let stop = 0;
        // (a sentence before the message's last one, only where the paste's line ends)
        const tries = chunk.length > 1 && chunk.endsWith(".") ? [chunk, chunk.slice(0, -1)] : [chunk];
        for (const words of tries) {
          if (hole) {
            at = pyFind(flat, words, pos);
            // ... but a traceback's frame is no part of a message (match.py)
            if (at !== -1 && pos && rules.frameTail.test(cleaned.slice(origin.get(pos - 1) + 1, origin.get(at)))) at = -1;
            // ... nor, after a few words, are later words past a value over lines, not one wrapped (match.py)
            else if (at !== -1 && pos && matched < rules.minMatched && cleaned.slice(origin.get(pos - 1) + 1, origin.get(at)).split("\n").length > 2) at = -1;
          } else if (pyStartsWith(flat, words, pos)) at = pos;
          else at = pyFind(flat, words, pos, pos + slack + rules.window + words.length);
          if (at !== -1 && words !== chunk) {
            const after = origin.get(at + words.length - 1) + 1; // match.py: "timed outside" is no "timed out." without its stop
            if (after < cleaned.length && /^[A-Za-z0-9]$/.test(words[words.length - 1]) && /^[A-Za-z0-9]$/.test(cleaned[after])) at = -1;
            else if (i < chunks.length - 1 && !atLineEnd(cleaned, after)) at = -1;
          }
          if (at !== -1) {
            stop = chunk.length - words.length;
            break;
          }
        }
        if (at !== -1) {
          // match.py _elided_between(): the user's "..." stands for the words left out
          if (runMissing && elidedBetween(cleaned, runStart ? origin.get(runStart - 1) + 1 : 0, origin.get(at), rules)) missing -= runMissing;
          else if (!hole) missing += Math.floor((at - pos) / 2);
          runMissing = 0;
          bounds[i] = [at, at + chunk.length - stop];
          matched += chunk.length;
          pos = at + chunk.length - stop;
          slack = 0;
          valueBefore = false;
          continue;
        }
        const leftOut = hole || !wordsLeftOut ? null
          : wordLeftOut(flat, pos, this.wordsOf(entry)[i], i + 1 < chunks.length && owners[i + 1] === owners[i] ? chunks[i + 1] : null, false, rules);
        if (leftOut !== null) {
          // match.py: one word of the chunk left out, the rest of it where expected: partial
          const shown = chunk.length - leftOut;
          if (runMissing && elidedBetween(cleaned, runStart ? origin.get(runStart - 1) + 1 : 0, origin.get(pos), rules)) missing -= runMissing;
          matched += shown;
          missing += leftOut;
          bounds[i] = [pos, pos + shown];
          pos += shown;
          slack = 0;
          valueBefore = false;
          runMissing = 0;
          reworded = true;
          continue;
        }
        // match.py: a word of the chunk changed, left out or added: its start where expected
        // (after a hole: its longest start found later) and its end a little after that count
        const anchor = !hole ? pos : longestStart(flat, pos, chunk, rules);
        let part = [0, pos, false];
        if (anchor !== -1 && !(anchor > pos && rules.frameTail.test(cleaned.slice(pos ? origin.get(pos - 1) + 1 : 0, origin.get(anchor)))))
          part = chunkInPart(flat, anchor, chunk, anchor + (anchor === pos ? slack : 0) + rules.window + chunk.length, rules);
        if (part[2]) {
          matched += part[0];
          const after = runMissing ? runStart : pos; // the paste's text after the last chunk found whole
          // match.py: the user's "..." stands for the chunk's middle (and chunks before it)
          if (elidedBetween(cleaned, after ? origin.get(after - 1) + 1 : 0, origin.get(part[1] - 1), rules)) missing -= runMissing;
          else if (part[0] === chunk.length && !hole && smallWordInserted(flat, anchor, part[1], chunk, rules)) {
            // match.py: every character of the chunk, a small word among them: near, but partial
            missing += Math.floor((part[1] - anchor - chunk.length) / 2);
            reworded = true;
          } else missing += chunk.length; // found, but not as vLLM worded it: missing for the score (match.py)
          bounds[i] = [anchor, part[1]];
          pos = part[1];
          slack = 0;
          valueBefore = false;
          runMissing = 0;
          continue;
        }
        const rest = flat.length - pos;
        let common = commonPrefix(flat, pos, chunk);
        if (hole && common && pos + common < flat.length && !atLineEnd(cleaned, origin.get(pos + common - 1) + 1)) {
          common = 0; // a value that only begins like the words after it, and goes on (match.py)
        }
        // After a hole the paste may stop anywhere: the value can be any length.
        const atEnd =
          hole ||
          rest <= rules.tail ||
          atLineEnd(cleaned, pos + common ? origin.get(pos + common - 1) + 1 : 0);
        // match.py: an issue title quotes the message, with its type, up to a sentence's end and goes on in its own words
        if (!hole && sentenceEnds(chunk, common) && matched + common >= rules.minMatched
            && (named || (matched + common >= rules.unnamedLeast
                          && (chunk[common - 1] !== "." || newSentenceFollows(cleaned, origin.get(pos + common - 1) + 1, rules)) && opensUnnamed()
                          && matched + common >= unnamedLeast(origin.get(pos + common - 1) + 1)))
            && !wordGoesOn(cleaned, origin.get(pos + common - 1) + 1, chunk.slice(0, common))
            && !laterWordsFollow(flat, origin, cleaned, pos, chunks.slice(i + 1), hole)) {
          matched += common - (chunk[common - 1] === "." ? 1 : 0); // its stop counts for nothing (match.py)
          bounds[i] = [pos, pos + common];
          truncated = true;
          // match.py: without type or tag, a stop and another's sentence after it may be a paraphrase: partial at best
          reworded = reworded || (!named && chunk[common - 1] === ".");
          break;
        }
        // ... or a sentence that ends with a value in brackets: the value ends at its bracket on the same line (match.py)
        // match.py: a sentence that ends with a value in brackets, or with words after a value
        const shut = hole ? closersThenStop(chunk) || wordsThenStop(chunk, rules) : 0;
        const shutAt = shut ? pyFind(flat, chunk.slice(0, shut), pos) : -1;
        if (shutAt !== -1 && matched + shut >= rules.minMatched
            && (named || (matched + shut >= rules.unnamedLeast && opensUnnamed() && matched + shut >= unnamedLeast(origin.get(shutAt + shut - 1) + 1)))) {
          const at = shutAt;
          if (!cleaned.slice(origin.get(pos - 1) + 1, origin.get(at)).includes("\n")
              && (named || (flat.slice(at + shut, at + shut + 1) !== "." && !atLineEnd(cleaned, origin.get(at + shut - 1) + 1)))
              && !wordGoesOn(cleaned, origin.get(at + shut - 1) + 1, chunk.slice(0, shut))
              && !laterWordsFollow(flat, origin, cleaned, pos, chunks.slice(i + 1), hole)) {
            matched += shut;
            bounds[i] = [at, at + shut + (flat.slice(at + shut, at + shut + 1) === "." ? 1 : 0)];
            truncated = true;
            break;
          }
        }
        // match.py: ... or with a quoted value that closes on its line, and words follow
        if (hole && chunk.slice(0, 1) === "." && matched >= rules.minMatched && named && !valueBefore) {
          const valueEnd = quotedValueEnd(cleaned, origin.get(pos - 1) + 1, rules);
          if (valueEnd !== null) {
            const shown = squashText(cleaned.slice(origin.get(pos - 1) + 1, valueEnd), rules);
            if (flat.startsWith(shown, pos)) {
              bounds[i] = [pos + shown.length, pos + shown.length];
              truncated = true;
              break;
            }
          }
        }
        if (atEnd && !laterWordsFollow(flat, origin, cleaned, pos, chunks.slice(i + 1), hole)) {
          let atPasteEnd = rest <= rules.tail ? longestPrefixAtEnd(flat.slice(pos), chunk) : 0;
          // match.py: a full stop the paste ends with ends its own sentence
          if (atPasteEnd && !chunk.slice(0, atPasteEnd).replace(/^\.+|\.+$/g, "")) atPasteEnd = 0;
          const overlap = Math.max(common, atPasteEnd);
          matched += overlap;
          if (overlap) bounds[i] = overlap === common ? [pos, pos + overlap] : [flat.length - overlap, flat.length];
          // match.py: the chunk's start at the paste's end, after other words: words inserted
          if (overlap > common && !hole && bounds[i - 1] !== null) missing += Math.floor((flat.length - overlap - pos) / 2);
          truncated = true;
          // cut short only where the paste (or its line) stops; else what it leaves out is missing
          // match.py: a quoted value that closes with other words after it on its line was no cut
          const closed = hole && closedValueGoesOn(cleaned, pos ? origin.get(pos - 1) + 1 : 0, rules);
          // match.py: mid-sentence, unless the message's capital opens a sentence of its own there
          const afterHole = hole && !closed && !diverges(flat, origin, cleaned, pos, chunk, rules)
            // match.py: a value whose words end a sentence where vLLM's message ends none after it
            && !(valueEndsASentence(cleaned, pos ? origin.get(pos - 1) + 1 : 0, rules) && !chunks.slice(i).some((c) => /[.!?]/.test(c)))
            // (a line that begins inside the message opens where its words shown begin: match.py _head_cut_off's credit)
            && !(midSentence(cleaned, credit ? origin.get(start - credit) : first === 0 && owners[0] ? openingOf(cleaned, origin.get(start)) : origin.get(start))
              && !(first === 0 && capitalOpens(cleaned, origin.get(start), this.errors[entry.error].template)));
          openValue = afterHole && overlap === 0;
          // match.py: open or ending a sentence where vLLM's would go on, the value the match ends with
          valueToLineEnd = hole && !closed && overlap === 0;
          const cut =
            !closed && (
              afterHole ||
              pos + overlap >= flat.length ||
              (atPasteEnd === overlap && overlap > 0) ||
              messageEnds(cleaned, pos + overlap ? origin.get(pos + overlap - 1) + 1 : 0, rules, hole));
          if (!cut) {
            let left = 0;
            for (const c of chunks.slice(i)) left += c.length;
            missing += left - overlap;
          }
          break;
        }
        if (part[0]) {
          // its start only, and the paste goes on: the chunk's last words differ (match.py)
          if (!runMissing) runStart = pos;
          matched += part[0];
          missing += chunk.length;
          runMissing += chunk.length;
          bounds[i] = [anchor, part[1]];
          pos = part[1];
          slack = chunk.length - part[0];
          valueBefore = false;
          continue;
        }
        if (!runMissing) runStart = pos;
        missing += chunk.length;
        runMissing += chunk.length;
        slack += chunk.length;
        // the value before a chunk not found has no known end: what lies between is the value
        valueBefore = hole;
      }
      const begin = start;
      if (matched < Math.min(entry.literal, rules.minMatched)) {
        // match.py: raised with its type and cut by the user's "..." inside its first value, or
        // where the paste stops, with its type named in vLLM's package
        const at = origin.get(begin);
        rules.userCut.lastIndex = at;
        let shown = 0;
        for (const b of bounds) if (b !== null && b[1] > shown) shown = b[1];
        const cutThere = (openValue && rules.userCut.test(cleaned))
          || (truncated && shown >= flat.length && (rules.vllmQualified.test(cleaned.slice(cleaned.lastIndexOf("\n", at - 1) + 1, at))
              || cutInsideWord(cleaned, this.errors[entry.error].template, rules)))
          || (truncated && first === 0 && !owners[0] && entry.holes.length > 0 && openingShown(chunks, owners, bounds, rules)
              && ((openValue && oneValueToLineEnd(cleaned, origin.get(shown - 1) + 1)) || shown >= flat.length));
        if (!(exceptionBeside && matched >= rules.ellipsisLeast && cutThere)) return null;
      }
      if (entry.literal < rules.minLiteral && !exceptionBeside) {
        // a short message alone is only trusted as a whole line of the paste
        const at = origin.get(begin);
        const lineStart = pyRfind(cleaned, "\n", 0, at) + 1;
        let lineEnd = cleaned.indexOf("\n", at);
        if (lineEnd === -1) lineEnd = cleaned.length;
        if (entry.holes.length && owners[0] === 0 && owners[owners.length - 1] === entry.holes.length) {
          // with values inside it: all of it, the line from its first word to its last (match.py)
          const line = squashText(cleaned.slice(lineStart, lineEnd), rules);
          const starts =
            first === 0 && line.startsWith(chunks[0]) && line.endsWith(chunks[chunks.length - 1]) && !squashText(cleaned.slice(lineStart, at), rules)
              ? inOrder(line, chunks, owners)
              : null;
          if (starts === null) return null;
          starts.forEach((a, i) => (bounds[i] = [begin + a, begin + a + chunks[i].length])); // where the values are
        } else {
          // more on the line than the message (told without squashing a long line whole)
          if (squashesLonger(cleaned, lineStart, lineEnd, entry.literal, rules)) return null;
          if (squashText(cleaned.slice(lineStart, lineEnd), rules) !== chunks.join("")) return null;
        }
      }
      if ((matched < 2 * missing || (matched < entry.literal / 2 && !truncated))
        // ... but a message named as one whose opening words are shown whole, then the paste's own (match.py)
        && !(named && first === 0 && openingRun(bounds, chunks) >= rules.laterLeast)
        // ... or one whose first and last words are shown whole around other words, as much shown as left out (match.py)
        && !(named && first === 0 && !truncated && matched >= missing && chunks.length > 2 && openingRun(bounds, chunks) > 0
          && bounds[bounds.length - 1] !== null && bounds[bounds.length - 1][1] - bounds[bounds.length - 1][0] === chunks[chunks.length - 1].length)) return null;
      const inLast = last !== null && origin.get(begin) >= last[0];
      let end = -Infinity;
      for (const b of bounds) if (b !== null && b[1] > end) end = b[1];
      // match.py: a few words with other capitals are someone else's
      if (!entry.holes.length && !missing && entry.literal < rules.minMatched &&
          !sameCase(cleaned.slice(origin.get(begin), origin.get(end - 1) + 1), this.errors[entry.error].template)) return null;
      // match.py: a few words that open vLLM's message, read mid-sentence ("hip runtime failed to load.")
      if (entry.literal < rules.minMatched && first === 0 && !exceptionBeside && !opensWithHole(this.errors[entry.error].template, rules)
          && midSentence(cleaned, origin.get(begin))) return null;
      // match.py: a few words after a value that another's words name ("rollout world_size: 1 is not divisible by ...")
      if (entry.literal < rules.minMatched && first === 0 && owners[0] > 0 && /[A-Za-z0-9]/.test(entry.chunks[0][0])
          && labelledValue(cleaned, origin.get(begin), rules)) return null;
      // match.py: ... or that another exception's words open ("ValueError: Tensor height 576 is not divisible by ...",
      // "litellm.BadRequestError: Invalid value for 'x': expected a string, got null")
      if (entry.literal < rules.minMatched && first === 0 && owners[0] > 0 && /[A-Za-z0-9:]/.test(entry.chunks[0][0])
          && typedWordsBefore(cleaned, origin.get(begin), entry.exception, rules)) return null;
      // match.py: its words after an exception's type and another's name ("ValueError: QuantizeConfig: Unknown ...")
      if (first === 0 && !owners[0] && labelledInException(cleaned, origin.get(begin), rules)) return null;
      // match.py: its capital word written small after another's words ("Previous response with id ...")
      if (first === 0 && !exceptionBeside && capitalLowered(cleaned, origin.get(begin), this.errors[entry.error].template)
          && midSentence(cleaned, origin.get(begin))) return null;
      // match.py: a few words of vLLM's, its capital written small ("failed to load model" is not "Failed to load {filename}")
      if (entry.literal < rules.minMatched && first === 0 && !exceptionBeside
          && capitalLowered(cleaned, origin.get(begin), this.errors[entry.error].template)) return null;
      // match.py: a few words whose last the paste makes longer ("unexpected error" is not in "unexpected errors")
      if (entry.literal < rules.minMatched && !truncated && owners[owners.length - 1] === entry.holes.length &&
          wordGoesOn(cleaned, origin.get(end - 1) + 1, this.errors[entry.error].template)) return null;
      // match.py: a word before a value, a space apart in vLLM's message, that runs on in the paste ("Error Internal")
      if (wordGluedToValue(entry, bounds, origin, cleaned, entry.form || this.errors[entry.error].template)) return null;
      // match.py: an opening value that would be the paste's exception type ("AssertionError: Expected ..., got 5")
      if (first === 0 && owners[0] > 0 && entry.chunks[0][0] === ":" && this.afterExceptionType(cleaned, origin.get(begin) + 1)) return null;
      const [values, spans] = this.values(entry, bounds, origin, cleaned, entry.form || this.errors[entry.error].template);
      if (openValue) {
        // match.py: the paste stops inside the value after the last words it shows: that value fills its placeholder
        let lastFound = -1;
        bounds.forEach((b, i) => { if (b !== null) lastFound = i; });
        const owner = owners[lastFound];
        if (owner < entry.holes.length && (lastFound + 1 === chunks.length || owners[lastFound + 1] !== owner)
            && bounds[lastFound][1] - bounds[lastFound][0] === chunks[lastFound].length) {
          const after = origin.get(bounds[lastFound][1] - 1) + 1;
          const lineEnd = cleaned.indexOf("\n", after);
          let shown = pyStrip(cleaned.slice(after, lineEnd === -1 ? cleaned.length : lineEnd));
          const name = entry.holes[owner];
          if (closedValue(shown) && !values.has(name)) {
            // match.py: in the template's own quotes ("error '{result}'"), the value is inside them
            const quote = splitTemplate(toSlots(entry.form || this.errors[entry.error].template))[0][owner].replace(PY_SPACE_TAIL, "").slice(-1);
            if (quote && shown[0] === quote) shown = shown.slice(1, -1);
            values.set(name, fromSlots(shown.length > rules.maxValueChars ? shown.slice(0, rules.maxValueChars) + rules.ellipsis : shown));
          }
        }
      }
      return new Match(rules, this.errors[entry.error], {
        values,
        valueSpans: spans,
        start: origin.get(begin),
        end: origin.get(end - 1) + 1,
        matched,
        missing: reworded ? Math.max(missing, partialMissing(matched, rules.sure)) : missing,
        coverage: matched / entry.literal,
        holes: holesShown(entry, bounds, truncated, openValue),
        openValue,
        valueToLineEnd,
        exceptionAgrees: exceptionBeside || (inLast && lowerSlots(last[1]) === entry.exception),
        inLast,
        tagged: tagged && !exceptionBeside,
        wordedAlike: wordedAlike(cleaned.slice(origin.get(begin), origin.get(end - 1) + 1), this.errors[entry.error].template, rules),
        form: entry.form,
      });
    }

    values(entry, bounds, origin, cleaned, template) {
      const values = new Map();
      const spans = [];
      const lastOf = new Map();
      const firstOf = new Map();
      entry.segmentOf.forEach((owner, i) => {
        if (!firstOf.has(owner)) firstOf.set(owner, i);
        lastOf.set(owner, i);
      });
      const rules = this.rules;
      const count = entry.holes.length;
      // match.py: where the message starts, for the quote that closes it (after the quote that opens
      // one that opens with a value, in a client's error body)
      let messageStart = origin.get(bounds.find((b) => b !== null)[0]);
      if (count && !lastOf.has(0) && firstOf.has(1) && bounds[firstOf.get(1)] !== null) {
        const opened = quoteOpening(cleaned, origin.get(bounds[firstOf.get(1)][0]), rules);
        if (opened !== null) messageStart = opened;
      }
      const cap = (text) => text.length > rules.maxValueChars ? text.slice(0, rules.maxValueChars) + rules.ellipsis : text;
      const lastChunk = entry.chunks[entry.chunks.length - 1];
      entry.holes.forEach((name, h) => {
        if (!lastOf.has(h) || !firstOf.has(h + 1)) return; // the hole opens or closes the message: below
        const left = bounds[lastOf.get(h)];
        const right = bounds[firstOf.get(h + 1)];
        if (left === null || right === null || right[0] < left[1]) return;
        const a = left[1], b = right[0];
        let text = b > a ? pyStrip(cleaned.slice(origin.get(a), origin.get(b - 1) + 1)) : "";
        if (b > a) spans.push([origin.get(a), origin.get(b - 1) + 1]);
        if (h === count - 1 && firstOf.get(h + 1) === entry.chunks.length - 1 && !ALNUM.test(lastChunk)) {
          // match.py: the last value, before the message's closing stop or bracket
          const after = origin.get(a - 1) + 1; // (past the words before it, as a value that closes the message)
          const shown = b > a ? pyStrip(cleaned.slice(after, origin.get(b - 1) + 1)) : "";
          const whole = closingValue(cleaned, after, template, messageStart, rules);
          if (shown && whole.startsWith(shown) && !PY_SPACE_RUN.test(whole.slice(shown.length))) text = whole;
        }
        text = cap(text);
        if (!values.has(name)) values.set(name, fromSlots(text));
      });
      if (count && !lastOf.has(0) && firstOf.has(1) && bounds[firstOf.get(1)] !== null) {
        const text = openingValue(cleaned, origin.get(bounds[firstOf.get(1)][0]), template, rules);
        if (text && !values.has(entry.holes[0])) values.set(entry.holes[0], fromSlots(cap(text)));
      }
      const closing = count && !firstOf.has(count) && lastOf.has(count - 1) ? bounds[lastOf.get(count - 1)] : null;
      if (closing !== null && closing[1] - closing[0] === entry.chunks[lastOf.get(count - 1)].length) { // (its words whole)
        const text = closingValue(cleaned, origin.get(closing[1] - 1) + 1, template, messageStart, rules);
        if (text && !values.has(entry.holes[count - 1])) values.set(entry.holes[count - 1], fromSlots(cap(text)));
      }
      return [values, spans];
    }

    /** match.py _type_alone(): a paste that is only the name of an exception type vLLM defines. */
    typeAlone(results, cleaned) {
      const found = this.rules.typeAlone.exec(cleaned.trim());
      if (found === null) return;
      if (this.ownTypeLasts === undefined) this.ownTypeLasts = new Set([...this.ownTypeNames()].map((name) => name.split(".").pop()));
      if (!this.ownTypeLasts.has(found[1])) return;
      const start = found.index + found[0].indexOf(found[1]);
      this.errors.forEach((error, number) => {
        if (["raise", "assert", "message"].includes(error.kind) && error.exception.split(".").pop() === found[1]) {
          results.set(number, new Match(this.rules, error, { start, end: start + found[1].length, inLast: true, frame: true, exceptionAgrees: true, typeOnly: true }));
        }
      });
    }

    frameBonus(results, frames, last, cleaned) {
      let atTheEnd = false;
      if (frames.length && last === null) {
        last = this.raiseAtTheEnd(cleaned); // a paste cut after the raise's own line (match.py)
        atTheEnd = last !== null;
      }
      if (!frames.length || last === null) return;
      const [path, fn] = frames[frames.length - 1];
      const at = path.lastIndexOf("vllm/");
      if (at === -1) return;
      const lastLow = lowerSlots(last[1]);
      const raising = (this.byLocation.get(path.slice(at) + "\u0000" + fn) || []).filter((n) => this.errors[n].exceptionLow === lastLow);
      // a paste that stops at the raise, before its message: one problem of that type there (match.py)
      const oneProblem = new Set(raising.map((n) => this.groups.has(this.errors[n].id) ? this.groups.get(this.errors[n].id) : this.errors[n].id)).size === 1;
      for (const number of raising) {
        const error = this.errors[number];
        if (results.has(number)) {
          results.get(number).frame = true;
        } else if (!ALNUM.test(error.template.replace(this.rules.hole, ""))) {
          // a raise with no message (or a wholly computed one): the frame is all there is
          results.set(number, new Match(this.rules, error, { start: last[0], inLast: true, frame: true }));
        } else {
          // the paste stops inside the message: the frame and the start of the message agree
          const shown = atTheEnd ? "" : cutMessage(cleaned, last[0], this.rules); // a raise's code line is no message
          const parts = splitTemplate(toSlots(error.template))[0];
          const literals = parts.map((c) => squashText(c, this.rules)).filter((c) => c);
          const start = squashText(parts[0], this.rules);
          if (literals.length && holdsInOrder(shown, literals)) {
            // the whole message behind words another program put before it (match.py)
            const matched = literals.reduce((n, c) => n + c.length, 0);
            results.set(number, new Match(this.rules, error, {
              start: last[0], inLast: true, frame: true, exceptionAgrees: true, matched, coverage: 1,
            }));
          } else if (shown.length >= this.rules.cutMessageLeast && start.startsWith(shown)) {
            const literal = squashText(toSlots(error.template).replace(this.rules.hole, ""), this.rules).length;
            results.set(number, new Match(this.rules, error, {
              start: last[0], inLast: true, frame: true, matched: shown.length, coverage: shown.length / Math.max(1, literal),
            }));
          } else if (commonPrefix(shown, 0, start) >= this.rules.rewordedLeast) {
            // the message as another release worded it: its first words, then others (match.py)
            const common = commonPrefix(shown, 0, start);
            const literal = squashText(toSlots(error.template).replace(this.rules.hole, ""), this.rules).length;
            results.set(number, new Match(this.rules, error, {
              start: last[0], inLast: true, frame: true, matched: common, missing: shown.length - common, coverage: common / Math.max(1, literal),
            }));
          } else if (oneProblem && !/[A-Za-z0-9]/.test(shown) && (atTheEnd || !typeAlone(cleaned, last[0]))) {
            // ... or at an exception line whose message shows no word yet, not a type alone on its line (match.py)
            results.set(number, new Match(this.rules, error, { start: last[0], inLast: true, frame: true }));
          }
        }
      }
    }
  }

  /** match.py _wrapped_by_it: vLLM's exception, whole with its type, is what the foreign error's line goes on to
   *  ("torch._dynamo.exc.InternalTorchDynamoError: RuntimeError: Assigning / modifying buffers ..."). */
  function wrappedByIt(m, cleaned, at, rules) {
    // (a foreign match that takes only the vLLM error's own type with it wraps nothing)
    const between = cleaned.slice(at, m.start);
    return m.score >= rules.sure && m.exceptionAgrees && m.error.kind !== "log" && at < m.start && !between.includes("\n")
      && pyStrip(between.replace(/[`'" \t]+$/, "").replace(rules.typeRightBefore, "")) !== "";
  }

  /** clean.py's dedented: the lines less the spaces and tabs that open every one with text. */
  /** clean.py single_spaced(): a paste a web page double-spaced, as printed (each odd run of 2k + 1 blank lines was k). */
  function singleSpaced(lines, rules) {
    const gaps = [];
    let run = 0;
    let seen = false;
    for (let number = 0; number < lines.length; number++) {
      if (!pyStrip(lines[number])) {
        run += 1;
        continue;
      }
      if (seen) {
        if (!run) return lines; // two lines of text side by side
        gaps.push([number - run, run]);
      }
      seen = true;
      run = 0;
    }
    if (gaps.length < rules.doubleSpacedLeast || gaps.some(([, size]) => size % 2 === 0)) return lines;
    const drop = new Set();
    for (const [start, size] of gaps) for (let n = start; n < start + size - Math.floor((size - 1) / 2); n++) drop.add(n);
    return lines.filter((line, number) => !drop.has(number));
  }

  function dedented(lines, rules) {
    let common = null;
    for (const line of lines) {
      if (!pyStrip(line) || rules.codeFence.test(line)) continue;
      const indent = /^[ \t]*/.exec(line)[0];
      if (common === null) {
        common = indent;
      } else {
        let i = 0;
        while (i < common.length && i < indent.length && common[i] === indent[i]) i++;
        common = common.slice(0, i);
      }
      if (!common) return lines;
    }
    return common ? lines.map((line) => (line.startsWith(common) ? line.slice(common.length) : line)) : lines;
  }

  /** PYTHON_WROTE.match(cleaned, start): Python's own words from there to the line's end. */
  function pythonWrote(cleaned, start, rules) {
    rules.pythonWrote.lastIndex = start;
    return rules.pythonWrote.test(cleaned);
  }

  /** Whether a template opens with a hole ("{mode} is disabled because ..."): HOLE.match(template). */
  function opensWithHole(template, rules) {
    rules.hole.lastIndex = 0;
    const found = rules.hole.exec(template);
    return found !== null && found.index === 0;
  }

  /** match.py _holes_shown(): the holes up to where a paste cut short stops showing the template. */
  function holesShown(entry, bounds, truncated, openValue) {
    if (!truncated) return entry.holes.length;
    let last = -1;
    bounds.forEach((b, i) => { if (b !== null && b !== undefined) last = i; });
    const owner = entry.segmentOf[last];
    return owner + (openValue && owner < entry.holes.length ? 1 : 0);
  }

  /** match.py _opening_run(): squashed characters of the message's first chunks, each found whole, up to the first that is not. */
  function openingRun(bounds, chunks) {
    let run = 0;
    for (let i = 0; i < chunks.length; i++) {
      const found = bounds[i];
      if (found === null || found === undefined || found[1] - found[0] !== chunks[i].length) break;
      run += chunks[i].length;
    }
    return run;
  }

  /** match.py _whole_value(): the text the inner matched is all of the value, but for blanks, quotes and full stops around them. */
  function wholeValue(cleaned, inner, a, b) {
    const trim = " \t'\"`.";
    return pyStripChars(cleaned.slice(inner.start, inner.end), trim) === pyStripChars(cleaned.slice(a, b), trim);
  }

  /** match.py _quoted_whole(): the text inner matched, stripped, is inside cleaned[a:b]. */
  function quotedWhole(cleaned, inner, a, b, rules) {
    const quoted = pyStrip(cleaned.slice(inner.start, inner.end));
    return quoted.length >= rules.quoteHead && cleaned.slice(a, b).includes(quoted);
  }

  /** _goes_on_after_a_stock_phrase(): one of vLLM's stock phrases (a few words, no value) that the
   * paste's line goes on from with a colon and words of its own: another program's wording. */
  function goesOnAfterAStockPhrase(cleaned, m, rules) {
    const template = m.error.template;
    if (!template) return false;
    rules.hole.lastIndex = 0;
    if (rules.hole.test(template)) return false;
    if ((template.match(rules.asciiWord) || []).length > rules.stockPhraseWords) return false;
    rules.saysWhatAfter.lastIndex = m.end;
    return rules.saysWhatAfter.test(cleaned);
  }

  /** _on_anothers_log_line(): whether start lies after the header of a line another program logged,
   * but for the message of a Python exception of the error's type that the program reports. */
  function onAnothersLogLine(cleaned, start, rules, error) {
    const pattern = rules.anothersLogLine;
    pattern.lastIndex = start > 0 ? cleaned.lastIndexOf("\n", start - 1) + 1 : 0;
    const header = pattern.exec(cleaned);
    if (header === null || header.index + header[0].length > start) return false;
    // a Python logger's line quotes it after words of its own
    rules.pyLoggerLine.lastIndex = header.index;
    if (rules.pyLoggerLine.exec(cleaned) !== null && cleaned.slice(header.index + header[0].length, start).replace(/[ \t]/g, "") !== "") return false;
    if (error.kind !== "raise" && error.kind !== "assert") return true;
    return !cleaned.slice(header.index + header[0].length, start).replace(/[ \t]+$/, "").endsWith(error.exception.split(".").pop() + ":");
  }

  /** match.py _literal_words(): a template's literal parts, words only, one space apart (cut once per template). */
  const literalWordsOf = new Map();
  function literalWords(template, rules) {
    let words = literalWordsOf.get(template);
    if (words === undefined) {
      words = splitTemplate(toSlots(template))[0].map((segment) => lowerSlots(pySplit(segment.replace(rules.punctuation, "")).join(" ")));
      literalWordsOf.set(template, words);
    }
    return words;
  }

  /** match.py _worded_alike(): whether text holds the template's literal words spaced as it does, in order. */
  function wordedAlike(text, template, rules) {
    const spaced = lowerSlots(pySplit(text.replace(rules.punctuation, "")).join(" "));
    let pos = 0;
    for (const part of literalWords(template, rules)) {
      const found = spaced.indexOf(part, pos);
      if (found < 0) return false;
      pos = found + part.length;
    }
    return true;
  }

  /** _holds_in_order(): whether text holds each chunk, one after the other. */
  function holdsInOrder(text, chunks) {
    let pos = 0;
    for (const chunk of chunks) {
      const at = text.indexOf(chunk, pos);
      if (at === -1) return false;
      pos = at + chunk.length;
    }
    return true;
  }

  /** _cut_message(): the squashed message of the `SomeError: message` line at position. */
  function cutMessage(cleaned, position, rules) {
    let end = cleaned.indexOf("\n", position);
    if (end === -1) end = cleaned.length;
    const line = cleaned.slice(position, end);
    const colon = line.indexOf(": ");
    return colon === -1 ? "" : squashText(line.slice(colon + 2), rules);
  }

  /** match.py's _longest_start: where the longest start of chunk (2 × PART_LEAST or more) first occurs within TAIL from pos. */
  function longestStart(flat, pos, chunk, rules) {
    for (let size = chunk.length - 1; size >= 2 * rules.partLeast; size--) {
      const at = pyFind(flat, chunk.slice(0, size), pos, pos + rules.tail + size);
      if (at !== -1) return at;
    }
    return -1;
  }

  /** match.py's _chunk_in_part: [characters of chunk found, where they end, whether its end was found]. */
  function chunkInPart(flat, pos, chunk, limit, rules) {
    let start = commonPrefix(flat, pos, chunk);
    if (start < rules.partLeast) start = 0;
    for (let cut = Math.max(start, 1); cut <= chunk.length - rules.partLeast; cut++) {
      const at = pyFind(flat, chunk.slice(cut), pos + start, limit);
      if (at !== -1) return [start + chunk.length - cut, at + chunk.length - cut, true];
    }
    return [start, pos + start, false];
  }

  /** match.py's _small_word_inserted: flat from anchor to until is chunk with a few letters inserted. */
  /** match.py _closers_off(): a value read to its line's end without what closes around it there. */
  function closersOff(value) {
    const closes = { ")": "(", "]": "[", "}": "{", ">": "<" };
    const count = (c) => value.split(c).length - 1;
    while (value && " \t,;'\")]}>".includes(value[value.length - 1])) {
      const last = value[value.length - 1];
      if ((closes[last] && count(closes[last]) >= count(last)) || (`'"`.includes(last) && count(last) % 2 === 0)) break;
      value = value.slice(0, -1);
    }
    return value;
  }

  /** match.py _word_left_out(): the length of the one word of a chunk the paste leaves out, or null. */
  function wordLeftOut(flat, at, words, then, before, rules) {
    if (words.length < 2) return null;
    for (let number = 0; number < words.length; number++) {
      if (number === 0 && before) continue; // what stands before the rest may be any word
      if (number === words.length - 1 && then === null && !before) break;
      const rest = words.slice(0, number).join("") + words.slice(number + 1).join("");
      if (rest.length < rules.partLeast) continue;
      if (before) {
        if (at >= rest.length && flat.startsWith(rest, at - rest.length)) return words[number].length;
      } else if (flat.startsWith(rest, at) && (number < words.length - 1 || flat.startsWith(then, at + rest.length))) {
        return words[number].length;
      }
    }
    return null;
  }

  /** match.py's _chunk_with_small_word_before: [where it starts, all of chunk], a small word inserted, ending at end. */
  function chunkWithSmallWordBefore(flat, end, chunk, rules) {
    for (let size = 1; size <= rules.smallWord; size++) {
      const begin = end - chunk.length - size;
      if (begin < 0) break;
      const shown = commonPrefix(flat, begin, chunk);
      // (inside it: letters before its start are another word's end)
      if (shown > 0 && shown < chunk.length && smallWordInserted(flat, begin, end, chunk, rules) && flat.startsWith(chunk.slice(shown), begin + shown + size)) return [begin, chunk.length];
    }
    return null;
  }

  function smallWordInserted(flat, anchor, until, chunk, rules) {
    const size = until - anchor - chunk.length;
    const at = anchor + commonPrefix(flat, anchor, chunk);
    return 0 < size && size <= rules.smallWord && /^\p{L}+$/u.test(flat.slice(at, at + size));
  }

  /** match.py's _type_alone: the exception line at position is its type alone, no colon after it. */
  function typeAlone(cleaned, position) {
    const end = cleaned.indexOf("\n", position);
    return !cleaned.slice(position, end === -1 ? cleaned.length : end).includes(":");
  }

  /** match.py's _chunk_ends_at: [where it starts, characters of chunk found] around a changed word right before end, or null. */
  function chunkEndsAt(flat, end, chunk, rules) {
    for (let cut = 1; cut <= chunk.length - rules.partLeast; cut++) {
      const tail = end - chunk.length + cut;
      if (tail < 0 || !flat.startsWith(chunk.slice(cut), tail)) continue;
      for (let size = cut; size >= rules.partLeast; size--) {
        const at = pyRfind(flat, chunk.slice(0, size), Math.max(0, tail - rules.window - size), tail);
        if (at !== -1 && at + size < tail) return [at, size + chunk.length - cut];
      }
      return null;
    }
    return null;
  }

  /** match.py's _vllm_relative: a frame's path from its vllm/ on, or null when it is not in a vllm package. */
  function vllmRelative(raw) {
    const path = raw.replace(/\\/g, "/");
    const at = path.lastIndexOf("/vllm/");
    return at !== -1 ? path.slice(at + 1) : path.startsWith("vllm/") ? path : null;
  }

  /** match.py's _opening_before_a_value: [where it starts, characters found] of chunk's longest start before anchor, a value after it, or null. */
  function openingBeforeAValue(flat, anchor, chunk, origin, cleaned, template, rules) {
    for (let size = chunk.length - 1; size >= 2 * rules.partLeast; size--) {
      const at = pyRfind(flat, chunk.slice(0, size), Math.max(0, anchor - rules.tail - size), anchor);
      if (at === -1 || at + size >= anchor || flat.startsWith(chunk, at)) continue;
      // match.py: nor the template's capital word written small after other words
      if (capitalLowered(cleaned, origin.get(at), template) && midSentence(cleaned, origin.get(at))) return null;
      const after = origin.get(at + size - 1) + 1;
      const next = cleaned.slice(after, after + 1);
      if ((next !== " " && next !== "\t") || cleaned.slice(after, origin.get(anchor)).includes("\n")) continue;
      return [at, size];
    }
    return null;
  }

  function commonPrefix(flat, pos, chunk) {
    let size = 0;
    const n = Math.min(chunk.length, flat.length - pos);
    while (size < n && flat[pos + size] === chunk[size]) size++;
    return size;
  }

  function releaseOfVersion(version, revisions) {
    const key = (text) => (text.match(/\d+/g) || []).slice(0, 3).map(Number);
    const wanted = key(version);
    let best = -1;
    revisions.forEach((revision, n) => {
      if (compareTuples(key(revision), wanted) <= 0) best = n;
    });
    return best === -1 ? 0n : 1n << BigInt(best);
  }

  /** _later_words_follow(): vLLM's later words after pos (after a hole: on the value's own line only). */
  function laterWordsFollow(flat, origin, cleaned, pos, later, afterHole) {
    later = later.filter((c) => /[\p{L}\p{N}]/u.test(c)); // punctuation alone is no words (match.py)
    if (!afterHole || pos >= flat.length) return later.some((c) => pyFind(flat, c, pos) !== -1 || stopLeftOut(flat, origin, cleaned, pos, c) !== -1);
    let lineEnd = cleaned.indexOf("\n", origin.get(pos));
    if (lineEnd === -1) lineEnd = cleaned.length;
    return later.some((c) => {
      const at = pyFind(flat, c, pos);
      const bare = stopLeftOut(flat, origin, cleaned, pos, c);
      return (at !== -1 && origin.get(at) < lineEnd) || (bare !== -1 && origin.get(bare) < lineEnd);
    });
  }

  /** match.py _stop_left_out(): where a chunk that ends a sentence is found without its stop, at a line's end, or -1. */
  function stopLeftOut(flat, origin, cleaned, pos, chunk) {
    if (chunk.length < 2 || !chunk.endsWith(".")) return -1;
    const at = pyFind(flat, chunk.slice(0, -1), pos);
    return at !== -1 && atLineEnd(cleaned, origin.get(at + chunk.length - 2) + 1) ? at : -1;
  }

  /** _continues(): at lies in the few lines after end that carry on the same message (no new traceback between). */
  function continues(cleaned, end, at, rules) {
    const between = cleaned.slice(end, at);
    return between.split("\n").length - 1 <= rules.openValueLines && !between.includes("Traceback (most recent call last)");
  }

  /** _failure_before_warnings(): a logged warning does not come before a sure failure (an error logged or raised) after its end. */
  function failureBeforeWarnings(ranked, rules) {
    if (!ranked.length || ranked[0].error.kind !== "log" || ranked[0].error.exception.toUpperCase() !== "WARNING") return ranked;
    const first = ranked[0];
    const failure = ranked.find(
      (m) => m.start > first.end && m.score >= rules.sure && !m.wrapper &&
        (m.error.kind !== "log" || ["ERROR", "CRITICAL"].includes(m.error.exception.toUpperCase())),
    );
    if (failure === undefined) return ranked;
    return [failure, ...ranked.filter((m) => m !== failure)];
  }

  /** _last_of_warnings(): of sure warnings, each on a line of its own, the one the paste shows last comes first. */
  function lastOfWarnings(ranked, cleaned, rules) {
    const isWarning = (m) => m.error.kind === "log" && m.error.exception.toUpperCase() === "WARNING";
    if (!ranked.length || !isWarning(ranked[0]) || ranked[0].score < rules.sure) return ranked;
    const first = ranked[0];
    let last;
    for (const m of ranked) {
      if (m.start > first.end && cleaned.slice(first.end, m.start).includes("\n") && m.score >= rules.sure && !m.wrapper && isWarning(m)
          && (last === undefined || m.end > last.end)) last = m;
    }
    if (last === undefined) return ranked;
    return [last, ...ranked.filter((m) => m !== last)];
  }

  /** _failure_before_its_report(): a logged report of a failure does not come before the error raised earlier (sure, its type beside). */
  /** _nearly_whole(): a near match that shows much of its message and lacks little: a failure of its own. */
  function nearlyWhole(m, rules) {
    return m.matched >= Math.max(rules.nearlyWhole, rules.outweighs * m.missing);
  }

  /** match.py _grown_past(): the whole of a longer message the match's template grew into, from its start and past its end. */
  function grownPast(m, other, rules) {
    return other !== m && other.start === m.start && other.end > m.end && other.score >= rules.sure
      && other.matched > m.matched && grewFrom(other.error.template, m.error.template, rules);
  }

  /** match.py _grew_from(): a template that opens with the whole of a shorter one (a message made longer). */
  function grewFrom(longer, shorter, rules) {
    const head = squashText(shorter, rules).replace(/\.+$/, "");
    const whole = squashText(longer, rules);
    return head.length < whole.length && whole.startsWith(head);
  }

  function failureBeforeItsReport(ranked, rules) {
    if (!ranked.length || !rules.wrapper.test(ranked[0].error.template)) return ranked;
    const first = ranked[0];
    const earlier = ranked.find(
      (m) => m.end <= first.start && m.start < first.start && !m.wrapper && m.error.kind !== "log"
        && (((m.score >= rules.sure || nearlyWhole(m, rules)) && m.exceptionAgrees) || (m.frame && !m.matched)),
    );
    if (earlier === undefined) return ranked;
    return [earlier, ...ranked.filter((m) => m !== earlier)];
  }

  /** match.py _failure_under_its_log(): an error logged with its traceback under its line reports the exception the traceback ends with. */
  function failureUnderItsLog(ranked, cleaned, rules) {
    if (!ranked.length || ranked[0].error.kind !== "log" || !["ERROR", "CRITICAL"].includes(ranked[0].error.exception.toUpperCase())) return ranked;
    const lineEnd = cleaned.indexOf("\n", ranked[0].end);
    if (lineEnd === -1) return ranked;
    rules.loggedAboveTraceback.lastIndex = lineEnd;
    if (!rules.loggedAboveTraceback.test(cleaned)) return ranked;
    const failure = ranked.find(
      (m) => m.start > lineEnd && m.inLast && m.error.kind !== "log" && !m.wrapper && m.score >= rules.sure && m.exceptionAgrees,
    );
    if (failure === undefined) return ranked;
    return [failure, ...ranked.filter((m) => m !== failure)];
  }

  /** _inside_path(): a message that opens with its words starts right after a path's separator ("/vllm/v1/engine/..."). */
  function insidePath(cleaned, start, template) {
    return start > 0 && (cleaned[start - 1] === "/" || cleaned[start - 1] === "\\") && !template.startsWith("{");
  }

  /** _one_identifier(): a template of several words matched one word of the paste ("InternalServerError"). */
  function oneIdentifier(cleaned, start, end, template) {
    return end > start && pyStrip(template).includes(" ") && !/\s/.test(cleaned.slice(start, end));
  }

  /** _closers_then_stop(): closing brackets or quotes that open a chunk right before its full stop (")." of ").eachdecode"). */
  function closersThenStop(chunk) {
    let shut = 0;
    while (shut < chunk.length && ")]'\"`".includes(chunk[shut])) shut++;
    return shut && chunk[shut] === "." ? shut : 0;
  }

  /** match.py _words_then_stop(): the letters that open a chunk right before its full stop ("tokens" of "tokens.however,"). */
  function wordsThenStop(chunk, rules) {
    const stop = chunk.indexOf(".");
    const words = stop > 0 ? chunk.slice(0, stop).replace(/[)\]'"`]+$/, "") : ""; // with the brackets they close (match.py)
    return words.length >= rules.stopWordLeast && /^\p{L}+$/u.test(words) ? stop : 0;
  }

  /** _sentence_ends(): a sentence of the message ends after the chunk's first common characters, its stop left out or shown. */
  /** match.py _walk(): the message's opening words (its first literal segment), long enough and all found. */
  function openingShown(chunks, owners, bounds, rules) {
    let size = 0;
    for (let i = 0; i < chunks.length; i++) {
      if (owners[i] !== 0) continue;
      if (bounds[i] === null || bounds[i][1] - bounds[i][0] !== chunks[i].length) return false; // each shown whole
      size += chunks[i].length;
    }
    return size >= rules.openingLeast;
  }

  /** match.py _closed_value(): a value whole as shown: quoted, or in brackets, that close. */
  function closedValue(shown) {
    return shown.length >= 2 && (("'\"`".includes(shown[0]) && shown[shown.length - 1] === shown[0]) || (shown[0] === "[" && shown[shown.length - 1] === "]"));
  }

  /** match.py _one_value_to_line_end(): what follows position on its line is one value, no words after it. */
  function oneValueToLineEnd(text, position) {
    const end = text.indexOf("\n", position);
    const rest = pyStrip(text.slice(position, end === -1 ? text.length : end));
    return rest.length > 0 && !PY_SPACE_RUN.test(rest);
  }

  /** match.py _assert_has_message(): a comma outside brackets and quotes after `assert`. */
  function assertHasMessage(condition) {
    let depth = 0;
    let quote = "";
    for (let i = 0; i < condition.length; i++) {
      const char = condition[i];
      if (quote) {
        if (char === quote && condition[i - 1] !== "\\") quote = "";
      } else if (char === "'" || char === '"') quote = char;
      else if ("([{".includes(char)) depth += 1;
      else if (")]}".includes(char)) depth -= 1;
      else if (char === "," && depth === 0) return true;
    }
    return false;
  }

  function sentenceEnds(chunk, common) {
    const alpha = (c) => /^\p{L}$/u.test(c) || c === ")" || c === "]"; // a word or a closing bracket before the stop (match.py)
    // ... or a number, where a word follows the stop ("8.0." of "8.0.your")
    return common > 0 && common < chunk.length && ((chunk[common] === "." && (alpha(chunk[common - 1])
      || (/^\p{Nd}$/u.test(chunk[common - 1]) && /^\p{L}$/u.test(chunk.slice(common + 1, common + 2)))))
      || (common > 1 && chunk[common - 1] === "." && alpha(chunk[common - 2])));
  }

  /** clean.py without_closing_words(): the text without the person's own words and an issue form's lines that close it, when something is left. */
  function withoutClosingWords(text, rules) {
    const tail = lastCodePoints(text, rules.closingTail); // (the tail in code points, as Python slices it)
    let end = tail.length;
    let noise = false;
    for (let i = 0; i < rules.closingLines; i++) {
      const body = tail.slice(0, end).replace(PY_SPACE_TAIL, "");
      const start = body.lastIndexOf("\n") + 1;
      if (!start) break;
      rules.closingWords.lastIndex = start;
      rules.closingForm.lastIndex = start;
      rules.closingNoise.lastIndex = start;
      if (rules.closingNoise.test(body)) noise = true;
      else if (!rules.closingWords.test(body) && !rules.closingForm.test(body)) break; // (closing_words ends at the body's end: its "$")
      end = start - 1;
    }
    if (end === tail.length) return text;
    const kept = text.slice(0, text.length - tail.length + end);
    // clean.py: words must be left, and an error before the shutdown's noise
    return rules.wordLeft.test(kept) && (!noise || rules.errorLeft.test(kept)) ? kept : text;
  }

  /** clean.py _json_log_message(): a JSON log record's line is its message, without its line break. */
  function jsonLogMessage(line, rules) {
    if ((line.match(/[{[]/g) || []).length > rules.jsonLogBrackets) return line;
    let record;
    try {
      record = JSON.parse(fromSlots(line)); // (the slot form's lone surrogates are no JSON text of their own)
    } catch (error) {
      return line;
    }
    const has = (key) => Object.prototype.hasOwnProperty.call(record, key);
    if (record === null || typeof record !== "object" || Array.isArray(record) || !rules.jsonLogRecordKeys.some(has)) return line;
    for (const key of rules.jsonLogMessageKeys) {
      if (has(key) && typeof record[key] === "string") {
        const parts = [record[key], ...rules.jsonLogDetailKeys.filter((k) => has(k) && typeof record[k] === "string").map((k) => record[k])];
        const lineOf = (part) => {
          if (part.endsWith("\n")) part = part.slice(0, -1);
          return part.endsWith("\r") ? part.slice(0, -1) : part;
        };
        return toSlots(parts.map(lineOf).join("\n")); // (in slot form again, its escaped astral characters and surrogates too)
      }
    }
    return line;
  }

    /** match.py _new_sentence_follows(): a sentence of the paste's own after a blank at ``at``, on its line. */
  function newSentenceFollows(cleaned, at, rules) {
    rules.newSentenceAfter.lastIndex = at;
    return rules.newSentenceAfter.test(cleaned);
  }

  /** clean.py's untypeset(): a web page's no-break spaces are spaces, its invisible characters gone, a
   * flag's dash two hyphens again, Markdown's "**...**" around text the text alone, curly quotes straight. */
  function untypeset(text, rules) {
    text = text.replace(rules.webSpace, " ").replace(rules.invisible, "").replace(rules.typographicFlag, "--");
    if (text.includes("**")) text = text.replace(rules.markdownStrong, "$1");
    return text.replace(rules.curlySingle, "'").replace(rules.curlyDouble, '"');
  }

  /** match.py _unnamed_least(): how much a match with neither type nor tag must show where the paste's words go on at end. */
  function unnamedLeastAt(asTyped, cleaned, opening, openingOwner, end, rules) {
    if (openingOwner) opening = openingOf(cleaned, opening);
    const lead = cleaned.slice(cleaned.lastIndexOf("\n", opening - 1) + 1, opening).replace(/^[ \t]+|[ \t]+$/g, "");
    if (lead && !lead.endsWith(":") && !lead.endsWith("\uff1a")) return rules.nearlyWhole; // but a title's lead-in and its colon
    const lineEnd = cleaned.indexOf("\n", end);
    if (rules.newSentence.test(cleaned.slice(end, lineEnd === -1 ? cleaned.length : lineEnd))) return rules.nearlyWhole;
    return asTyped() ? rules.unnamedLeast : rules.nearlyWhole; // asked last (match.py)
  }

  /** _mid_sentence(): the position follows a word on its line (a message opens a line, or follows a prefix, a colon, a quote). */
  function midSentence(text, position) {
    const lineStart = text.lastIndexOf("\n", position - 1) + 1;
    const before = text.slice(lineStart, position).replace(/[ \t]+$/, "");
    if (!before) return false;
    const last = before[before.length - 1];
    return /[A-Za-z0-9]/.test(last);
  }

  /** _diverges(): after a hole, the paste goes on with vLLM's next words and then other words on the line. */
  function diverges(flat, origin, cleaned, pos, chunk, rules) {
    // a value closed by a bracket ends at it: one character of vLLM's next words is enough (match.py: VALUE_CLOSERS)
    const size = chunk.length && rules.valueClosers.includes(chunk[0]) ? 1 : rules.diverge;
    if (pos >= flat.length || chunk.length < size) return false;
    let lineEnd = cleaned.indexOf("\n", origin.get(pos));
    if (lineEnd === -1) lineEnd = cleaned.length;
    const head = chunk.slice(0, size);
    let at = pyFind(flat, head, pos);
    while (at !== -1 && origin.get(at) < lineEnd) {
      const common = commonPrefix(flat, at, chunk);
      const shared = origin.get(at + common - 1);
      // but a word right where the value starts, sharing only its first letters, is the value: "to" of "torch.Size" (match.py)
      if (at + common < flat.length && origin.get(at + common) < lineEnd
          && (!messageEnds(cleaned, shared + 1, rules) || ownStop(flat, at + common, chunk, common))
          && !(at === pos && /^[A-Za-z0-9]$/.test(cleaned[shared]) && /^[A-Za-z0-9]$/.test(cleaned[shared + 1]))
          // nor do vLLM's next words start inside a word of the value: "on" of "MistralCommonPixtralProcessor" (match.py)
          && !(at > pos && /^[A-Za-z0-9]$/.test(chunk[0]) && /^[A-Za-z0-9]$/.test(cleaned[origin.get(at) - 1] || ""))) return true;
      at = pyFind(flat, head, at + 1);
    }
    return false;
  }

  /** match.py _own_stop(): the paste ends a sentence with one full stop where vLLM's words, whole up to there, go on otherwise. */
  function ownStop(flat, at, chunk, common) {
    const alnum = (c) => /^[\p{L}\p{N}]$/u.test(c);
    return flat[at] === "." && flat.slice(at + 1, at + 2) !== "." && common < chunk.length && chunk[common] !== "."
      && alnum(chunk[common - 1]) && !alnum(chunk[common]);
  }

  /** match.py's _word_goes_on: the paste's word goes on where the template's last word ends (ASCII). */
  /** match.py _cut_inside_word(): the paste stops inside one of the template's words ("... (lengt" of "(length"). */
  function cutInsideWord(cleaned, template, rules) {
    const tail = rules.pasteEndsInAWord.exec(cleaned);
    if (tail === null) return false;
    const part = tail[1];
    rules.hole.lastIndex = 0;
    const words = new Set(toSlots(template).replace(rules.hole, " ").match(rules.asciiWord) || []);
    if (words.has(part)) return false;
    for (const w of words) if (w.startsWith(part)) return true;
    return false;
  }

  /** match.py _value_start(): where the value before the position starts (the run of non-space characters ending there). */
  /** match.py _in_a_response_body(): a key of an HTTP error body (or "Error code: 500 - ") before the match on its line. */
  function inAResponseBody(cleaned, start, rules) {
    return rules.responseBody.test(cleaned.slice(cleaned.lastIndexOf("\n", start - 1) + 1, start));
  }

  /** match.py _labelled_value(): the value a message opens with follows other words than a type or a prefix. */
  function labelledValue(text, position, rules) {
    const lineStart = text.lastIndexOf("\n", position - 1) + 1;
    let end = position;
    while (end > lineStart && (text[end - 1] === " " || text[end - 1] === "\t")) end--;
    const before = pySplit(text.slice(lineStart, valueStart(text, end)));
    // ... or a name and its equals sign (match.py)
    if (before.length >= 2 && before[before.length - 1] === "=" && /^[A-Za-z_][\w.]*$/.test(before[before.length - 2])) return true;
    return before.length > 0 && before[before.length - 1].endsWith(":") && !rules.valueOpensAfter.test(before[before.length - 1]);
  }

  /** _opening(): where a message that opens with a value opens, past the space between the value and its first words. */
  function openingOf(text, position) {
    let end = position;
    while (end > 0 && (text[end - 1] === " " || text[end - 1] === "\t")) end--;
    return valueStart(text, end);
  }

  /** _value_start(): where the value before the position starts (the run of non-space characters that ends there). */
  function valueStart(text, position) {
    while (position > 0 && !PY_SPACE_ONE.test(text[position - 1])) position--;
    return position;
  }

  /** match.py _in_a_name(): whether the position lies inside a name (after an ASCII letter, digit or underscore). */
  function inAName(text, position) {
    return position > 0 && /[A-Za-z0-9_]/.test(text[position - 1]);
  }

  /** match.py _typed_words_before(): the value before the position follows another exception type's words. */
  function typedWordsBefore(text, position, exception, rules) {
    const lineStart = position > 0 ? text.lastIndexOf("\n", position - 1) + 1 : 0;
    let end = position;
    while (end > lineStart && (text[end - 1] === " " || text[end - 1] === "\t")) end--;
    const found = rules.typedWords.exec(pyRstripChars(text.slice(lineStart, valueStart(text, end)), " \t"));
    return found !== null && lowerSlots(found[1]) !== exception && !found[2].endsWith(":");
  }

  /** match.py _labelled_in_exception(): a message's words after an exception's type and another's name with its colon. */
  function labelledInException(text, position, rules) {
    const lineStart = position > 0 ? text.lastIndexOf("\n", position - 1) + 1 : 0;
    return rules.labelledInException.test(text.slice(lineStart, position));
  }

  /** match.py _value_ends_a_sentence(): the value from the position holds words that end a sentence on its line. */
  function valueEndsASentence(text, position, rules) {
    let end = text.indexOf("\n", position);
    if (end === -1) end = text.length;
    return rules.valueSentenceEnd.test(text.slice(position, end));
  }

  /** match.py _quote_opening(): where a message that opens with a value starts after the quote that opens it, or null. */
  function quoteOpening(text, position, rules) {
    let end = position;
    while (end > 0 && (text[end - 1] === " " || text[end - 1] === "\t")) end--;
    const start = valueStart(text, end);
    const quoted = rules.quoteOpensMessage.exec(text.slice(start, end));
    return quoted !== null ? start + quoted.index + quoted[0].length : null;
  }

  /** match.py _opening_value(): the value a message opens with, its first words at the position (for the page). */
  function openingValue(text, position, template, rules) {
    const segments = splitTemplate(toSlots(template))[0];
    let end = position;
    while (end > 0 && (text[end - 1] === " " || text[end - 1] === "\t")) end--;
    let value = text.slice(valueStart(text, end), end);
    const quoted = rules.quoteOpensMessage.exec(value);
    if (quoted !== null) value = value.slice(quoted.index + quoted[0].length); // the quote of a client's error body (match.py)
    const close = pyStrip(droppedHead(segments[1], rules));
    if (close && value.endsWith(close)) value = value.slice(0, value.length - close.length);
    const opening = pyStrip(segments[0]);
    if (opening && value.startsWith(opening)) value = value.slice(opening.length);
    return value.endsWith(":") || value.endsWith("\uff1a") ? "" : value;
  }

  /** match.py _closing_value(): the value a message closes with, its last words ending at the position (for the page). */
  function closingValue(text, position, template, start, rules) {
    const segments = splitTemplate(toSlots(template))[0];
    let end = text.indexOf("\n", position);
    if (end === -1) end = text.length;
    let stop = quoteEnd(text, start, position, rules);
    if (stop === -1) {
      rules.valueTail.lastIndex = position;
      const tail = rules.valueTail.exec(text);
      stop = tail && tail.index + tail[0].length <= end ? tail.index : end;
    }
    let value = pyStrip(text.slice(position, stop));
    const opening = pyStrip(droppedTail(segments[segments.length - 2], rules));
    if (opening && value.startsWith(opening)) value = value.slice(opening.length);
    const close = pyStrip(segments[segments.length - 1]);
    if (close && value.endsWith(close)) value = value.slice(0, value.length - close.length);
    value = pyStrip(value);
    return pyStripChars(value, "`") ? value : ""; // a Markdown fence closing the paste is no value
  }

  /** match.py _quote_end(): where the quote that opens a message at start closes, from the position on its line (-1: none). */
  function quoteEnd(text, start, position, rules) {
    const quote = start ? text.slice(start - 1, start) : "";
    if (quote !== "'" && quote !== '"') return -1;
    let end = text.indexOf("\n", position);
    if (end === -1) end = text.length;
    const pattern = quote === '"' ? rules.quoteClosesDouble : rules.quoteClosesSingle;
    pattern.lastIndex = position;
    const found = pattern.exec(text);
    return found && found.index + found[0].length <= end ? found.index : -1;
  }

  /** match.py _dropped_head(): the characters that open the segment and that squashing drops. */
  function droppedHead(segment, rules) {
    let size = 0;
    while (size < segment.length && rules.dropped.test(segment[size])) size++;
    return segment.slice(0, size);
  }

  /** match.py _dropped_tail(): the characters that close the segment and that squashing drops. */
  function droppedTail(segment, rules) {
    let size = segment.length;
    while (size > 0 && rules.dropped.test(segment[size - 1])) size--;
    return segment.slice(size);
  }

  /** match.py _capital_opens(): the paste shows the capital letter the template opens with. */
  function capitalOpens(text, position, template) {
    const opening = template.slice(0, 1);
    return /^[A-Z]$/.test(opening) && text.slice(position, position + 1) === opening;
  }

  /** match.py _capital_lowered(): the template opens with a capitalised word that the paste writes small. */
  function capitalLowered(text, position, template) {
    return /^[A-Z][a-z]/.test(template) && text.slice(position, position + 1) === template[0].toLowerCase();
  }

  /** match.py _spaced_before_hole(): per literal segment, whether it ends with a word, then a space, before its hole. */
  const spacedCache = new Map();
  function spacedBeforeHole(template) {
    let spaced = spacedCache.get(template);
    if (spaced === undefined) {
      const [segments, holes] = splitTemplate(toSlots(template));
      // a word, then a space or a quote (or both), before the hole ("Model architecture '{model_arch}' ...")
      spaced = segments.map((seg, i) => i < holes.length && /[ \t'"`\u2018\u2019\u201c\u201d]$/.test(seg)
        && /^[A-Za-z0-9]$/.test(seg.replace(/[ \t'"`\u2018\u2019\u201c\u201d]+$/, "").slice(-1)));
      spacedCache.set(template, spaced);
    }
    return spaced;
  }

  /** match.py _word_glued_to_value(): a word before a value that runs on in the paste ("Error Internal" is no "Error in {name}"). */
  function wordGluedToValue(entry, bounds, origin, cleaned, template) {
    const spaced = spacedBeforeHole(template);
    const chunks = entry.chunks;
    const owners = entry.segmentOf;
    for (let i = 0; i < bounds.length; i++) {
      const b = bounds[i];
      if (b === null || b[1] - b[0] !== chunks[i].length || !spaced[owners[i]]
          || (i + 1 < chunks.length && owners[i + 1] === owners[i]) || (i > 0 && owners[i - 1] !== owners[i])) continue;
      const after = origin.get(b[1] - 1) + 1;
      if (after < cleaned.length && /^[A-Za-z0-9]$/.test(cleaned[after]) && /^[A-Za-z0-9]$/.test(cleaned[after - 1])) return true;
    }
    return false;
  }

  function wordGoesOn(cleaned, position, template) {
    const last = toSlots(template).replace(PY_SPACE_TAIL, "").slice(-1);
    return last !== "" && position < cleaned.length && /^[A-Za-z0-9]$/.test(last) && /^[A-Za-z0-9]$/.test(cleaned[position]);
  }

  /** match.py _closed_value_goes_on(): a quoted value opens here, closes on its line, and words follow it. */
  /** match.py _quoted_value_end(): after the closing quote of a quoted value that opens at the position, closes on its line, and words follow. */
  function quotedValueEnd(text, position, rules) {
    if (!closedValueGoesOn(text, position, rules)) return null;
    const end = text.indexOf("\n", position);
    const line = text.slice(position, end === -1 ? text.length : end);
    const start = line.length - line.replace(/^[ \t]+/, "").length;
    return position + start + quoteCloses(line.slice(start), rules) + 1;
  }

  /** match.py's _quote_closes: where the quote that opens quoted closes (a doubled one doubled), or -1. */
  function quoteCloses(quoted, rules) {
    const quote = quoted[0];
    const closer = rules.closingQuote[quote];
    if (quoted.slice(1, 2) === quote) {
      const close = quoted.indexOf(closer.repeat(2), 2);
      if (close !== -1) return close + 1;
    }
    let close = quoted.indexOf(closer, 1);
    // match.py: a quote between a blank and a word opens a quoted word inside the value; the value's quote is after its close
    while (close !== -1 && closer === quote && /\s/.test(quoted[close - 1]) && /^[A-Za-z0-9]/.test(quoted.slice(close + 1, close + 2))) {
      const inner = quoted.indexOf(closer, close + 1);
      close = inner !== -1 ? quoted.indexOf(closer, inner + 1) : -1;
    }
    return close;
  }

  function closedValueGoesOn(text, position, rules) {
    const end = text.indexOf("\n", position);
    const rest = text.slice(position, end === -1 ? text.length : end).replace(/^[ \t]+/, "");
    if (!rest || !Object.prototype.hasOwnProperty.call(rules.closingQuote, rest[0])) return false;
    const close = quoteCloses(rest, rules);
    const after = close !== -1 ? rest.slice(close + 1).replace(/^[ \t]+/, "") : "";
    return /^[A-Za-z0-9]/.test(after);
  }

  function messageEnds(text, position, rules, valueNext) {
    if (valueNext === undefined) valueNext = true;
    const end = text.indexOf("\n", position);
    let rest = text.slice(position, end === -1 ? text.length : end);
    let i = 0;
    while (i < rest.length && " \t.,;:\u2026".includes(rest[i])) i++;
    rest = rest.slice(i);
    // match.py: where vLLM's words go on, a quote before a word opens another value
    return !rest || (rules.closers.includes(rest[0]) && (valueNext || !(rules.openingQuotes.includes(rest[0]) && /^[A-Za-z0-9_]$/.test(rest.charAt(1)))));
  }

  /** fill(): the message with the paste's values in its holes (… where it shows none). */
  function fill(template, values, rules) {
    const [segments, holes] = splitTemplate(toSlots(template));
    let out = segments[0];
    holes.forEach((hole, i) => {
      const name = fromSlots(holeName(hole));
      const value = values.has(name) ? values.get(name) : "";
      out += (value ? toSlots(value) : rules.ellipsis) + segments[i + 1];
    });
    return fromSlots(out);
  }

  // fixes.py: a curated fix command with the paste's own numbers in it, and only numbers
  const FIX_NUMBER = /^[0-9]+(?:\.[0-9]+)?$/;
  const FIX_SENTENCE_NUMBER = /^[A-Za-z][A-Za-z ,]* ([0-9]+(?:\.[0-9]+)?)\.?$/;

  /** fixes.py fill_names(): an entry's fill as [setting, placeholders] pairs. */
  function fillNames(fill) {
    if (!fill || typeof fill !== "object" || Array.isArray(fill)) return [];
    return Object.keys(fill).map((setting) => {
      const names = fill[setting];
      return [setting, typeof names === "string" ? [names] : Array.isArray(names) ? names.filter((n) => typeof n === "string") : []];
    });
  }

  /** fixes.py paste_number(): the number the paste gives for the first placeholder it fills. */
  function pasteNumber(placeholders, values) {
    for (const name of placeholders) {
      const value = pyStrip(values.has(name) ? values.get(name) || "" : "");
      if (FIX_NUMBER.test(value)) return value;
      const sentence = FIX_SENTENCE_NUMBER.exec(value);
      if (sentence) return sentence[1];
    }
    return null;
  }

  /** fixes.py setting_pattern(): where a command sets the setting, by flag or keyword. */
  function settingPattern(setting) {
    const escaped = setting.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    return new RegExp("(--" + escaped.replace(/_/g, "[-_]") + "[ =]|(?<![A-Za-z0-9_])" + escaped + "=)([^\\s,()'\"]+)", "g");
  }

  /** fixes.py fix_with_values(): {title, command}, and the paste's numbers in the command where it gives them. */
  function fixWithValues(fix, values) {
    if (!fix) return fix;
    const shown = { title: fix.title || "", command: fix.command || "" };
    const found = {};
    let command = shown.command;
    for (const [setting, placeholders] of fillNames(fix.fill)) {
      const number = pasteNumber(placeholders, values);
      if (number !== null && shown.command.search(settingPattern(setting)) >= 0) {
        Object.defineProperty(found, setting, { value: number, enumerable: true, writable: true, configurable: true });
      }
    }
    for (const setting of Object.keys(found)) command = command.replace(settingPattern(setting), (whole, flag) => flag + found[setting]);
    if (command !== shown.command) {
      shown.example = shown.command;
      shown.command = command;
      shown.from_paste = found;
    }
    return shown;
  }

  /** match.py _elided_between(): an ellipsis on one line between start and end. */
  function elidedBetween(cleaned, start, end, rules) {
    const between = cleaned.slice(start, end);
    return !between.includes("\n") && rules.ellipsisMark.test(between);
  }

  function atLineEnd(text, position) {
    const end = text.indexOf("\n", position);
    return !pyStripChars(text.slice(position, end === -1 ? text.length : end), " \t.,;:");
  }

  function longestPrefixAtEnd(text, segment) {
    for (let size = Math.min(text.length, segment.length); size > 0; size--) {
      if (text.endsWith(segment.slice(0, size))) return size;
    }
    return 0;
  }

  // --- the worker -----------------------------------------------------------------------------
  //
  // In a worker, this file answers the page's messages: {kind: "index", text} builds the
  // matcher; {kind: "lookup", text, top} and {kind: "clean", text} answer {id, result} (or
  // {id, error}). A paste that names HTML entities first asks the page for them ({id, need}),
  // which answers {kind: "entities", id, names, texts}. One message is handled at a time:
  // the slots of a paste are its own until the answer is sent.

  if (IN_WORKER) {
    let matcher = null;
    let queue = Promise.resolve();
    const asked = new Map(); // message id -> resolve, while the page decodes its entities

    const handle = async (message) => {
      if (message.kind === "index") {
        matcher = new Matcher(JSON.parse(message.text));
        return true;
      }
      if (matcher === null) throw new Error("the lookup index is not loaded");
      resetSlots();
      // Matcher.lookup's first step: what reads the paste's end reads it before the person's words (clean_paste does not)
      const given = message.kind === "clean" ? String(message.text) : withoutClosingWords(String(message.text), matcher.rules);
      const start = matcher.cleanStart(given);
      const names = entityNamesIn(start);
      if (names.length) {
        await new Promise((resolve) => {
          asked.set(message.id, resolve);
          self.postMessage({ id: message.id, need: names });
        });
      }
      const cleaned = matcher.cleanRest(start);
      return message.kind === "clean" ? fromSlots(cleaned) : matcher.lookupCleaned(cleaned, message.top, given);
    };

    self.onmessage = (event) => {
      const message = event.data;
      if (message.kind === "entities") {
        message.names.forEach((name, i) => entityCache.set(name, message.texts[i]));
        const resolve = asked.get(message.id);
        asked.delete(message.id);
        if (resolve) resolve();
        return;
      }
      queue = queue
        .then(() => handle(message))
        .then(
          (result) => self.postMessage({ id: message.id, result }),
          (error) => self.postMessage({ id: message.id, error: String((error && error.message) || error) }),
        );
    };
  }

  // --- loading ------------------------------------------------------------------------------------

  /** The matcher run in the page itself, where no worker can start. */
  function pageBackend(text) {
    const matcher = new Matcher(JSON.parse(text));
    return {
      lookup: (paste, top) => Promise.resolve(matcher.lookup(paste, top)),
      clean(paste) {
        resetSlots();
        return Promise.resolve(fromSlots(matcher.cleanPaste(String(paste))));
      },
    };
  }

  /** The matcher in a worker running this file; rejects when the worker cannot start. */
  function workerBackend(text) {
    return new Promise((resolve, reject) => {
      if (typeof Worker === "undefined" || !SCRIPT_URL) {
        reject(new Error("no Web Worker here"));
        return;
      }
      let worker;
      try {
        worker = new Worker(SCRIPT_URL);
      } catch (error) {
        reject(error);
        return;
      }
      const pending = new Map();
      let next = 0;
      let broken = null;
      let started = false;
      const call = (kind, fields) =>
        new Promise((done, fail) => {
          if (broken) {
            fail(broken);
            return;
          }
          const id = ++next;
          pending.set(id, [done, fail]);
          worker.postMessage(Object.assign({ id, kind }, fields));
        });
      worker.onmessage = (event) => {
        const message = event.data;
        if (message.need) {
          worker.postMessage({ kind: "entities", id: message.id, names: message.need, texts: decodeEntities(message.need) });
          return;
        }
        const waiting = pending.get(message.id);
        if (!waiting) return;
        pending.delete(message.id);
        if (message.error !== undefined) waiting[1](new Error(message.error));
        else waiting[0](message.result);
      };
      worker.onerror = (event) => {
        if (event && event.preventDefault) event.preventDefault();
        broken = new Error("the lookup worker failed" + (event && event.message ? ": " + event.message : ""));
        for (const [, waiting] of pending) waiting[1](broken);
        pending.clear();
        worker.terminate();
        if (started) loading = null; // it worked before: the next lookup starts it again
        reject(broken);
      };
      call("index", { text }).then(
        () => {
          started = true;
          resolve({
            lookup: (paste, top) => call("lookup", { text: String(paste), top }),
            clean: (paste) => call("clean", { text: String(paste) }),
          });
        },
        (error) => {
          worker.terminate(); // not an index it could read: the page tries, and says why
          reject(error);
        },
      );
    });
  }

  let loading = null;

  function load() {
    if (loading === null) {
      loading = fetch(INDEX_URL, { credentials: "same-origin" })
        .then((response) => {
          if (!response.ok) throw new Error("HTTP " + response.status + " for " + INDEX_URL);
          return response.text();
        })
        .then((text) => workerBackend(text).catch(() => pageBackend(text)));
      loading.catch(() => {
        loading = null; // a later try fetches it again
      });
    }
    return loading;
  }

  const api = {
    /** Resolves to true once the index is loaded and the matcher built (fetched on first use). */
    get ready() {
      return load().then(() => true);
    },
    /** The best matches for a paste, and where it comes from when that is not vLLM. */
    lookup(text, top) {
      return load().then((backend) => backend.lookup(text, top === undefined ? 5 : top));
    },
    /** A lookup over the given index (its JSON text) instead of the site's; for tests. */
    _lookupWith(indexText, text, top) {
      return new Matcher(JSON.parse(indexText)).lookup(text, top === undefined ? 5 : top);
    },
    /** The cleaned paste (clean_paste), for tests. */
    _clean(text) {
      return load().then((backend) => backend.clean(text));
    },
    /** Spans (in code points) of a Python-syntax pattern's matches, as re.finditer gives them; for tests. */
    _spans(source, flags, text) {
      resetSlots();
      return Array.from(toSlots(String(text)).matchAll(pyRegex(source, flags, "g")), (m) => [m.index, m.index + m[0].length]);
    },
    indexUrl: INDEX_URL,
    siteRoot: SITE_ROOT,
  };
  (typeof window !== "undefined" ? window : globalThis).errorkb = api;

  // --- the page -------------------------------------------------------------------------------------

  function element(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function message(results, text, className) {
    results.replaceChildren(element("p", className || "errorkb-message", text));
  }

  function renderMatch(match) {
    const block = element("div", "errorkb-match" + (match.verdict === "exact" ? "" : " errorkb-partial"));
    const heading = element("p", "errorkb-title");
    const link = element("a", null, match.title);
    link.href = new URL(match.current.url, SITE_ROOT).href;
    heading.appendChild(link);
    // cli/lookup.py: nothing of the message's words in the paste, its raise's frame or its log header named it
    if (match.verdict !== "exact")
      heading.appendChild(element("span", "errorkb-verdict", match.type_only ? " partial: only its exception type is shown, which vLLM raises with other messages too"
        : match.coverage ? " partial: the message may have been reworded" : " partial: found where vLLM raises or logs it, not by its words"));
    block.appendChild(heading);

    const entry = match.entry;
    if (entry) {
      block.appendChild(withCode(element("p", "errorkb-summary"), entry.summary));
      if (entry.fix) {
        const fix = element("p", "errorkb-fix");
        fix.appendChild(element("strong", null, "Fix: "));
        fix.appendChild(document.createTextNode(entry.fix.title));
        block.appendChild(fix);
        if (entry.fix.command) {
          const pre = element("pre", "errorkb-command");
          pre.appendChild(element("code", null, entry.fix.command));
          block.appendChild(pre);
        }
        if (entry.fix.from_paste) {
          const taken = Object.keys(entry.fix.from_paste).map((setting) => setting + "=" + entry.fix.from_paste[setting]).join(", ");
          block.appendChild(element("p", "errorkb-meta", "(" + taken + " from your paste; the rest is the entry's example)"));
        }
      }
    }
    if (match.message) block.appendChild(element("p", "errorkb-filled", match.message));
    // cli/lookup.py: the paste quotes a reason the message gives, not the message
    if (match.reason) block.appendChild(element("p", "errorkb-meta", "Your paste quotes one of the reasons it gives: " + match.reason));

    const site = match.current.sites.length ? match.current.sites[0] : null;
    const meta = ["score " + pyFixed2(match.score), match.verdict, "id " + match.current.id];
    if (match.current.versions.length) meta.push(versionRange(match.current.versions));
    if (site) meta.push(site.path + ":" + site.line);
    block.appendChild(element("p", "errorkb-meta", meta.join(" · ")));
    if (match.id !== match.current.id) {
      block.appendChild(element("p", "errorkb-meta", "Your release's wording (" + match.id + ", " + versionRange(match.versions) +
        "): " + match.template + " The pin's error is " + match.current.id + "; its page says what changed since."));
    } else if (match.also.length) {
      block.appendChild(element("p", "errorkb-meta", "Other ids of this problem: " +
        match.also.slice(0, 4).map((a) => a.id + " (" + versionRange(a.versions) + ")").join(", ")));
    }
    return block;
  }

  /** Text with its `backticked` parts as code elements (text nodes only: nothing is parsed as HTML). */
  function withCode(node, text) {
    text.split("`").forEach((part, i) => {
      if (part) node.appendChild(i % 2 ? element("code", null, part) : document.createTextNode(part));
    });
    return node;
  }

  function versionRange(versions) {
    if (!versions.length) return "";
    return versions.length === 1 ? versions[0] : versions[0] + " – " + versions[versions.length - 1];
  }

  function renderForeign(foreign, heading) {
    const block = element("div", "errorkb-foreign");
    const title = element("p", "errorkb-title");
    title.appendChild(document.createTextNode(heading + ": "));
    if (foreign.url) {
      const link = element("a", null, foreign.title);
      link.href = new URL(foreign.url, SITE_ROOT).href;
      title.appendChild(link);
    } else {
      title.appendChild(document.createTextNode(foreign.reason));
    }
    title.appendChild(document.createTextNode(" (from " + foreign.source + ")"));
    block.appendChild(title);
    if (foreign.why) block.appendChild(element("p", "errorkb-line", "Why: " + foreign.why));
    if (foreign.line) {
      const line = element("p", "errorkb-line", "The line: ");
      line.appendChild(element("code", null, foreign.line));
      block.appendChild(line);
    }
    if (foreign.phase) block.appendChild(withCode(element("p", "errorkb-phase"), "It happened during " + foreign.phase + ". " + (foreign.advice || "")));
    if (foreign.steps && foreign.steps.length) {
      const list = element("ul", "errorkb-steps");
      for (const step of foreign.steps.slice(0, 3)) list.appendChild(withCode(element("li"), step));
      block.appendChild(list);
    }
    return block;
  }

  function searchLink(text) {
    // the site search, with the pasted words: nothing matched, but a page may mention them
    const words = text.replace(/[^\p{L}\p{N}_]+/gu, " ").trim().split(" ").slice(0, 8).join(" ");
    const link = element("a", null, "Search the site for these words");
    link.href = new URL("?q=" + encodeURIComponent(words), SITE_ROOT).href;
    return link;
  }

  function render(results, found, text) {
    const nodes = [];
    const foreign = found.not_vllm;
    if (foreign && foreign.role === "answer") {
      nodes.push(renderForeign(foreign, "Not a vLLM error"));
      if (found.matches.length) nodes.push(element("p", "errorkb-message",
        found.matches.every((m) => m.verdict !== "exact") ? "Near vLLM messages, worded otherwise:" : "vLLM also reported:"));
    } else if (!found.matches.length) {
      const none = element("p", "errorkb-message errorkb-none", "No vLLM error matches this text. ");
      none.appendChild(searchLink(text || ""));
      nodes.push(none);
    }
    const releases = found.releases;
    // (as _says_which in generator/cli/lookup.py: more than a message the pin still prints says)
    if (releases && found.matches.length && releases.releases.length && releases.releases.length < releases.of &&
        (!releases.releases.includes(releases.last) || releases.evidence.length > 1)) {
      nodes.push(element("p", "errorkb-releases", "This log matches vLLM " + versionRange(releases.releases) +
        (releases.version ? " (vLLM " + releases.version + ")" : "") + ": by " + releases.evidence.join(", ") + "."));
    }
    for (const match of found.matches) nodes.push(renderMatch(match));
    if (foreign && foreign.role === "cause") nodes.push(renderForeign(foreign, "Its cause, not vLLM's"));
    if (foreign && foreign.role === "wrapper") nodes.push(renderForeign(foreign, "Re-raised by another program, not vLLM"));
    results.replaceChildren(...nodes);
  }

  function setUp() {
    const paste = document.getElementById("errorkb-paste");
    const button = document.getElementById("errorkb-find");
    const results = document.getElementById("errorkb-results");
    if (!paste || !button || !results || paste.dataset.errorkbReady) return;
    paste.dataset.errorkbReady = "1";
    let asked = 0;

    function find() {
      const text = paste.value;
      const ask = ++asked;
      if (!text.trim()) {
        message(results, "Paste an error message, traceback or log first.", "errorkb-message errorkb-empty");
        return;
      }
      message(results, "Looking it up…");
      api.lookup(text, 5).then(
        (found) => {
          if (ask === asked) render(results, found, text);
        },
        (error) => {
          if (ask === asked) message(results, "The lookup failed: " + (error && error.message ? error.message : error), "errorkb-message errorkb-error");
        },
      );
    }

    button.addEventListener("click", find);
    const sample = document.getElementById("errorkb-sample");
    const sampleText = document.querySelector(".errorkb-sample pre code");
    if (sample && sampleText) {
      sample.addEventListener("click", () => { // one click: the example in the box, and its answer
        paste.value = sampleText.textContent;
        load().catch(() => {});
        find();
      });
    }
    paste.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        find();
      }
    });
    // Fetch the index (and build the matcher, in the worker) once the paste box is on
    // screen and the page is idle, so that the first answer does not wait for it; pages
    // without the box never load it. Focusing the box loads it at once.
    paste.addEventListener("focus", () => load().catch(() => {}), { once: true });
    const idle = window.requestIdleCallback || ((callback) => setTimeout(callback, 200));
    if ("IntersectionObserver" in window) {
      const seen = new IntersectionObserver((entries) => {
        if (entries.some((entry) => entry.isIntersecting)) {
          seen.disconnect();
          idle(() => load().catch(() => {}), { timeout: 1500 });
        }
      });
      seen.observe(paste);
    }
  }

  if (!IN_WORKER && typeof document !== "undefined") {
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setUp);
    else setUp();
    // mkdocs-material's instant navigation swaps pages without loading scripts again
    if (window.document$ && typeof window.document$.subscribe === "function") window.document$.subscribe(setUp);
  }
})();
