import { InvalidUriTemplateError } from '../errors/invalid-uri-template.error';

type Operator = '' | '+' | '#' | '.' | '/' | ';' | '?' | '&';
interface VarSpec {
  name: string;
  explode: boolean;
  prefix?: number;
}
type Part = { literal: string } | { op: Operator; vars: VarSpec[] };

/** Variables captured from a URI: one string each, or a list for exploded (`*`) variables. */
export type UriVariables = Record<string, string | string[]>;

const OPERATORS = new Set(['+', '#', '.', '/', ';', '?', '&']);
const VARNAME = /^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*$/;
const SEPARATOR: Record<Operator, string> = { '': ',', '+': ',', '#': ',', '.': '.', '/': '/', ';': ';', '?': '&', '&': '&' };
const FIRST: Record<Operator, string> = { '': '', '+': '', '#': '#', '.': '.', '/': '/', ';': ';', '?': '?', '&': '&' };

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * An RFC 6570 URI template (levels 1-4) that expands variables into a URI and, the other way round,
 * matches a URI and extracts the variables. Query expressions (`{?a,b}`, `{&c}`) match their
 * parameters in any order and may be absent.
 */
export class UriTemplate {
  readonly variableNames: readonly string[];
  /** The template with variable names erased: two templates with the same shape match the same URIs. */
  readonly shape: string;
  private readonly parts: Part[];
  private readonly regex: RegExp;
  private readonly captures: { spec: VarSpec; op: Operator }[] = [];
  private readonly queryVars: VarSpec[] = [];

  constructor(readonly template: string) {
    this.parts = parse(template);
    const exprs = this.parts.filter((p): p is { op: Operator; vars: VarSpec[] } => 'op' in p);
    if (exprs.length === 0) throw new InvalidUriTemplateError(template, 'it has no {variables}; use a static uri');
    this.variableNames = exprs.flatMap((e) => e.vars.map((v) => v.name));
    if (new Set(this.variableNames).size !== this.variableNames.length) {
      throw new InvalidUriTemplateError(template, 'a variable appears twice');
    }
    this.shape = this.parts
      .map((p) => ('literal' in p ? p.literal : `{${p.op}${p.vars.map((v) => (v.explode ? '*' : '_')).join(',')}}`))
      .join('');
    this.regex = this.compile();
  }

  /** The variables of a matching URI, or `undefined` when the URI does not match. */
  match(uri: string): UriVariables | undefined {
    let path = uri;
    let query = '';
    if (this.queryVars.length > 0) {
      const q = uri.indexOf('?');
      if (q >= 0) {
        path = uri.slice(0, q);
        query = uri.slice(q + 1);
      }
    }
    const m = this.regex.exec(path);
    if (!m) return undefined;
    const vars: UriVariables = {};
    try {
      this.captures.forEach(({ spec, op }, i) => {
        const raw = m[i + 1];
        if (raw === undefined) return;
        if (spec.explode) {
          const items = FIRST[op] === '' ? raw : raw.slice(FIRST[op].length);
          vars[spec.name] = items.split(SEPARATOR[op]).map(decodeURIComponent);
        } else {
          vars[spec.name] = decodeURIComponent(raw);
        }
      });
      if (this.queryVars.length > 0) Object.assign(vars, this.matchQuery(query));
    } catch {
      return undefined; // malformed percent-encoding
    }
    return vars;
  }

  /** Expands the template with the given values (RFC 6570 section 3). */
  expand(values: Record<string, string | number | boolean | readonly (string | number | boolean)[] | undefined>): string {
    return this.parts
      .map((p) => {
        if ('literal' in p) return p.literal;
        const allowReserved = p.op === '+' || p.op === '#';
        const named = p.op === ';' || p.op === '?' || p.op === '&';
        const enc = (v: string) =>
          allowReserved
            ? encodeURI(v).replace(/%25([0-9A-Fa-f]{2})/g, '%$1')
            : encodeURIComponent(v).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
        const out: string[] = [];
        for (const spec of p.vars) {
          const value = values[spec.name];
          if (value === undefined) continue;
          if (Array.isArray(value)) {
            if (value.length === 0) continue;
            const items = value.map((v) => enc(String(v)));
            if (spec.explode) out.push(items.map((i) => (named ? `${spec.name}=${i}` : i)).join(SEPARATOR[p.op]));
            else out.push(named ? `${spec.name}=${items.join(',')}` : items.join(','));
          } else {
            let s = String(value);
            if (spec.prefix !== undefined) s = s.slice(0, spec.prefix);
            const e = enc(s);
            out.push(named ? (p.op === ';' && e === '' ? spec.name : `${spec.name}=${e}`) : e);
          }
        }
        return out.length === 0 ? '' : FIRST[p.op] + out.join(SEPARATOR[p.op]);
      })
      .join('');
  }

