/**
 * Whether a Node version (`v22.12.0`) is in an `engines.node` range, for the forms package.json files use:
 * comparators (`>=22`, `<23.5`), `^`, `~`, `22.x`, `*`, hyphen ranges and `||`. Undefined for a range it does
 * not read, so that no one is warned on a guess.
 */
export function inNodeRange(version: string, range: string): boolean | undefined {
  const v = partsOf(version);
  if (v?.length !== 3) return undefined;
  let known = true;
  for (const alternative of range.split('||')) {
    const bounds = boundsOf(alternative.trim());
    if (!bounds) known = false;
    else if (bounds.every(([op, b]) => meets(compare(lowest(v), b), op))) return true;
  }
  return known ? false : undefined;
}

type Version = [number, number, number];
type Bound = ['>=' | '>' | '<' | '<=', Version];

/** The numbers of a version, partial or not (`22`, `22.1`, `22.x`, `v22.1.0`); undefined when it is not one. */
function partsOf(text: string): number[] | undefined {
  const match = /^v?(\d+|[xX*])(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?(?:[-+][\w.+-]*)?$/.exec(text);
  if (!match) return undefined;
  const parts: number[] = [];
  for (const part of match.slice(1)) {
    if (part === undefined || !/^\d+$/.test(part)) break;
    parts.push(Number(part));
  }
  return parts;
}

const lowest = (parts: number[]): Version => [parts[0] ?? 0, parts[1] ?? 0, parts[2] ?? 0];
/** The first version above all those a partial one stands for (`22.1` -> 22.2.0). */
const next = (parts: number[]): Version => lowest(parts.map((p, i) => (i === parts.length - 1 ? p + 1 : p)));
/** Up to a version, or to the end of all those a partial one stands for. */
const upTo = (parts: number[]): Bound => (parts.length === 3 ? ['<=', lowest(parts)] : ['<', next(parts)]);

/** The bounds of one space-separated set of comparators; undefined when one is not understood. */
function boundsOf(set: string): Bound[] | undefined {
  const hyphen = /^(\S+)\s+-\s+(\S+)$/.exec(set);
  if (hyphen) {
    const [from, to] = [partsOf(hyphen[1]), partsOf(hyphen[2])];
    return from?.length && to?.length ? [['>=', lowest(from)], upTo(to)] : undefined;
  }
  const bounds: Bound[] = [];
  for (const token of set.replace(/(>=|<=|[<>=^~])\s+/g, '$1').split(/\s+/)) {
    const [, op = '=', version] = /^(>=|<=|[<>=^~])?(.*)$/.exec(token)!;
    const parts = partsOf(version);
    if (token === '' || parts?.length === 0) continue; // `*`, `x`: any version
    if (!parts) return undefined;
    const from: Bound = ['>=', lowest(parts)];
    if (op === '>=') bounds.push(from);
    else if (op === '<') bounds.push(['<', lowest(parts)]);
    else if (op === '>') bounds.push(parts.length === 3 ? ['>', lowest(parts)] : ['>=', next(parts)]);
    else if (op === '<=') bounds.push(upTo(parts));
    else if (op === '^') bounds.push(from, ['<', next(parts.slice(0, parts.findIndex((p) => p !== 0) + 1 || parts.length))]);
    else if (op === '~') bounds.push(from, ['<', next(parts.slice(0, Math.min(parts.length, 2)))]);
    else bounds.push(from, upTo(parts));
  }
  return bounds;
}

function compare(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

function meets(order: number, op: Bound[0]): boolean {
  return op === '>=' ? order >= 0 : op === '>' ? order > 0 : op === '<' ? order < 0 : order <= 0;
}
