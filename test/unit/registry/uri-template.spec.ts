import { InvalidUriTemplateError } from '../../../src';
import { UriTemplate } from '../../../src/registry/uri-template';

describe('UriTemplate', () => {
  describe('matching', () => {
    it.each([
      ['notes://{id}', 'notes://note-1', { id: 'note-1' }],
      ['notes://{id}', 'notes://a%20b', { id: 'a b' }],
      ['users://{user}/posts/{post}', 'users://ann/posts/42', { user: 'ann', post: '42' }],
      ['file:///{+path}', 'file:///etc/app/config.json', { path: 'etc/app/config.json' }],
      ['repo://files{/segments*}', 'repo://files/src/index.ts', { segments: ['src', 'index.ts'] }],
      ['repo://tree{/a,b}', 'repo://tree/x/y', { a: 'x', b: 'y' }],
      ['search://items{?q,limit}', 'search://items?limit=5&q=red%20shoes', { q: 'red shoes', limit: '5' }],
      ['search://items{?q,limit}', 'search://items?q=x', { q: 'x' }],
      ['search://items{?q,limit}', 'search://items', {}],
      ['search://items{?tag*}', 'search://items?tag=a&tag=b', { tag: ['a', 'b'] }],
      ['search://items{?q}{&page}', 'search://items?q=a&page=2', { q: 'a', page: '2' }],
      ['doc://{name}{.ext}', 'doc://readme.md', { name: 'readme', ext: 'md' }],
      ['doc://page{#section}', 'doc://page#intro', { section: 'intro' }],
      ['map://{x},{y}', 'map://1,2', { x: '1', y: '2' }],
    ])('%s matches %s', (template, uri, expected) => {
      expect(new UriTemplate(template).match(uri)).toEqual(expected);
    });

    it.each([
      ['notes://{id}', 'notes://'],
      ['notes://{id}', 'notes://a/b'],
      ['notes://{id}', 'other://a'],
      ['notes://{id}', 'notes://a?x=1'],
      ['users://{user}/posts/{post}', 'users://ann/posts'],
      ['notes://{id}', 'notes://%E0%A4%A'],
    ])('%s does not match %s', (template, uri) => {
      expect(new UriTemplate(template).match(uri)).toBeUndefined();
    });

    it('does not backtrack catastrophically on long non-matching input (fails by timeout if it does)', () => {
      expect(new UriTemplate('x://{a*}/end').match(`x://${'a,'.repeat(20000)}!`)).toBeUndefined();
      expect(new UriTemplate('x://{/a*}/end').match(`x://${'/a'.repeat(20000)}!`)).toBeUndefined();
    });
  });

  describe('expansion (RFC 6570 examples)', () => {
    const vars = { var: 'value', hello: 'Hello World!', path: '/foo/bar', list: ['red', 'green', 'blue'], x: '1024', y: '768', empty: '' };
    it.each([
      ['{var}', 'value'],
      ['{hello}', 'Hello%20World%21'],
      ['{+path}/here', '/foo/bar/here'],
      ['{+hello}', 'Hello%20World!'],
      ['{#path}', '#/foo/bar'],
      ['map?{x,y}', 'map?1024,768'],
      ['{.var}', '.value'],
      ['{/var,x}/here', '/value/1024/here'],
      ['{/list*}', '/red/green/blue'],
      ['{;x,y}', ';x=1024;y=768'],
      ['{;x,y,empty}', ';x=1024;y=768;empty'],
      ['{?x,y}', '?x=1024&y=768'],
      ['{?list*}', '?list=red&list=green&list=blue'],
      ['?fixed=yes{&x}', '?fixed=yes&x=1024'],
      ['{var:3}', 'val'],
      ['{list}', 'red,green,blue'],
      ['{undefined}', ''],
    ])('%s -> %s', (template, expected) => {
      expect(new UriTemplate(template).expand(vars)).toBe(expected);
    });

    it('round-trips: a URI it expands is matched back to the same variables', () => {
      const t = new UriTemplate('api://{org}/repos{/path*}{?ref,depth}');
      const values = { org: 'my org', path: ['src', 'a b.ts'], ref: 'main', depth: '2' };
      expect(t.match(t.expand(values))).toEqual(values);
    });
  });

  it('exposes variable names and a shape that ignores names', () => {
    const a = new UriTemplate('notes://{id}{?view}');
    const b = new UriTemplate('notes://{name}{?mode}');
    expect(a.variableNames).toEqual(['id', 'view']);
    expect(a.shape).toBe(b.shape);
    expect(new UriTemplate('notes://{+id}').shape).not.toBe(a.shape);
  });

  it.each([
    ['notes://static', /no \{variables\}/],
    ['notes://{id', /unclosed/],
    ['notes://id}', /unmatched/],
    ['notes://{a b}', /bad variable name/],
    ['notes://{id}/{id}', /appears twice/],
    ['notes://{?q}/after', /nothing may follow a query/],
    ['notes://{id:0}', /bad prefix/],
  ])('rejects %s', (template, message) => {
    expect(() => new UriTemplate(template)).toThrow(InvalidUriTemplateError);
    expect(() => new UriTemplate(template)).toThrow(message);
  });
});
