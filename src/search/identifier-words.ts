/**
 * The words of an identifier, lower-cased: `create_pull_request`, `create-pull-request`, `createPullRequest`
 * and `pulls.create` give `create`, `pull`, `request` (or `pulls`, `create`). A run of capitals followed by a
 * capitalised word is one word (`getHTTPResponse`: `get`, `http`, `response`); digits stay with their letters
 * (`listEC2Instances`: `list`, `ec2`, `instances`).
 */
export function identifierWords(identifier: string): string[] {
  return identifier
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu}+)(\p{Lu}\p{Ll})/gu, '$1 $2')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 0)
    .map((word) => word.toLowerCase());
}