  private compile(): RegExp {
    let re = '^';
    let sawQuery = false;
    for (const p of this.parts) {
      if ('literal' in p) {
        if (sawQuery) throw new InvalidUriTemplateError(this.template, 'nothing may follow a query expression');
        re += escapeRe(p.literal);
        continue;
      }
      if (p.op === '?' || p.op === '&') {
        sawQuery = true;
        this.queryVars.push(...p.vars);
        continue;
      }
      if (sawQuery) throw new InvalidUriTemplateError(this.template, 'nothing may follow a query expression');
      re += this.expressionPattern(p.op, p.vars);
    }
    return new RegExp(`${re}$`);
  }

  private expressionPattern(op: Operator, vars: VarSpec[]): string {
    const value = op === '+' || op === '#' ? (this.queryVars.length > 0 ? '[^?#]' : '.') : op === '.' ? '[^./?#]' : '[^/?#,;]';
    const first = escapeRe(FIRST[op]);
    const sep = escapeRe(SEPARATOR[op]);
    const groups = vars.map((spec, i) => {
      this.captures.push({ spec, op });
      const lead = op === '' || op === '+' || op === '#' ? (i === 0 ? first : sep) : first;
      const named = op === ';' ? `${escapeRe(spec.name)}(?:=` : '';
      const close = op === ';' ? ')?' : '';
      if (spec.explode && lead === '') return `(${value}+(?:${sep}${value}+)*)`;
      if (spec.explode) return `((?:${lead}${named}${value}*${close})+)`;
      return `(?:${lead}${named}(${value}+?)${close})`;
    });
    // A lone variable of the simple and reserved forms is required; the others may be absent.
    if (op === '' || op === '+') return groups.join('');
    return groups.map((g) => `${g}?`).join('');
  }

  private matchQuery(query: string): UriVariables {
    const params = new Map<string, string[]>();
    for (const pair of query.split('&')) {
      if (pair === '') continue;
      const eq = pair.indexOf('=');
      const key = decodeURIComponent(eq < 0 ? pair : pair.slice(0, eq));
      const value = eq < 0 ? '' : decodeURIComponent(pair.slice(eq + 1).replace(/\+/g, ' '));
      const list = params.get(key);
      if (list) list.push(value);
      else params.set(key, [value]);
    }
    const vars: UriVariables = {};
    for (const spec of this.queryVars) {
      const values = params.get(spec.name);
      if (!values) continue;
      vars[spec.name] = spec.explode ? values : values.join(',');
    }
    return vars;
  }
}

function parse(template: string): Part[] {
  const parts: Part[] = [];
  let i = 0;
  while (i < template.length) {
    const open = template.indexOf('{', i);
    const closeBefore = template.indexOf('}', i);
    if (closeBefore >= 0 && (open < 0 || closeBefore < open)) throw new InvalidUriTemplateError(template, 'unmatched "}"');
    if (open < 0) {
      parts.push({ literal: template.slice(i) });
      break;
    }
    if (open > i) parts.push({ literal: template.slice(i, open) });
    const close = template.indexOf('}', open);
    if (close < 0) throw new InvalidUriTemplateError(template, 'unclosed "{"');
    let body = template.slice(open + 1, close);
    let op: Operator = '';
    if (OPERATORS.has(body[0])) {
      op = body[0] as Operator;
      body = body.slice(1);
    }
    const vars = body.split(',').map((raw): VarSpec => {
      const explode = raw.endsWith('*');
      const [name, prefix] = (explode ? raw.slice(0, -1) : raw).split(':');
      if (!VARNAME.test(name ?? '')) throw new InvalidUriTemplateError(template, `bad variable name "${raw}"`);
      if (prefix !== undefined && !/^[1-9]\d{0,3}$/.test(prefix)) throw new InvalidUriTemplateError(template, `bad prefix in "${raw}"`);
      return prefix === undefined ? { name, explode } : { name, explode, prefix: Number(prefix) };
    });
    parts.push({ op, vars });
    i = close + 1;
  }
  return parts;
}
