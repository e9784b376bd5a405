import { stem, tokenize } from './text';

const terms = (text: string) => tokenize(text).filter((t) => !t.stop).map((t) => t.term);

describe('stem', () => {
  it('brings inflections of a word together', () => {
    expect(new Set(['schedule', 'scheduled', 'scheduling', 'schedules'].map(stem)).size).toBe(1);
    expect(new Set(['message', 'messages'].map(stem)).size).toBe(1);
    expect(new Set(['reply', 'replies', 'replied', 'replying'].map(stem)).size).toBe(1);
    expect(new Set(['repository', 'repositories'].map(stem)).size).toBe(1);
  });

  it('keeps apart words that only look alike', () => {
    expect(stem('status')).not.toBe(stem('state'));
    expect(stem('user')).not.toBe(stem('use'));
  });
});

describe('tokenize', () => {
  it('splits snake_case and camelCase identifiers but not product names', () => {
    expect(terms('list_pull_requests')).toEqual(['list', 'pullrequest']);
    expect(terms('threadTs')).toEqual(['thread', 'ts']);
    expect(terms('HubSpot GitHub')).toEqual(['hubspot', 'github']);
  });

  it('turns entities into markers', () => {
    expect(terms('comment on ENG-42')).toContain('issuekeymarker');
    expect(terms('post in #general')).toContain('channelmarker');
    expect(terms('email bob@acme.com')).toContain('emailaddressmarker');
    expect(terms('read src/config.ts in acme/web')).toEqual(expect.arrayContaining(['filepathmarker', 'ownerrepomarker']));
    expect(terms('react with :eyes:')).toContain('emojimarker');
    expect(terms('GET /v1/status')).toEqual(['httpmethod', 'urlpathmarker']);
  });

  it('marks the payload after a colon and quoted values', () => {
    const tokens = tokenize('open an issue: "Crash on start" in the app');
    expect(tokens.find((t) => t.word === 'issue')!.afterColon).toBe(false);
    expect(tokens.find((t) => t.word === 'crash')!.quoted).toBe(true);
    expect(tokens.find((t) => t.word === 'app')!.afterColon).toBe(true);
  });

  it('merges fixed phrases and remembers how they were written', () => {
    const token = tokenize('review the pull requests').find((t) => t.term === 'pullrequest')!;
    expect(token.text).toBe('pull requests');
  });
});
