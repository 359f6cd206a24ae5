// SPDX-License-Identifier: ISC
// tests/oracle/json_lines.mjs — validate rxlock --json lines against
// docs/json-schema.json with ajv (npm, test-only, in $NPM_DIR).
// Usage: node json_lines.mjs SCHEMA FILE...  Each FILE holds lines of
// "LABEL<TAB>JSON"; every JSON must match exactly one event of the schema.
// Also checks the schema's own rule: every event property refers to
// definitions/keys/<the same name> (one key, one meaning, one type).
// Prints one line per failure and "N lines valid"; exit 1 on any failure.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
const require = createRequire(process.env.NPM_DIR + "/");
const Ajv = require("ajv");
const [schemaPath, ...files] = process.argv.slice(2);
const schema = JSON.parse(readFileSync(schemaPath, "utf8"));
let bad = 0, n = 0;
for (const [name, ev] of Object.entries(schema.definitions.events)) {
  for (const [key, sub] of Object.entries(ev.properties)) {
    if (sub.$ref !== "#/definitions/keys/" + key || !schema.definitions.keys[key]) {
      console.log(`schema: event ${name}: property ${key} is not definitions/keys/${key}`);
      bad++;
    }
  }
}
const ajv = new Ajv({ allErrors: true, strict: false });
const validate = ajv.compile(schema);
// the event definitions one by one, to name the closest on a failure
const one = Object.fromEntries(Object.keys(schema.definitions.events).map((k) =>
  [k, ajv.compile({ definitions: schema.definitions, allOf: [{ $ref: "#/definitions/events/" + k }] })]));
for (const f of files) {
  for (const raw of readFileSync(f, "utf8").split("\n")) {
    if (!raw) continue;
    const tab = raw.indexOf("\t");
    const label = raw.slice(0, tab), text = raw.slice(tab + 1);
    n++;
    let obj;
    try { obj = JSON.parse(text); } catch (e) { console.log(`${label}: not JSON: ${text.slice(0, 200)}`); bad++; continue; }
    if (validate(obj)) continue;
    bad++;
    const match = Object.entries(one).filter(([, v]) => v(obj)).map(([k]) => k);
    let why = match.length ? `matches ${match.join(", ")}` : "";
    if (!match.length) {
      const want = Object.entries(schema.definitions.events).find(([, e]) =>
        e.allOf && Object.entries(e.allOf[0].properties).every(([k, c]) => obj[k] === c.const));
      if (want) { one[want[0]](obj); why = `${want[0]}: ` + ajv.errorsText(one[want[0]].errors); }
      else why = "no event definition fits";
    }
    console.log(`${label}: ${why}: ${text.slice(0, 300)}`);
  }
}
console.log(`${n} lines, ${n - bad} valid`);
process.exit(bad ? 1 : 0);
