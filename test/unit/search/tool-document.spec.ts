import { identifierWords, toToolDocument } from '../../../src/search';

describe('identifierWords', () => {
  it.each([
    ['create_pull_request', ['create', 'pull', 'request']],
    ['create-pull-request', ['create', 'pull', 'request']],
    ['createPullRequest', ['create', 'pull', 'request']],
    ['pulls.create', ['pulls', 'create']],
    ['getHTTPResponse', ['get', 'http', 'response']],
    ['listEC2Instances', ['list', 'ec2', 'instances']],
    ['API-post-search', ['api', 'post', 'search']],
    ['', []],
  ])('%s', (identifier, words) => {
    expect(identifierWords(identifier)).toEqual(words);
  });
});

describe('toToolDocument', () => {
  it('reads the name words, title annotation, description and tags', () => {
    const document = toToolDocument({
      name: 'sendEmail',
      description: 'Compose and send',
      annotations: { title: 'Send email' },
      inputSchema: { type: 'object' },
      tags: ['gmail'],
    });
    expect(document).toEqual({
      name: 'sendEmail',
      nameWords: 'send email',
      title: 'Send email',
      description: 'Compose and send',
      parameters: [],
      tags: ['gmail'],
    });
  });

  it('reads nested object properties, array items, anyOf branches and local $refs', () => {
    const document = toToolDocument({
      name: 'create_customer',
      inputSchema: {
        type: 'object',
        properties: {
          billingAddress: { $ref: '#/$defs/Address', description: 'Where invoices go' },
          lines: { type: 'array', items: { type: 'object', properties: { unitPrice: { type: 'number', description: 'In cents' } } } },
          contact: { anyOf: [{ type: 'object', properties: { phone: { type: 'string' } } }, { type: 'string' }] },
        },
        $defs: { Address: { type: 'object', properties: { postal_code: { type: 'string', description: 'ZIP or postcode' } } } },
      },
    });
    expect(document.parameters).toEqual([
      { name: 'billingAddress', words: 'billing address', description: 'Where invoices go' },
      { name: 'postal_code', words: 'postal code', description: 'ZIP or postcode' },
      { name: 'lines', words: 'lines' },
      { name: 'unitPrice', words: 'unit price', description: 'In cents' },
      { name: 'contact', words: 'contact' },
      { name: 'phone', words: 'phone' },
    ]);
  });

  it('walks a recursive type once, and stops at a bounded depth', () => {
    const recursive = toToolDocument({
      name: 'tree',
      inputSchema: {
        type: 'object',
        properties: { root: { $ref: '#/$defs/Node' } },
        $defs: {
          Node: { type: 'object', properties: { label: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/Node' } } } },
        },
      },
    });
    expect(recursive.parameters.map((p) => p.name)).toEqual(['root', 'label', 'children']);

    let deep: Record<string, unknown> = { type: 'object', properties: { bottom: { type: 'string' } } };
    for (let level = 9; level >= 0; level--) deep = { type: 'object', properties: { [`level${level}`]: deep } };
    const nested = toToolDocument({ name: 'deep', inputSchema: deep as { type: 'object' } });
    expect(nested.parameters.map((p) => p.name)).toEqual(['level0', 'level1', 'level2', 'level3', 'level4']);
  });
});
