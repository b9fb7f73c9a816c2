// vowels: an MCP servlet in AssemblyScript, built with Extism's
// AssemblyScript PDK (@extism/as-pdk). Two tools, count_vowels and shout.
// Build (scripts/assemblyscript.sh does this with the pinned packages):
//
//   asc assembly/index.ts --outFile vowels.wasm --use abort=assembly/index/abort
//
// It exports describe and call, the MCP servlet interface every Extism host
// can call, and runs unchanged in talon (kind = "extism").
import { Host, Memory } from "@extism/as-pdk";

@external("extism:host/env", "error_set")
declare function error_set(offset: u64): void;

// abort reports an AssemblyScript abort (a failed assertion, an index out
// of range) as the call's error, then traps: the host shows the message.
export function abort(message: string, fileName: string, line: u32, column: u32): void {
  const text = "abort: " + message + " at " + fileName + ":" + line.toString() + ":" + column.toString();
  error_set(Memory.allocateString(text).offset);
  unreachable();
}

const TEXT_SCHEMA = '{"type":"object","properties":{"text":{"type":"string","description":"The text."}},"required":["text"]}';

export function describe(): i32 {
  output(
    '{"tools":[' +
      '{"name":"count_vowels","description":"Count the vowels of a text.","inputSchema":' + TEXT_SCHEMA + "}," +
      '{"name":"shout","description":"Say a text in capitals.","inputSchema":' + TEXT_SCHEMA + "}" +
      "]}",
  );
  return 0;
}

export function call(): i32 {
  const req = new Reader(Host.inputString());
  const params = req.member(0, "params");
  let name: string | null = null;
  let text: string | null = null;
  if (params >= 0) {
    name = req.stringAt(req.member(params, "name"));
    text = req.stringAt(req.member(req.member(params, "arguments"), "text"));
  }
  if (name === null) {
    output(failed("the call has no tool name"));
    return 0;
  }
  if (text === null) {
    output(failed("text is missing: pass the text as a string"));
    return 0;
  }
  const tool: string = name;
  const t: string = text;
  if (tool == "count_vowels") {
    let count = 0;
    for (let i = 0; i < t.length; i++) {
      if ("aeiouAEIOU".indexOf(t.charAt(i)) >= 0) count++;
    }
    output(
      '{"content":[{"type":"text","text":' + quote(count.toString() + " vowels") + '}],"structuredContent":{"count":' +
        count.toString() + "}}",
    );
    return 0;
  }
  if (tool == "shout") {
    output('{"content":[{"type":"text","text":' + quote(t.toUpperCase()) + "}]}");
    return 0;
  }
  output(failed("unknown tool " + quote(tool)));
  return 0;
}

// output sets the call's output to s as UTF-8.
function output(s: string): void {
  Host.output(Uint8Array.wrap(String.UTF8.encode(s)));
}

function failed(msg: string): string {
  return '{"content":[{"type":"text","text":' + quote(msg) + '}],"isError":true}';
}

// quote writes s as a JSON string.
function quote(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c == 0x22) out += '\\"';
    else if (c == 0x5c) out += "\\\\";
    else if (c == 0x0a) out += "\\n";
    else if (c == 0x0d) out += "\\r";
    else if (c == 0x09) out += "\\t";
    else if (c < 0x20) out += "\\u00" + (c < 0x10 ? "0" : "") + c.toString(16);
    else out += s.charAt(i);
  }
  return out + '"';
}

// Reader finds values in a JSON document by position: member returns where
// the value of a key of the object at a position starts (-1 when absent),
// stringAt decodes the string there. It reads just enough JSON for a
// CallToolRequest: objects, arrays, strings with their escapes, numbers,
// true, false and null.
class Reader {
  constructor(public s: string) {}

  ws(i: i32): i32 {
    while (i < this.s.length) {
      const c = this.s.charCodeAt(i);
      if (c != 0x20 && c != 0x0a && c != 0x0d && c != 0x09) break;
      i++;
    }
    return i;
  }

  // skip returns the position after the value at i, or -1.
  skip(i: i32): i32 {
    i = this.ws(i);
    if (i >= this.s.length) return -1;
    const c = this.s.charCodeAt(i);
    if (c == 0x22) return this.skipString(i);
    if (c == 0x7b || c == 0x5b) {
      const close = c == 0x7b ? 0x7d : 0x5d;
      i = this.ws(i + 1);
      if (i < this.s.length && this.s.charCodeAt(i) == close) return i + 1;
      while (true) {
        if (c == 0x7b) {
          i = this.skipString(this.ws(i));
          if (i < 0) return -1;
          i = this.ws(i);
          if (i >= this.s.length || this.s.charCodeAt(i) != 0x3a) return -1;
          i++;
        }
        i = this.skip(i);
        if (i < 0) return -1;
        i = this.ws(i);
        if (i >= this.s.length) return -1;
        const d = this.s.charCodeAt(i);
        if (d == close) return i + 1;
        if (d != 0x2c) return -1;
        i++;
      }
    }
    while (i < this.s.length) {
      const d = this.s.charCodeAt(i);
      if (d == 0x2c || d == 0x7d || d == 0x5d || d == 0x20 || d == 0x0a || d == 0x0d || d == 0x09) break;
      i++;
    }
    return i;
  }

  skipString(i: i32): i32 {
    if (i < 0 || i >= this.s.length || this.s.charCodeAt(i) != 0x22) return -1;
    i++;
    while (i < this.s.length) {
      const c = this.s.charCodeAt(i);
      if (c == 0x5c) i += 2;
      else if (c == 0x22) return i + 1;
      else i++;
    }
    return -1;
  }

  member(obj: i32, key: string): i32 {
    if (obj < 0) return -1;
    let i = this.ws(obj);
    if (i >= this.s.length || this.s.charCodeAt(i) != 0x7b) return -1;
    i = this.ws(i + 1);
    if (i < this.s.length && this.s.charCodeAt(i) == 0x7d) return -1;
    while (true) {
      const k = this.stringAt(i);
      i = this.skipString(this.ws(i));
      if (k === null || i < 0) return -1;
      i = this.ws(i);
      if (i >= this.s.length || this.s.charCodeAt(i) != 0x3a) return -1;
      const v = this.ws(i + 1);
      if (k == key) return v;
      const after = this.skip(v);
      if (after < 0) return -1;
      i = this.ws(after);
      if (i >= this.s.length || this.s.charCodeAt(i) != 0x2c) return -1;
      i = this.ws(i + 1);
    }
  }

  stringAt(i: i32): string | null {
    if (i < 0) return null;
    i = this.ws(i);
    if (i >= this.s.length || this.s.charCodeAt(i) != 0x22) return null;
    let out = "";
    i++;
    while (i < this.s.length) {
      const c = this.s.charCodeAt(i);
      if (c == 0x22) return out;
      if (c != 0x5c) {
        out += this.s.charAt(i);
        i++;
        continue;
      }
      if (i + 1 >= this.s.length) return null;
      const e = this.s.charCodeAt(i + 1);
      i += 2;
      if (e == 0x6e) out += "\n";
      else if (e == 0x74) out += "\t";
      else if (e == 0x72) out += "\r";
      else if (e == 0x62) out += "\b";
      else if (e == 0x66) out += "\f";
      else if (e == 0x75) {
        if (i + 4 > this.s.length) return null;
        out += String.fromCharCode(<i32>parseInt(this.s.substr(i, 4), 16));
        i += 4;
      } else out += String.fromCharCode(e);
    }
    return null;
  }
}
